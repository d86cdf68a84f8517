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
