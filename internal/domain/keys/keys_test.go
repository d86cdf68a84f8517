package keys

import (
	"net/http"
	"testing"
	"time"
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

func TestAuthenticateManaged(t *testing.T) {
	c := newClock()
	s := mustOpen(t, newMem(), c)
	a := NewAuthenticator("")
	if a.Required() {
		t.Fatal("required before any key exists")
	}
	_, secret := mustCreate(t, s, NewKey{Name: "no-admin", UserPath: "/u"})
	a.UseKeys(s)
	if !a.Required() || a.HasMaster() {
		t.Fatal("one managed key makes authentication required")
	}
	r := a.Authenticate(secret)
	if !r.OK || r.Master || r.Admin || r.UserPath != "/u" || r.KeyID == "" || r.Refusal != "" {
		t.Fatalf("managed key: %+v", r)
	}
	k2, secret2 := mustCreate(t, s, NewKey{Name: "admin", DashboardAccess: true})
	if r := a.Authenticate(secret2); !r.OK || !r.Admin || r.Master {
		t.Fatalf("dashboard key: %+v", r)
	}
	if _, err := s.Deactivate(k2.ID); err != nil {
		t.Fatal(err)
	}
	if r := a.Authenticate(secret2); r.OK || r.Refusal != RefusedDeactivated || r.KeyID != k2.ID {
		t.Fatalf("deactivated key: %+v", r)
	}
	exp := c.Now().Add(time.Minute)
	_, secret3 := mustCreate(t, s, NewKey{Name: "exp", ExpiresAt: &exp})
	c.Add(2 * time.Minute)
	if r := a.Authenticate(secret3); r.OK || r.Refusal != RefusedExpired {
		t.Fatalf("expired key: %+v", r)
	}
	if r := a.Authenticate("sk_mg_nope"); r.OK || r.Refusal != RefusedInvalid || r.KeyID != "" {
		t.Fatalf("unknown key: %+v", r)
	}
}
