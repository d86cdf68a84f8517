package translate

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestCompactJSON(t *testing.T) {
	for _, s := range []string{`{}`, `{"a":1}`, "{\n  \"a\" : [ 1, 2 ],\n \"b\": \"x y \\\" z\"\t}", `[ "a\\", " " ]`, `"  spaced  "`} {
		var want bytes.Buffer
		if err := json.Compact(&want, []byte(s)); err != nil {
			t.Fatal(err)
		}
		if got := CompactJSON(s); got != want.String() {
			t.Errorf("CompactJSON(%q) = %q, want %q", s, got, want.String())
		}
	}
}
