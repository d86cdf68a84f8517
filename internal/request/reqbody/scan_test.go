package reqbody

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestScanReadsRecordedMembers(t *testing.T) {
	body := `{"model":"m","temperature":0.2,"max_completion_tokens":9,"metadata":{"user_id":"u"},` +
		`"system":"s","messages":[{"role":"user","content":"hi"}],"input":"x","instructions":"i",` +
		`"prompt_cache_key":"k","previous_response_id":"r","max_output_tokens":3,"temperature":0.5}`
	f, err := Scan([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string][]byte{
		`"m"`: f.Model, `0.5`: f.Temperature, `9`: f.MaxCompletionTokens, `{"user_id":"u"}`: f.Metadata,
		`"s"`: f.System, `[{"role":"user","content":"hi"}]`: f.Messages, `"x"`: f.Input, `"i"`: f.Instructions,
		`"k"`: f.PromptCacheKey, `"r"`: f.PreviousResponseID, `3`: f.MaxOutputTokens,
	} {
		if string(got) != name {
			t.Errorf("got %q, want %s", got, name)
		}
	}
	if f.Stream != nil || f.MaxTokens != nil || f.StreamOptions != nil {
		t.Errorf("absent members read: %+v", f)
	}
}

func TestScanRefusals(t *testing.T) {
	for body, code := range map[string]string{
		`{"max_tokens":1,"max_tokens":2}`: "duplicate_field",
		`{"model":"a","mod\u0065l":"b"}`:  "duplicate_field",
		`[1]`:                             "invalid_json",
		`{"a":1,}`:                        "invalid_json",
		`{"a":[1}`:                        "invalid_json",
		``:                                "invalid_json",
	} {
		_, err := Scan([]byte(body))
		var e *Error
		if !errors.As(err, &e) || e.Code != code {
			t.Errorf("%s: %v, want %s", body, err, code)
		}
	}
}

func TestMemberAndElements(t *testing.T) {
	obj := []byte(` {"role" : "user", "c\u006fntent":[{"text":"a\"}"}, "b" ,3, {"x":[]}], "role":"last"} `)
	if got := string(Member(obj, "role")); got != `"last"` {
		t.Errorf("role = %s", got)
	}
	content := Member(obj, "content")
	var elems []string
	Elements(content, func(e []byte) bool { elems = append(elems, string(e)); return true })
	if strings.Join(elems, "|") != `{"text":"a\"}"}|"b"|3|{"x":[]}` {
		t.Errorf("elements %q", elems)
	}
	n := 0
	Elements(content, func([]byte) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("Elements did not stop: %d", n)
	}
	for _, bad := range []string{`[`, `"x"`, `[1,`, `{}`} {
		Elements([]byte(bad), func([]byte) bool { return true })
	}
	if Member([]byte(`[1]`), "a") != nil || Member([]byte(`{"a":1`), "b") != nil {
		t.Error("member of a non-object")
	}
}

func TestMembers(t *testing.T) {
	obj := []byte(` {"a" : [1,"]"], "b\u0021":{"c":"}"},"a":null} trailing`)
	var got []string
	Members(obj, func(k, v []byte) bool { got = append(got, string(k)+"="+string(v)); return true })
	if want := `"a"=[1,"]"]|"b\u0021"={"c":"}"}|"a"=null`; strings.Join(got, "|") != want {
		t.Errorf("members %q, want %q", strings.Join(got, "|"), want)
	}
	n := 0
	Members(obj, func(_, _ []byte) bool { n++; return false })
	if n != 1 {
		t.Errorf("Members did not stop: %d calls", n)
	}
	for _, notObject := range []string{`[{"a":1}]`, `"x"`, ``, `{"a"`} {
		Members([]byte(notObject), func(k, _ []byte) bool { t.Errorf("%q: member %s", notObject, k); return true })
	}
}

// FuzzMember compares Member and Elements with encoding/json on
// arbitrary bytes: no panic, and on a valid object the same top-level
// values and, for an array member, the same elements.
//
// Bounded run: go test -run x -fuzz FuzzMember -fuzztime 10s ./reqbody
func FuzzMember(f *testing.F) {
	for _, seed := range []string{`{"a":[1,"]",{"b":2}],"b":"\\"}`, `{"a":1,"a":[]}`, `{}`, `[`, `{"a":[ ]}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		a := Member(body, "a")
		var elems [][]byte
		Elements(a, func(e []byte) bool { elems = append(elems, e); return true })
		var m map[string]json.RawMessage
		if json.Unmarshal(body, &m) != nil || !bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("{")) {
			return
		}
		want, ok := m["a"]
		if _, err := Scan(body); err != nil {
			var e *Error
			if errors.As(err, &e) && e.Code == "duplicate_field" {
				return
			}
			t.Fatalf("%q: valid object refused: %v", body, err)
		}
		if ok != (a != nil) || (ok && !bytes.Equal(bytes.TrimSpace(want), a)) {
			t.Fatalf("%q: member %q, decoder %q", body, a, want)
		}
		var arr []json.RawMessage
		if json.Unmarshal(a, &arr) == nil && a[0] == '[' {
			if len(arr) != len(elems) {
				t.Fatalf("%q: %d elements, decoder %d", body, len(elems), len(arr))
			}
			for i := range arr {
				if !bytes.Equal(bytes.TrimSpace(arr[i]), elems[i]) {
					t.Fatalf("%q: element %d %q, decoder %q", body, i, elems[i], arr[i])
				}
			}
		}
	})
}

func TestText(t *testing.T) {
	for _, c := range []struct {
		raw    string
		want   string
		wantOK bool
	}{
		{`"gpt-4o"`, "gpt-4o", true},
		{`""`, "", true},
		{`"gpt\u002d4o"`, "gpt-4o", true},
		{`"a\"b"`, `a"b`, true},
		{`null`, "", false},
		{`42`, "", false},
		{``, "", false},
	} {
		got, ok := Text([]byte(c.raw))
		if got != c.want || ok != c.wantOK {
			t.Errorf("Text(%s) = %q, %v; want %q, %v", c.raw, got, ok, c.want, c.wantOK)
		}
	}
}
