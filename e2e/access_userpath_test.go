package e2e

import (
	"strings"
	"testing"
)

// TestAccessUserPath: the user path comes from the configured header,
// normalized; a malformed one gets 400; a key's bound path overrides it.
func TestAccessUserPath(t *testing.T) {
	clearEnv(t)
	g := startGateway(t, mockBlock(""))
	bound := createKey(t, g, `{"name":"bound","user_path":"team/alpha/"}`)
	if bound.View["user_path"] != "/team/alpha" {
		t.Fatalf("bound path stored as %v", bound.View["user_path"])
	}
	free := createKey(t, g, `{"name":"free"}`)
	const hdr = "X-Modelgate-User-Path"
	cases := []struct {
		name, key, header, want string
	}{
		{"master without header", masterKey, "", "/"},
		{"master picks a path", masterKey, "team/beta/", "/team/beta"},
		{"unbound key uses the header", free.Secret, "/team/gamma", "/team/gamma"},
		{"bound key, no header", bound.Secret, "", "/team/alpha"},
		{"bound key overrides the header", bound.Secret, "/someone/else", "/team/alpha"},
		{"bound key ignores even a bad header", bound.Secret, "/a//b", "/team/alpha"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := bearer(c.key)
			if c.header != "" {
				h = append(h, hdr, c.header)
			}
			res := request(t, "GET", g.URL+"/v1/usage", "", h...)
			if res.Status != 200 {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
			m := res.JSON(t)
			if m["user_path"] != c.want {
				t.Fatalf("user_path %v, want %s", m["user_path"], c.want)
			}
			// Nothing was recorded for the path: its usage is zero.
			u, _ := m["usage"].(map[string]any)
			if u == nil || u["today"].(map[string]any)["requests"] != 0.0 || len(m["budgets"].([]any)) != 0 || len(m["rate_limits"].([]any)) != 0 || m["server_time"] == nil {
				t.Fatalf("body %s", res.Body)
			}
		})
	}
	for _, bad := range []string{"/a//b", "/a/../b", "/a/./b", "/a b", "/" + strings.Repeat("x", 600)} {
		for _, route := range []struct{ method, path, body string }{{"GET", "/v1/usage", ""}, {"POST", "/v1/chat/completions", mockChat}} {
			e := request(t, route.method, g.URL+route.path, route.body, append(bearer(masterKey), hdr, bad)...).
				ExpectErr(t, 400, "invalid_request_error", "invalid_user_path")
			if orNull(e.Param) != hdr {
				t.Errorf("param %v", orNull(e.Param))
			}
		}
	}
	adminCall(t, g, "POST", "/admin/auth-keys", `{"name":"x","user_path":"/a/../b"}`).ExpectErr(t, 400, "invalid_request_error", "invalid_value")
	// /v1/messages callers get the Anthropic envelope.
	res := request(t, "POST", g.URL+"/v1/messages", `{}`, append(bearer(masterKey), hdr, "/a//b")...)
	if res.Status != 400 || !strings.Contains(string(res.Body), `"type":"error"`) {
		t.Fatalf("messages: %d %s", res.Status, res.Body)
	}
}

// TestAccessUserPathHeaderName: the header name is configurable.
func TestAccessUserPathHeaderName(t *testing.T) {
	clearEnv(t)
	t.Setenv("USER_PATH_HEADER", "X-Tenant")
	g := startGateway(t, mockBlock(""))
	res := request(t, "GET", g.URL+"/v1/usage", "", append(bearer(masterKey), "X-Tenant", "acme/prod", "X-Modelgate-User-Path", "/ignored")...)
	if res.JSON(t)["user_path"] != "/acme/prod" {
		t.Fatalf("%s", res.Body)
	}
}
