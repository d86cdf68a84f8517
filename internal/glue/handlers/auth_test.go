package handlers

import (
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/request/routes"
)

// TestCredentialFromTable: the auth stage asks of each request what its
// route's credential in the route table says, a key for unknown paths.
func TestCredentialFromTable(t *testing.T) {
	for _, c := range []struct {
		method, path string
		want         routes.Credential
	}{
		{"GET", "/health", routes.CredentialNone},
		{"POST", "/health", routes.CredentialNone},
		{"GET", "/admin/dashboard/", routes.CredentialNone},
		{"GET", "/admin/static/missing.js", routes.CredentialNone},
		{"GET", "/admin/auth-keys", routes.CredentialAdmin},
		{"PUT", "/admin/auth-keys", routes.CredentialAdmin},
		{"GET", "/admin/api/v1/auth-keys", routes.CredentialAdmin},
		{"GET", "/admin", routes.CredentialAdmin},
		{"GET", "/admin/dashboards", routes.CredentialAdmin},
		{"POST", "/v1/chat/completions", routes.CredentialKey},
		{"GET", "/v1/usage", routes.CredentialKey},
		{"POST", "/v1/audio/speech", routes.CredentialKey},
		{"GET", "/p/openai/v1/models", routes.CredentialKey},
		{"POST", "/nope", routes.CredentialKey},
	} {
		if got := credential(routes.Lookup(c.method, c.path)); got != c.want {
			t.Errorf("%s %s: %s, want %s", c.method, c.path, got, c.want)
		}
	}
	for _, rt := range routes.All() {
		method := rt.Method
		if method == routes.Any {
			method = "DELETE"
		}
		path := strings.ReplaceAll(strings.ReplaceAll(rt.Path, "{id}", "x1"), "{provider}", "p1")
		path = strings.ReplaceAll(path, "*", "a/b")
		if got := credential(routes.Lookup(method, path)); got != rt.Credential {
			t.Errorf("%s %s: %s, table %s", method, path, got, rt.Credential)
		}
	}
}
