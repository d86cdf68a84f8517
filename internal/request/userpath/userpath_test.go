package userpath

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	cases := []struct {
		in   string
		want string
		err  error
	}{
		{"", "/", nil},
		{"   ", "/", nil},
		{"/", "/", nil},
		{"/team/alpha", "/team/alpha", nil},
		{"team/alpha", "/team/alpha", nil},
		{"/team/alpha/", "/team/alpha", nil},
		{"  /team/alpha  ", "/team/alpha", nil},
		{"/Team/Ünïcode", "/Team/Ünïcode", nil},
		{"/a b/c", "", ErrSpace},
		{"/a\u00a0b", "", ErrSpace},
		{"/a/b\u00a0", "/a/b", nil},
		{"/team//alpha", "", ErrEmptySegment},
		{"//", "", ErrEmptySegment},
		{"/team/alpha//", "", ErrEmptySegment},
		{"/team/../admin", "", ErrDotSegment},
		{"..", "", ErrDotSegment},
		{"/team/.", "", ErrDotSegment},
		{"/team/\x00", "", ErrControl},
		{"/team\nX-Injected: 1", "", ErrControl},
		{"/team/\x7f", "", ErrControl},
		{"/\xff", "", ErrInvalidUTF8},
		{"/" + strings.Repeat("a", MaxLen-1), "/" + strings.Repeat("a", MaxLen-1), nil},
		{"/" + strings.Repeat("a", MaxLen), "", ErrTooLong},
		{strings.Repeat("a", MaxLen-1) + "/", "/" + strings.Repeat("a", MaxLen-1), nil},
		{strings.Repeat("a/", 4*MaxLen), "", ErrTooLong},
	}
	for _, c := range cases {
		got, err := Normalize(c.in)
		if got != c.want || !errors.Is(err, c.err) {
			t.Errorf("Normalize(%q) = %q, %v; want %q, %v", c.in, got, err, c.want, c.err)
		}
	}
}

func TestErrorsDoNotQuoteInput(t *testing.T) {
	for _, in := range []string{"/sk_mg_secret//x", "/sk_mg_secret/..", "/sk_mg_secret\x01"} {
		_, err := Normalize(in)
		if err == nil || strings.Contains(err.Error(), "sk_mg_secret") {
			t.Errorf("Normalize(%q) error %v", in, err)
		}
	}
}

// TestCanonicalASCII: the fast path accepts exactly the printable-ASCII
// paths that Normalize returns unchanged.
func TestCanonicalASCII(t *testing.T) {
	for _, p := range []string{"/a", "/team/app", "/Team/a.b/c..d/~x", "/" + strings.Repeat("a", MaxLen-1)} {
		if !canonicalASCII(p) {
			t.Errorf("canonicalASCII(%q) = false", p)
		}
	}
	for _, p := range []string{"", "/", "a", "/a/", "//a", "/a//b", "/.", "/a/..", "/a b", "/a\tb", "/a\x7f", "/é", " /a", "/" + strings.Repeat("a", MaxLen)} {
		if canonicalASCII(p) {
			t.Errorf("canonicalASCII(%q) = true", p)
		}
		if n, err := normalize(p); err == nil && n == p && p != Root && isASCIIPrintable(p) {
			t.Errorf("%q is canonical ASCII but the fast path refused it", p)
		}
	}
}

func isASCIIPrintable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}
