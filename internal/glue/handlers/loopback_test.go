package handlers

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

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
