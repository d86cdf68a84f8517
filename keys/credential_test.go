package keys

import (
	"net/http"
	"testing"
)

func TestConflictingCredentials(t *testing.T) {
	cases := []struct {
		name     string
		h        http.Header
		conflict bool
	}{
		{"none", http.Header{}, false},
		{"bearer only", http.Header{"Authorization": {"Bearer k1"}}, false},
		{"x-api-key only", http.Header{"X-Api-Key": {"k1"}}, false},
		{"same key twice", http.Header{"Authorization": {"Bearer k1"}, "X-Api-Key": {" k1 "}}, false},
		{"same key in all four", http.Header{"Authorization": {"bearer k1"}, "X-Api-Key": {"k1"}, "Api-Key": {"k1"}, "X-Goog-Api-Key": {"k1"}}, false},
		{"empty second header", http.Header{"Authorization": {"Bearer k1"}, "X-Api-Key": {""}}, false},
		{"authorization vs x-api-key", http.Header{"Authorization": {"Bearer k1"}, "X-Api-Key": {"k2"}}, true},
		{"authorization vs api-key", http.Header{"Authorization": {"Bearer k1"}, "Api-Key": {"k2"}}, true},
		{"authorization vs x-goog-api-key", http.Header{"Authorization": {"Bearer k1"}, "X-Goog-Api-Key": {"k2"}}, true},
		{"x-api-key vs api-key", http.Header{"X-Api-Key": {"k1"}, "Api-Key": {"k2"}}, true},
		{"basic scheme beside a key", http.Header{"Authorization": {"Basic k1"}, "X-Api-Key": {"k1"}}, true},
		{"empty bearer beside a key", http.Header{"Authorization": {"Bearer "}, "X-Api-Key": {"k1"}}, true},
		{"repeated authorization", http.Header{"Authorization": {"Bearer k1", "Bearer k2"}}, true},
		{"repeated identical authorization", http.Header{"Authorization": {"Bearer k1", "Bearer k1"}}, true},
		{"repeated x-api-key", http.Header{"X-Api-Key": {"k1", "k1"}}, true},
	}
	for _, c := range cases {
		if got := ConflictingCredentials(c.h); got != c.conflict {
			t.Errorf("%s: conflict = %v, want %v", c.name, got, c.conflict)
		}
	}
}
