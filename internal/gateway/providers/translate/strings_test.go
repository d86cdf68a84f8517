package translate

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\slash", "\n\r\t\b\f\x00\x1f", "é✓😀", "\u2028\u2029",
		"bad \xff\xfe utf8", "<html>&", string([]byte{0xe2, 0x82})} {
		got := AppendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q → %s: %v", s, got, err)
		}
		var want string
		m, _ := json.Marshal(s)
		_ = json.Unmarshal(m, &want)
		if back != want {
			t.Fatalf("%q → %q, want %q", s, back, want)
		}
		if bytes.ContainsAny(got, "\n\r\u2028") {
			t.Fatalf("raw line break in %s", got)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\xff", "\u2028", "line\nbreak"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var back string
		if err := json.Unmarshal(AppendString(nil, s), &back); err != nil {
			t.Fatal(err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("%q → %q", s, back)
		}
	})
}
