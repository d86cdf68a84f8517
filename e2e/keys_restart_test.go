package e2e

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
)

// TestKeysSurviveRestart creates keys, stops the server completely (the
// store is closed), starts it again on the same file and uses them.
func TestKeysSurviveRestart(t *testing.T) {
	clearEnv(t)
	block := mockBlock("storage " + filepath.Join(t.TempDir(), "restart.db"))
	g := startGateway(t, block)
	k := createKey(t, g, `{"name":"survivor","user_path":"/team/restart","dashboard_access":true}`)
	gone := createKey(t, g, `{"name":"gone"}`)
	if res := adminCall(t, g, "POST", "/admin/auth-keys/"+gone.ID+"/deactivate", ""); res.Status != 200 {
		t.Fatalf("deactivate: %d", res.Status)
	}
	if res := request(t, "POST", g.URL+"/v1/chat/completions", mockChat, bearer(k.Secret)...); res.Status != 200 {
		t.Fatalf("before restart: %d %s", res.Status, res.Body)
	}
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	http.DefaultClient.CloseIdleConnections()

	g = startGateway(t, block)
	if res := request(t, "POST", g.URL+"/v1/chat/completions", mockChat, bearer(k.Secret)...); res.Status != 200 {
		t.Fatalf("after restart: %d %s", res.Status, res.Body)
	}
	if res := request(t, "GET", g.URL+"/admin/auth-keys", "", bearer(k.Secret)...); res.Status != 200 {
		t.Fatalf("dashboard access after restart: %d %s", res.Status, res.Body)
	}
	if u := request(t, "GET", g.URL+"/v1/usage", "", bearer(k.Secret)...).JSON(t); u["user_path"] != "/team/restart" {
		t.Fatalf("bound user path after restart: %v", u)
	}
	request(t, "GET", g.URL+"/v1/usage", "", bearer(gone.Secret)...).ExpectErr(t, 401, "authentication_error", "api_key_deactivated")

	var found bool
	for _, v := range adminCall(t, g, "GET", "/admin/auth-keys", "").JSON(t)["keys"].([]any) {
		m := v.(map[string]any)
		if m["id"] == k.ID {
			found = true
			if m["last_used_at"] == nil || m["name"] != "survivor" || m["state"] != "active" {
				t.Fatalf("after restart: %v", m)
			}
		}
	}
	if !found {
		t.Fatal("key missing from the list after restart")
	}
}

// TestKeysSurviveReload: a config reload keeps the managed keys, and a key
// created just before it works right after.
func TestKeysSurviveReload(t *testing.T) {
	clearEnv(t)
	g := startGateway(t, mockBlock(""))
	k := createKey(t, g, `{"name":"reload"}`)
	if err := g.reload(t, mockBlock("user_path_header X-Team")); err != nil {
		t.Fatal(err)
	}
	http.DefaultClient.CloseIdleConnections()
	// A connection the old server accepted while the reload ran may still
	// be answered with the old configuration; the key must work with the
	// new one as soon as that takes over.
	poll(t, 5*time.Second, "the key works under the reloaded configuration", func() bool {
		res := request(t, "GET", g.URL+"/v1/usage", "", append(bearer(k.Secret), "X-Team", "/after/reload")...)
		return res.Status == 200 && res.JSON(t)["user_path"] == "/after/reload"
	})
}
