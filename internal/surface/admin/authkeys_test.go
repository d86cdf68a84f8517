package admin

import (
	"strings"
	"testing"
	"time"
)

func TestAuthKeysLifecycle(t *testing.T) {
	h, clk := newTestHandler(t, nil)
	exp := clk.now.Add(24 * time.Hour).Format(time.RFC3339)
	res := do(h, "POST", "/admin/auth-keys", `{"name":"ci","user_path":"team/alpha/","dashboard_access":true,"description":"CI runner","expires_at":"`+exp+`"}`)
	if res.status != 201 {
		t.Fatalf("create: %d %s", res.status, res.body)
	}
	created := res.json(t)
	secret, _ := created["key"].(string)
	id, _ := created["id"].(string)
	if !strings.HasPrefix(secret, "sk_mg_") || len(secret) != 38 || id == "" {
		t.Fatalf("created %v", created)
	}
	if created["user_path"] != "/team/alpha" || created["dashboard_access"] != true || created["state"] != "active" ||
		created["description"] != "CI runner" || created["expires_at"] != exp || created["prefix"] != secret[:12] {
		t.Fatalf("created %v", created)
	}
	if res.header.Get("Location") != "/admin/auth-keys/"+id || res.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("headers %v", res.header)
	}

	list := do(h, "GET", "/admin/auth-keys", "")
	if list.status != 200 || strings.Contains(string(list.body), secret) || strings.Contains(string(list.body), secret[12:]) ||
		strings.Contains(string(list.body), `"hash"`) || strings.Contains(string(list.body), `"key"`) {
		t.Fatalf("list: %d %s", list.status, list.body)
	}
	keysList := list.json(t)["keys"].([]any)
	if len(keysList) != 1 || keysList[0].(map[string]any)["id"] != id {
		t.Fatalf("list %s", list.body)
	}
	for _, f := range []string{"prefix", "name", "user_path", "dashboard_access", "created_at", "last_used_at", "expires_at", "state"} {
		if _, ok := keysList[0].(map[string]any)[f]; !ok {
			t.Errorf("list entry lacks %s", f)
		}
	}

	// PATCH is partial: only dashboard_access changes.
	res = do(h, "PATCH", "/admin/auth-keys/"+id, `{"dashboard_access":false}`)
	got := res.json(t)
	if res.status != 200 || got["dashboard_access"] != false || got["name"] != "ci" || got["user_path"] != "/team/alpha" || got["enabled"] != true {
		t.Fatalf("patch: %d %s", res.status, res.body)
	}
	res = do(h, "PATCH", "/admin/auth-keys/"+id, `{"name":"ci-2","user_path":"","dashboard_access":null}`)
	got = res.json(t)
	if got["name"] != "ci-2" || got["user_path"] != "" || got["dashboard_access"] != false {
		t.Fatalf("patch 2: %s", res.body)
	}
	if res := do(h, "GET", "/admin/auth-keys/"+id, ""); res.status != 200 || res.json(t)["name"] != "ci-2" {
		t.Fatalf("get: %d %s", res.status, res.body)
	}

	res = do(h, "POST", "/admin/auth-keys/"+id+"/deactivate", "")
	if got = res.json(t); res.status != 200 || got["state"] != "deactivated" || got["enabled"] != false || got["deactivated_at"] == nil {
		t.Fatalf("deactivate: %d %s", res.status, res.body)
	}
	res = do(h, "PATCH", "/admin/auth-keys/"+id, `{"enabled":true}`)
	if got = res.json(t); got["state"] != "active" || got["deactivated_at"] != nil {
		t.Fatalf("re-enable: %s", res.body)
	}

	if res := do(h, "DELETE", "/admin/auth-keys/"+id, ""); res.status != 204 || len(res.body) != 0 {
		t.Fatalf("delete: %d %s", res.status, res.body)
	}
	if res := do(h, "GET", "/admin/auth-keys", ""); len(res.json(t)["keys"].([]any)) != 0 {
		t.Fatalf("after delete: %s", res.body)
	}
}

func TestAuthKeysErrors(t *testing.T) {
	h, _ := newTestHandler(t, nil)
	id := do(h, "POST", "/admin/auth-keys", `{"name":"x"}`).json(t)["id"].(string)
	cases := []struct {
		name, method, path, body string
		status                   int
		typ, code, param         string
	}{
		{"unknown id get", "GET", "/admin/auth-keys/key_nope", "", 404, "not_found_error", "api_key_not_found", "id"},
		{"unknown id patch", "PATCH", "/admin/auth-keys/key_nope", `{"name":"a"}`, 404, "not_found_error", "api_key_not_found", "id"},
		{"unknown id delete", "DELETE", "/admin/auth-keys/key_nope", "", 404, "not_found_error", "api_key_not_found", "id"},
		{"unknown id deactivate", "POST", "/admin/auth-keys/key_nope/deactivate", "", 404, "not_found_error", "api_key_not_found", "id"},
		{"name missing", "POST", "/admin/auth-keys", `{}`, 400, "invalid_request_error", "invalid_value", "name"},
		{"empty body", "POST", "/admin/auth-keys", ``, 400, "invalid_request_error", "invalid_value", "name"},
		{"malformed JSON", "POST", "/admin/auth-keys", `{"name":`, 400, "invalid_request_error", "invalid_json", ""},
		{"not an object", "POST", "/admin/auth-keys", `["x"]`, 400, "invalid_request_error", "invalid_json", ""},
		{"two objects", "POST", "/admin/auth-keys", `{"name":"a"}{"name":"b"}`, 400, "invalid_request_error", "invalid_json", ""},
		{"unknown field", "POST", "/admin/auth-keys", `{"name":"a","admin":true}`, 400, "invalid_request_error", "unknown_field", "admin"},
		{"wrong type", "POST", "/admin/auth-keys", `{"name":"a","dashboard_access":"yes"}`, 400, "invalid_request_error", "invalid_type", "dashboard_access"},
		{"bad user path", "POST", "/admin/auth-keys", `{"name":"a","user_path":"/a/../b"}`, 400, "invalid_request_error", "invalid_value", "user_path"},
		{"bad expiry", "POST", "/admin/auth-keys", `{"name":"a","expires_at":"tomorrow"}`, 400, "invalid_request_error", "invalid_value", "expires_at"},
		{"past expiry", "POST", "/admin/auth-keys", `{"name":"a","expires_at":"2020-01-01T00:00:00Z"}`, 400, "invalid_request_error", "invalid_value", "expires_at"},
		{"patch unknown field", "PATCH", "/admin/auth-keys/" + id, `{"description":"x"}`, 400, "invalid_request_error", "unknown_field", "description"},
		{"patch bad path", "PATCH", "/admin/auth-keys/" + id, `{"user_path":"/a//b"}`, 400, "invalid_request_error", "invalid_value", "user_path"},
		{"patch wrong type", "PATCH", "/admin/auth-keys/" + id, `{"enabled":1}`, 400, "invalid_request_error", "invalid_type", "enabled"},
		{"too big", "POST", "/admin/auth-keys", `{"name":"` + strings.Repeat("a", maxBodyBytes) + `"}`, 413, "invalid_request_error", "request_too_large", ""},
		{"wrong method", "PUT", "/admin/auth-keys", `{}`, 405, "invalid_request_error", "method_not_allowed", ""},
		{"unknown route", "GET", "/admin/nope", "", 404, "invalid_request_error", "unknown_route", ""},
		{"bare /admin", "GET", "/admin", "", 404, "invalid_request_error", "unknown_route", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := do(h, c.method, c.path, c.body).expectErr(t, c.status, c.typ, c.code)
			if c.param != "" && (e.Param == nil || *e.Param != c.param) {
				t.Fatalf("param %v, want %s", e.Param, c.param)
			}
		})
	}
	if res := do(h, "PUT", "/admin/auth-keys", ""); res.header.Get("Allow") != "GET, HEAD, POST" {
		t.Fatalf("Allow %q", res.header.Get("Allow"))
	}
	// A key pasted where the id belongs is not echoed back.
	if res := do(h, "DELETE", "/admin/auth-keys/sk_mg_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345", ""); strings.Contains(string(res.body), "sk_mg_") {
		t.Fatalf("error echoes the path: %s", res.body)
	}
	if res := do(h, "GET", "/admin/sk_mg_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345", ""); strings.Contains(string(res.body), "sk_mg_") {
		t.Fatalf("error echoes the path: %s", res.body)
	}
	if res := do(h, "GET", "/admin/auth-keys/", ""); res.status != 200 {
		t.Fatalf("trailing slash: %d", res.status)
	}
}

// TestAuthKeysExpiredCannotBeEnabled: enabling an expired key is refused
// with 409 api_key_expired and changes nothing, rather than answering 200
// with a key that stays unusable; deactivating it and renaming it work.
func TestAuthKeysExpiredCannotBeEnabled(t *testing.T) {
	h, clk := newTestHandler(t, nil)
	exp := clk.now.Add(time.Hour).Format(time.RFC3339)
	id := do(h, "POST", "/admin/auth-keys", `{"name":"temp","expires_at":"`+exp+`"}`).json(t)["id"].(string)
	clk.now = clk.now.Add(2 * time.Hour)
	before := do(h, "GET", "/admin/auth-keys/"+id, "")
	if before.json(t)["state"] != "expired" {
		t.Fatalf("not expired: %s", before.body)
	}
	for _, body := range []string{`{"enabled":true}`, `{"enabled":true,"name":"renamed"}`} {
		e := do(h, "PATCH", "/admin/auth-keys/"+id, body).expectErr(t, 409, "invalid_request_error", "api_key_expired")
		if e.Param == nil || *e.Param != "enabled" || !strings.Contains(e.Message, "create a new key") {
			t.Fatalf("%s: error %+v", body, e)
		}
	}
	if after := do(h, "GET", "/admin/auth-keys/"+id, ""); string(after.body) != string(before.body) {
		t.Fatalf("a refused PATCH changed the key:\n%s\n%s", before.body, after.body)
	}
	if got := do(h, "PATCH", "/admin/auth-keys/"+id, `{"name":"renamed"}`).json(t); got["name"] != "renamed" || got["state"] != "expired" {
		t.Fatalf("rename: %v", got)
	}
	if got := do(h, "PATCH", "/admin/auth-keys/"+id, `{"enabled":false}`).json(t); got["enabled"] != false || got["state"] != "deactivated" {
		t.Fatalf("disable: %v", got)
	}
	do(h, "PATCH", "/admin/auth-keys/"+id, `{"enabled":true}`).expectErr(t, 409, "invalid_request_error", "api_key_expired")
}
