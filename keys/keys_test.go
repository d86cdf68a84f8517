package keys

import (
	"net/http"
	"testing"
)

func TestCredential(t *testing.T) {
	cases := []struct {
		name    string
		headers map[string]string
		want    string
		present bool
	}{
		{"none", nil, "", false},
		{"bearer", map[string]string{"Authorization": "Bearer sk-1"}, "sk-1", true},
		{"bearer lower case scheme", map[string]string{"Authorization": "bearer sk-1"}, "sk-1", true},
		{"x-api-key", map[string]string{"X-Api-Key": "sk-2"}, "sk-2", true},
		{"authorization wins", map[string]string{"Authorization": "Bearer sk-1", "X-Api-Key": "sk-2"}, "sk-1", true},
		{"basic scheme is unusable", map[string]string{"Authorization": "Basic abc"}, "", true},
		{"empty bearer", map[string]string{"Authorization": "Bearer "}, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range c.headers {
				h.Set(k, v)
			}
			got, present := Credential(h)
			if got != c.want || present != c.present {
				t.Fatalf("got (%q, %v), want (%q, %v)", got, present, c.want, c.present)
			}
		})
	}
}

func TestAuthenticate(t *testing.T) {
	a := NewAuthenticator("master-secret")
	if !a.Required() {
		t.Fatal("a master key makes authentication required")
	}
	if r := a.Authenticate("master-secret"); !r.OK || !r.Master || !r.Admin || len(r.KeyHash) != 64 {
		t.Fatalf("master key refused: %+v", r)
	}
	for _, bad := range []string{"", "master-secre", "master-secret ", "MASTER-SECRET"} {
		if r := a.Authenticate(bad); r.OK {
			t.Fatalf("%q accepted", bad)
		}
	}
	if NewAuthenticator("").Required() {
		t.Fatal("no master key: authentication not required")
	}
	if r := NewAuthenticator("").Authenticate(""); r.OK {
		t.Fatal("empty credential accepted without a master key")
	}
}
