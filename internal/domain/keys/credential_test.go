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
		{"authorization wins over x-api-key", http.Header{"Authorization": {"Bearer k1"}, "X-Api-Key": {"k2"}}, false},
		{"authorization wins over api-key", http.Header{"Authorization": {"Bearer k1"}, "Api-Key": {"k2"}}, false},
		{"authorization wins over x-goog-api-key", http.Header{"Authorization": {"Bearer k1"}, "X-Goog-Api-Key": {"k2"}}, false},
		{"x-api-key vs api-key", http.Header{"X-Api-Key": {"k1"}, "Api-Key": {"k2"}}, true},
		{"api-key vs x-goog-api-key", http.Header{"Api-Key": {"k1"}, "X-Goog-Api-Key": {"k2"}}, true},
		{"blank authorization, x-api-key vs api-key", http.Header{"Authorization": {" "}, "X-Api-Key": {"k1"}, "Api-Key": {"k2"}}, true},
		{"authorization over repeated api-key", http.Header{"Authorization": {"Bearer k1"}, "Api-Key": {"k1", "k1"}}, true},
		{"basic scheme wins over a key", http.Header{"Authorization": {"Basic k1"}, "X-Api-Key": {"k1"}}, false},
		{"empty bearer wins over a key", http.Header{"Authorization": {"Bearer "}, "X-Api-Key": {"k1"}}, false},
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

// BenchmarkCredentialHeaders is the per-request credential work of
// modelgate_auth: reading the credential alone, and with the conflict
// check it now runs first.
func BenchmarkCredentialHeaders(b *testing.B) {
	h := http.Header{"Authorization": {"Bearer sk_mg_0123456789abcdefghijklmnopqrstuv"}, "Content-Type": {"application/json"},
		"User-Agent": {"OpenAI/Go 1.0"}, "Accept": {"application/json"}}
	b.Run("credential", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, ok := Credential(h); !ok {
				b.Fatal("no credential")
			}
		}
	})
	b.Run("credential+conflict", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, ok := Credential(h); !ok || ConflictingCredentials(h) {
				b.Fatal("no credential")
			}
		}
	})
}
