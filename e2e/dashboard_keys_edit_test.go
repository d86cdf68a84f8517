package e2e

// The API keys page shows each key's id and edits its name, user path,
// expiry and dashboard access; the admin API then shows the new values.

import (
	"strings"
	"testing"
	"time"
)

func TestDashboardKeyEdit(t *testing.T) {
	skipWithoutChromium(t)
	clearEnv(t)
	g := startGateway(t, mockBlock(""))
	k := createKey(t, g, `{"name":"before-edit","user_path":"/old","expires_at":"2098-05-01T00:00:00Z"}`)
	b := newBrowser(t, g.URL)
	b.viewport(t, 1280, 800, false)
	signIn(t, b, g)
	b.open(t, "/admin/dashboard/keys", "keys")
	row := `#keys-list tr[data-id="` + k.ID + `"]`
	if got := eval[string](t, b, `document.querySelector('`+row+` [data-key-id]').textContent`); got != k.ID {
		t.Fatalf("id shown %q, want %q", got, k.ID)
	}
	clickJS(t, b, row+` button[data-action="edit"]`)
	b.waitFor(t, "dialog", `document.querySelector("dialog[open]")`, 5*time.Second)
	if got := eval[string](t, b, `document.querySelector('dialog[open] [name="expires_at"]').value`); got != "2098-05-01" {
		t.Errorf("expiry in the form %q", got)
	}
	dialogInput(t, b, "name", "after-edit")
	dialogInput(t, b, "user_path", "/new/path")
	dialogInput(t, b, "expires_at", "2099-02-03")
	eval[bool](t, b, `(document.querySelector('dialog[open] [name="dashboard_access"]').click(), true)`)
	clickJS(t, b, `dialog[open] button[data-action="save"]`)
	b.waitFor(t, "the edited key listed", `document.querySelector('[data-key-name="after-edit"]')`, 10*time.Second)
	var key struct {
		Name            string `json:"name"`
		UserPath        string `json:"user_path"`
		ExpiresAt       string `json:"expires_at"`
		DashboardAccess bool   `json:"dashboard_access"`
	}
	adminJSON(t, g, "/admin/auth-keys/"+k.ID, &key)
	if key.Name != "after-edit" || key.UserPath != "/new/path" || !strings.HasPrefix(key.ExpiresAt, "2099-02-03T00:00:00") || !key.DashboardAccess {
		t.Fatalf("the API shows %+v", key)
	}
	if res := request(t, "GET", g.URL+"/admin/runtime/config", "", bearer(k.Secret)...); res.Status != 200 {
		t.Errorf("the key granted dashboard access from the form: %d", res.Status)
	}
	// An empty expiry removes it; a malformed one is refused in the form.
	clickJS(t, b, row+` button[data-action="edit"]`)
	b.waitFor(t, "dialog", `document.querySelector("dialog[open]")`, 5*time.Second)
	dialogInput(t, b, "expires_at", "03/02/2099")
	clickJS(t, b, `dialog[open] button[data-action="save"]`)
	b.waitFor(t, "bad date refused", `document.querySelector("dialog[open] .error:not([hidden])")?.textContent.includes("yyyy-mm-dd")`, 5*time.Second)
	eval[bool](t, b, `(document.querySelector('dialog[open] [name="expires_at"]').value = "", true)`)
	clickJS(t, b, `dialog[open] button[data-action="save"]`)
	b.waitFor(t, "dialog closed", `!document.querySelector("dialog[open]")`, 5*time.Second)
	poll(t, 5*time.Second, "the expiry removed", func() bool {
		var v map[string]any
		adminJSON(t, g, "/admin/auth-keys/"+k.ID, &v)
		return v["expires_at"] == nil && v["name"] == "after-edit"
	})
	b.checkClean(t)
}
