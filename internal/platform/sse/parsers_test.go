package sse

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestParsersEdgeCases pins where the readers and parsers agree and where
// they differ, each as its callers rely on it:
//
//   - raw: Reader's events (the proxy relays them byte for byte);
//   - parse: Parse on each of them, "name|data", "-" for no data (the
//     proxy feeds a translated stream's events so);
//   - split: Split on the whole input, "name|data" (translation tests);
//   - each: EachData on the whole input (audit adds a captured stream up);
//   - first: FirstData on the first raw event, "data@at" (the proxy
//     looks for usage there and edits it in place).
func TestParsersEdgeCases(t *testing.T) {
	for _, c := range []struct {
		name  string
		in    string
		raw   []string
		parse []string
		split []string
		each  []string
		first string
	}{
		{"plain", "data: a\n\n",
			[]string{"data: a\n\n"}, []string{"|a"}, []string{"|a"}, []string{"a"}, "a@6"},
		{"CRLF", "event: e\r\ndata: a\r\n\r\n",
			[]string{"event: e\r\ndata: a\r\n\r\n"}, []string{"e|a"}, []string{"e|a"}, []string{"a"}, "a@16"},
		// A CR before CRLF: Split turns CRLF into LF first, so one CR
		// is left to drop; Parse, EachData and FirstData drop one CR of
		// the two and keep the other.
		{"CR CRLF", "data: a\r\r\n\r\n",
			[]string{"data: a\r\r\n\r\n"}, []string{"|a\r"}, []string{"|a"}, []string{"a\r"}, "a\r@6"},
		// A lone CR is not a line break anywhere.
		{"lone CR", "data: a\rdata: b\n\n",
			[]string{"data: a\rdata: b\n\n"}, []string{"|a\rdata: b"}, []string{"|a\rdata: b"}, []string{"a\rdata: b"}, "a\rdata: b@6"},
		{"LF then CRLF ends an event", "data: a\n\r\ndata: b\n\n",
			[]string{"data: a\n\r\n", "data: b\n\n"}, []string{"|a", "|b"}, []string{"|a", "|b"}, []string{"a", "b"}, "a@6"},
		// Several data lines: joined by LF, except that FirstData sees
		// only the first.
		{"two data lines", "data: a\ndata: b\n\n",
			[]string{"data: a\ndata: b\n\n"}, []string{"|a\nb"}, []string{"|a\nb"}, []string{"a\nb"}, "a@6"},
		// An empty first data line: kept as an empty line by Parse and
		// Split, dropped by EachData.
		{"empty first data line", "data:\ndata: b\n\n",
			[]string{"data:\ndata: b\n\n"}, []string{"|\nb"}, []string{"|\nb"}, []string{"b"}, "@5"},
		{"empty last data line", "data: a\ndata:\n\n",
			[]string{"data: a\ndata:\n\n"}, []string{"|a\n"}, []string{"|a\n"}, []string{"a\n"}, "a@6"},
		// One space after the colon is dropped, and only one.
		{"no space", "data:a\n\n",
			[]string{"data:a\n\n"}, []string{"|a"}, []string{"|a"}, []string{"a"}, "a@5"},
		{"two spaces", "data:  a\n\n",
			[]string{"data:  a\n\n"}, []string{"| a"}, []string{"| a"}, []string{" a"}, " a@6"},
		// [DONE] is data to Parse, Split and FirstData; EachData skips it.
		{"[DONE]", "data: [DONE]\n\n",
			[]string{"data: [DONE]\n\n"}, []string{"|[DONE]"}, []string{"|[DONE]"}, nil, "[DONE]@6"},
		// Empty data is an event to Parse and Split, none to EachData.
		{"empty data", "data:\n\n",
			[]string{"data:\n\n"}, []string{"|"}, []string{"|"}, nil, "@5"},
		// Events without data: no event to any parser, relayed as they
		// came.
		{"name only", "event: ping\n\n",
			[]string{"event: ping\n\n"}, []string{"-"}, nil, nil, "@0"},
		{"comment", ": comment\n\n",
			[]string{": comment\n\n"}, []string{"-"}, nil, nil, "@0"},
		{"data without colon", "data\n\n",
			[]string{"data\n\n"}, []string{"-"}, nil, nil, "@0"},
		{"stray blank line", "data: a\n\n\ndata: b\n\n",
			[]string{"data: a\n\n", "\n", "data: b\n\n"}, []string{"|a", "-", "|b"}, []string{"|a", "|b"}, []string{"a", "b"}, "a@6"},
		// The name loses the spaces around it; other fields are ignored.
		{"spaced name", "event:  e \ndata: a\n\n",
			[]string{"event:  e \ndata: a\n\n"}, []string{"e|a"}, []string{"e|a"}, []string{"a"}, "a@17"},
		{"id", "id: 1\nevent: e\ndata: x\n\n",
			[]string{"id: 1\nevent: e\ndata: x\n\n"}, []string{"e|x"}, []string{"e|x"}, []string{"x"}, "x@21"},
		// No blank line at the end: Reader returns the tail with io.EOF;
		// the parsers take it as an event.
		{"no blank line at the end", "data: a",
			[]string{"data: a"}, []string{"|a"}, []string{"|a"}, []string{"a"}, "a@6"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var raw, parse []string
			r := NewReader(strings.NewReader(c.in), 0)
			defer r.Release()
			for {
				ev, err := r.Next()
				if len(ev) > 0 {
					raw = append(raw, string(ev))
					if p, ok := Parse(ev); ok {
						parse = append(parse, p.Name+"|"+string(p.Data))
					} else {
						parse = append(parse, "-")
					}
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			var split, each []string
			for _, ev := range Split([]byte(c.in)) {
				split = append(split, ev.Name+"|"+string(ev.Data))
			}
			EachData([]byte(c.in), func(d []byte) { each = append(each, string(d)) })
			d, at := FirstData([]byte(raw[0]))
			first := fmt.Sprintf("%s@%d", d, at)
			for _, x := range []struct {
				what      string
				got, want []string
			}{{"raw", raw, c.raw}, {"parse", parse, c.parse}, {"split", split, c.split}, {"each", each, c.each}, {"first", []string{first}, []string{c.first}}} {
				if !slices.Equal(x.got, x.want) {
					t.Errorf("%s: %q, want %q", x.what, x.got, x.want)
				}
			}
		})
	}
}
