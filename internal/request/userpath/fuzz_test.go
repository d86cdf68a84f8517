package userpath

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzNormalize checks the invariants of Normalize on arbitrary input: the
// fast path agrees with the full checks, an accepted path is canonical (leading slash, no empty, "." or ".."
// segments, no trailing slash, no control characters or white space, at
// most MaxLen
// bytes) and normalizes to itself.
//
// Bounded run: go test -run x -fuzz FuzzNormalize -fuzztime 10s ./userpath
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"", "/", "team", "/team/alpha", "team/alpha/", " /x ", "//", "/a//b", "/..", "/./a",
		"/a/\x00", "/\xff\xfe", "/é/日本", "/a b", "\t/a\t", strings.Repeat("/abc", 200),
		"/%2e%2e", `\..\`, "/a/\u2028", "/\u00a0a\u00a0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := Normalize(in)
		if err != nil {
			if out != "" {
				t.Fatalf("Normalize(%q) returned %q with error %v", in, out, err)
			}
			return
		}
		if !strings.HasPrefix(out, "/") {
			t.Fatalf("Normalize(%q) = %q: no leading slash", in, out)
		}
		if len(out) > MaxLen {
			t.Fatalf("Normalize(%q) = %d bytes", in, len(out))
		}
		if !utf8.ValidString(out) {
			t.Fatalf("Normalize(%q) = %q: invalid UTF-8", in, out)
		}
		for _, r := range out {
			if unicode.IsControl(r) || unicode.IsSpace(r) {
				t.Fatalf("Normalize(%q) = %q: control character or white space", in, out)
			}
		}
		if out != Root {
			if strings.HasSuffix(out, "/") {
				t.Fatalf("Normalize(%q) = %q: trailing slash", in, out)
			}
			for _, seg := range strings.Split(out[1:], "/") {
				if seg == "" || seg == "." || seg == ".." {
					t.Fatalf("Normalize(%q) = %q: bad segment %q", in, out, seg)
				}
			}
		}
		if canonicalASCII(in) {
			if slow, err := normalize(in); err != nil || slow != in {
				t.Fatalf("fast path accepted %q but the full checks give %q, %v", in, slow, err)
			}
		}
		again, err := Normalize(out)
		if err != nil || again != out {
			t.Fatalf("not idempotent: Normalize(%q) = %q, then %q, %v", in, out, again, err)
		}
	})
}
