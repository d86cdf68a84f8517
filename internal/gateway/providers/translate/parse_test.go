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

func TestPath(t *testing.T) {
	p := Param("messages").At(2).Key("content").At(0).Key("function.name")
	if got := p.String(); got != "messages[2].content[0].function.name" {
		t.Fatal(got)
	}
	if got := Param("input").At(3).String(); got != "input[3]" {
		t.Fatal(got)
	}
	long := Param("a")
	for i := 0; i < 20; i++ {
		long = long.At(i)
	}
	if got := long.String(); got != "a[0][1][2][3][4][5][6]" {
		t.Fatalf("a path keeps eight segments: %s", got)
	}
}

func TestErrorConstructors(t *testing.T) {
	p := Param("tools").At(1).Key("type")
	for _, c := range []struct {
		err  *Error
		want string
	}{
		{Invalid(p, "a string"), "invalid value for tools[1].type: expected a string"},
		{Missing(p), "missing required parameter tools[1].type"},
		{Unknown(p, "an Anthropic model"), "unknown or unsupported request field tools[1].type for an Anthropic model"},
		{CannotExpress(p, "an Anthropic model", "why"), "tools[1].type is not supported when the model is served by an Anthropic model: why"},
		{CannotExpress(p, "x", ""), "tools[1].type is not supported when the model is served by x"},
		{Refuse(p, "no"), "no"},
	} {
		if c.err.Message != c.want || c.err.Param != "tools[1].type" {
			t.Errorf("%q (param %q), want %q", c.err.Message, c.err.Param, c.want)
		}
	}
}
