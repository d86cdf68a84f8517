package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// matrixCell is the expected answer of one matrix cell: a status and, for
// errors, the error type and code.
type matrixCell struct {
	status int
	typ    string
	code   string
}

var (
	ok200        = matrixCell{status: 200}
	missing401   = matrixCell{401, "authentication_error", "missing_api_key"}
	invalid401   = matrixCell{401, "authentication_error", "invalid_api_key"}
	expired401   = matrixCell{401, "authentication_error", "api_key_expired"}
	deactive401  = matrixCell{401, "authentication_error", "api_key_deactivated"}
	dashboard403 = matrixCell{403, "authentication_error", "dashboard_access_denied"}
)

// TestAccessMatrix checks on the running server who may call what: every
// kind of caller against every kind of route.
func TestAccessMatrix(t *testing.T) {
	clearEnv(t)
	g := startGateway(t, mockBlock(""))

	plain := createKey(t, g, `{"name":"plain","user_path":"/team/plain"}`)
	dash := createKey(t, g, `{"name":"dash","dashboard_access":true}`)
	off := createKey(t, g, `{"name":"off","dashboard_access":true}`)
	if res := adminCall(t, g, "POST", "/admin/auth-keys/"+off.ID+"/deactivate", ""); res.Status != 200 {
		t.Fatalf("deactivate: %d %s", res.Status, res.Body)
	}
	expiry := time.Now().Add(1500 * time.Millisecond)
	expired := createKey(t, g, `{"name":"soon","dashboard_access":true,"expires_at":"`+expiry.UTC().Format(time.RFC3339Nano)+`"}`)
	if res := request(t, "GET", g.URL+"/v1/usage", "", bearer(expired.Secret)...); res.Status != 200 {
		t.Fatalf("key before its expiry: %d %s", res.Status, res.Body)
	}
	time.Sleep(time.Until(expiry) + 50*time.Millisecond)

	routes := []struct{ name, method, path, body string }{
		{"model endpoint", "POST", "/v1/chat/completions", mockChat},
		{"self usage", "GET", "/v1/usage", ""},
		{"admin endpoint", "GET", "/admin/auth-keys", ""},
		{"dashboard page", "GET", "/admin/dashboard", ""},
		{"static asset", "GET", "/admin/static/modelgate.css", ""},
	}
	rows := []struct {
		caller  string
		headers []string
		want    [5]matrixCell
	}{
		{"no key", nil, [5]matrixCell{missing401, missing401, missing401, ok200, ok200}},
		{"bad key", bearer("sk_mg_" + strings.Repeat("x", 32)), [5]matrixCell{invalid401, invalid401, invalid401, ok200, ok200}},
		{"non-bearer scheme", []string{"Authorization", "Basic " + masterKey}, [5]matrixCell{invalid401, invalid401, invalid401, ok200, ok200}},
		{"expired key", bearer(expired.Secret), [5]matrixCell{expired401, expired401, expired401, ok200, ok200}},
		{"deactivated key", bearer(off.Secret), [5]matrixCell{deactive401, deactive401, deactive401, ok200, ok200}},
		{"managed key without dashboard access", bearer(plain.Secret), [5]matrixCell{ok200, ok200, dashboard403, ok200, ok200}},
		{"managed key with dashboard access", bearer(dash.Secret), [5]matrixCell{ok200, ok200, ok200, ok200, ok200}},
		{"master key", bearer(masterKey), [5]matrixCell{ok200, ok200, ok200, ok200, ok200}},
		{"x-api-key master key", []string{"X-Api-Key", masterKey}, [5]matrixCell{ok200, ok200, ok200, ok200, ok200}},
		{"x-api-key managed key with dashboard access", []string{"X-Api-Key", dash.Secret}, [5]matrixCell{ok200, ok200, ok200, ok200, ok200}},
		{"x-api-key managed key without dashboard access", []string{"X-Api-Key", plain.Secret}, [5]matrixCell{ok200, ok200, dashboard403, ok200, ok200}},
		{"x-api-key bad key", []string{"X-Api-Key", "nope"}, [5]matrixCell{invalid401, invalid401, invalid401, ok200, ok200}},
	}
	secrets := []string{masterKey, plain.Secret, dash.Secret, off.Secret, expired.Secret}
	for _, row := range rows {
		for i, rt := range routes {
			want := row.want[i]
			t.Run(row.caller+"/"+rt.name, func(t *testing.T) {
				res := request(t, rt.method, g.URL+rt.path, rt.body, row.headers...)
				if want.status == 200 {
					if res.Status != http.StatusOK {
						t.Fatalf("status %d, want 200: %s", res.Status, res.Body)
					}
				} else {
					res.ExpectErr(t, want.status, want.typ, want.code)
				}
				for _, s := range secrets {
					if strings.Contains(string(res.Body), s) || strings.Contains(strings.Join(flatten(res.Header), " "), s) {
						t.Fatalf("answer carries a key: %s", res.Body)
					}
				}
			})
		}
	}
	if t.Failed() {
		return
	}

	// Dashboard access granted and revoked later takes effect at once.
	if res := adminCall(t, g, "PATCH", "/admin/auth-keys/"+plain.ID, `{"dashboard_access":true}`); res.Status != 200 {
		t.Fatalf("grant: %d %s", res.Status, res.Body)
	}
	if res := request(t, "GET", g.URL+"/admin/auth-keys", "", bearer(plain.Secret)...); res.Status != 200 {
		t.Fatalf("after grant: %d %s", res.Status, res.Body)
	}
	if res := request(t, "PATCH", g.URL+"/admin/auth-keys/"+dash.ID, `{"dashboard_access":false}`, bearer(plain.Secret)...); res.Status != 200 {
		t.Fatalf("a dashboard key revokes another: %d %s", res.Status, res.Body)
	}
	request(t, "GET", g.URL+"/admin/runtime/config", "", bearer(dash.Secret)...).ExpectErr(t, 403, "authentication_error", "dashboard_access_denied")
	if res := request(t, "POST", g.URL+"/v1/chat/completions", mockChat, bearer(dash.Secret)...); res.Status != 200 {
		t.Fatalf("revoked key on a model endpoint: %d %s", res.Status, res.Body)
	}
	// A deleted key is gone.
	if res := adminCall(t, g, "DELETE", "/admin/auth-keys/"+dash.ID, ""); res.Status != 204 {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	request(t, "POST", g.URL+"/v1/chat/completions", mockChat, bearer(dash.Secret)...).ExpectErr(t, 401, "authentication_error", "invalid_api_key")
	// Re-enabled keys work again.
	if res := adminCall(t, g, "PATCH", "/admin/auth-keys/"+off.ID, `{"enabled":true}`); res.Status != 200 {
		t.Fatalf("enable: %d %s", res.Status, res.Body)
	}
	if res := request(t, "GET", g.URL+"/admin/auth-keys", "", bearer(off.Secret)...); res.Status != 200 {
		t.Fatalf("re-enabled key: %d %s", res.Status, res.Body)
	}
}

func flatten(h http.Header) []string {
	var out []string
	for k, vs := range h {
		out = append(out, k)
		out = append(out, vs...)
	}
	return out
}

// TestAccessWithoutAnyCredential: with no master key and no managed key,
// model endpoints are open and /admin/* is 401 unless
// admin.allow_unauthenticated; the first managed key closes both.
func TestAccessWithoutAnyCredential(t *testing.T) {
	clearEnv(t)
	g := startGateway(t, "provider demo {\n type mock\n}")
	if res := request(t, "POST", g.URL+"/v1/chat/completions", mockChat); res.Status != 200 {
		t.Fatalf("open model endpoint: %d %s", res.Status, res.Body)
	}
	if res := request(t, "GET", g.URL+"/v1/usage", ""); res.Status != 200 {
		t.Fatalf("open usage: %d %s", res.Status, res.Body)
	}
	request(t, "GET", g.URL+"/admin/auth-keys", "").ExpectErr(t, 401, "authentication_error", "admin_auth_unconfigured")
	request(t, "GET", g.URL+"/admin/auth-keys", "", bearer("anything")...).ExpectErr(t, 401, "authentication_error", "admin_auth_unconfigured")
	if res := request(t, "GET", g.URL+"/admin/dashboard", ""); res.Status != 200 {
		t.Fatalf("dashboard page: %d", res.Status)
	}

	if err := g.reload(t, "provider demo {\n type mock\n}\nadmin {\n allow_unauthenticated true\n}"); err != nil {
		t.Fatal(err)
	}
	// The old config's server closed its idle connections.
	http.DefaultClient.CloseIdleConnections()
	res := request(t, "POST", g.URL+"/admin/auth-keys", `{"name":"first","dashboard_access":true}`)
	if res.Status != 201 {
		t.Fatalf("open admin API: %d %s", res.Status, res.Body)
	}
	secret := res.JSON(t)["key"].(string)
	// The first managed key makes credentials required everywhere.
	request(t, "POST", g.URL+"/v1/chat/completions", mockChat).ExpectErr(t, 401, "authentication_error", "missing_api_key")
	request(t, "GET", g.URL+"/admin/auth-keys", "").ExpectErr(t, 401, "authentication_error", "missing_api_key")
	if res := request(t, "GET", g.URL+"/admin/auth-keys", "", bearer(secret)...); res.Status != 200 {
		t.Fatalf("with the key: %d %s", res.Status, res.Body)
	}
	if res := request(t, "POST", g.URL+"/v1/chat/completions", mockChat, bearer(secret)...); res.Status != 200 {
		t.Fatalf("model endpoint with the key: %d %s", res.Status, res.Body)
	}
}
