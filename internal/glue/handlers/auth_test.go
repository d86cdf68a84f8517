package handlers

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

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

func TestFromLoopback(t *testing.T) {
	for _, c := range []struct {
		remote, clientIP string
		want             bool
	}{
		{"127.0.0.1:5000", "", true},
		{"127.0.0.2:5000", "", true},
		{"[::1]:5000", "", true},
		{"[::ffff:127.0.0.1]:5000", "", true},
		{"10.0.0.7:5000", "", false},
		{"[2001:db8::1]:443", "", false},
		{"garbage", "", false},
		// Caddy's client IP (a trusted proxy's forwarded address) decides.
		{"127.0.0.1:5000", "203.0.113.9", false},
		{"10.0.0.7:5000", "127.0.0.1", true},
	} {
		r := httptest.NewRequest("POST", "/v1/chat/completions", nil)
		r.RemoteAddr = c.remote
		if c.clientIP != "" {
			r = r.WithContext(context.WithValue(r.Context(), caddyhttp.VarsCtxKey, map[string]any{caddyhttp.ClientIPVarKey: c.clientIP}))
		}
		if got := fromLoopback(r); got != c.want {
			t.Errorf("remote %s client %q: %v, want %v", c.remote, c.clientIP, got, c.want)
		}
	}
}
