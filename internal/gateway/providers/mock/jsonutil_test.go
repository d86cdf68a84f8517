package mock

import (
	"testing"

	"github.com/tidwall/gjson"
)

func TestMembers(t *testing.T) {
	obj := gjson.Parse(`{"a":1,"b":{"x":[1,2]},"a":2,"c":null,"d\u0022":"q"}`)
	got := members(obj, "c", "a", "missing", "b", `d"`)
	want := []string{"null", "1", "", `{"x":[1,2]}`, `"q"`}
	for i, w := range want {
		if got[i].Raw != w {
			t.Errorf("member %d: got %q, want %q", i, got[i].Raw, w)
		}
		if g := obj.Get(gjson.Escape([]string{"c", "a", "missing", "b", `d"`}[i])); g.Raw != got[i].Raw {
			t.Errorf("member %d: %q differs from Get's %q", i, got[i].Raw, g.Raw)
		}
	}
	if m := members(gjson.Parse(`"text"`), "a"); m[0].Exists() {
		t.Errorf("a string has no members, got %q", m[0].Raw)
	}
}

// A chat request's stream_options.include_usage is read as a gjson path
// reads it: past a first stream_options without the field to a later one.
func TestIncludeUsageDuplicateStreamOptions(t *testing.T) {
	h := NewHandler(Options{}).(*handler)
	for first, want := range map[string]bool{
		``:                          true,
		`"stream_options":1,`:       true,
		`"stream_options":{},`:      true,
		`"stream_options":null,`:    true,
		`"stream_options":{"x":1},`: true,
		`"stream_options":{"include_usage":false},`: false,
	} {
		body := `{"model":"mock-chat","stream":true,` + first + `"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`
		req, apiErr := h.parseChatRequest(gjson.Parse(body))
		if apiErr != nil {
			t.Fatalf("%s: %v", body, apiErr.message)
		}
		if req.includeUsage != want || gjson.Get(body, "stream_options.include_usage").Bool() != want {
			t.Errorf("%s: include usage %v, want %v as gjson's path reads it", body, req.includeUsage, want)
		}
	}
}
