package mock

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEstimateTokens(t *testing.T) {
	for s, want := range map[string]int{"": 0, "a": 1, "abcd": 1, "abcde": 2, "héllo wörld": 3} {
		if got := estimateTokens(s); got != want {
			t.Errorf("estimateTokens(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestSplitWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"one", []string{"one"}},
		{"Echo: hello world", []string{"Echo:", " hello", " world"}},
		{"  lead", []string{"  lead"}},
		{"a  b\nc ", []string{"a", "  b", "\nc", " "}},
	}
	for _, tt := range tests {
		got := splitWords(tt.in)
		if !slices.Equal(got, tt.want) {
			t.Errorf("splitWords(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.Join(got, "") != tt.in {
			t.Errorf("splitWords(%q) does not join back", tt.in)
		}
	}
}

func TestTruncateWords(t *testing.T) {
	tests := []struct {
		in      string
		n       int
		want    string
		wantCut bool
	}{
		{"a b c", 2, "a b", true},
		{"a b c", 3, "a b c", false},
		{"a b c ", 3, "a b c ", false},
		{" a  b  c", 2, " a  b", true},
		{"", 1, "", false},
	}
	for _, tt := range tests {
		got, cut := truncateWords(tt.in, tt.n)
		if got != tt.want || cut != tt.wantCut {
			t.Errorf("truncateWords(%q, %d) = %q, %v; want %q, %v", tt.in, tt.n, got, cut, tt.want, tt.wantCut)
		}
	}
}

func TestSplitEven(t *testing.T) {
	for _, s := range []string{"", "ab", `{"city":"Zürich","unit":"celsius"}`, "ééééé"} {
		got := splitEven(s, 3)
		if len(got) > 3 || strings.Join(got, "") != s {
			t.Errorf("splitEven(%q) = %q", s, got)
		}
		for _, p := range got {
			if !utf8.ValidString(p) {
				t.Errorf("splitEven(%q) cut inside a rune: %q", s, got)
			}
		}
	}
	if got := splitEven(`{"q":"abcdefgh"}`, 3); len(got) != 3 {
		t.Errorf("want 3 pieces, got %q", got)
	}
}
