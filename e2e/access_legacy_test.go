package e2e

import (
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/surface/admin"
)

// TestAccessLegacyAlias checks /admin/api/v1/ in each mode on the running
// server. Auto mode depends on the real clock; the admin package's unit
// tests inject a clock to cover both sides of the sunset.
func TestAccessLegacyAlias(t *testing.T) {
	clearEnv(t)
	checkHeaders := func(t *testing.T, res response, successor string) {
		t.Helper()
		if res.Header.Get("Deprecation") != "true" || res.Header.Get("Sunset") != "Sun, 09 Aug 2026 00:00:00 GMT" ||
			res.Header.Get("Link") != "<"+successor+`>; rel="successor-version"` {
			t.Fatalf("legacy headers %v", res.Header)
		}
	}

	t.Run("on", func(t *testing.T) {
		g := startGateway(t, mockBlock("admin {\n legacy_alias on\n}"))
		res := adminCall(t, g, "GET", "/admin/api/v1/auth-keys", "")
		if res.Status != 200 || res.JSON(t)["keys"] == nil {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
		checkHeaders(t, res, "/admin/auth-keys")
		res = adminCall(t, g, "GET", "/admin/api/v1/dashboard/config", "")
		if res.Status != 200 || res.JSON(t)["features"] == nil {
			t.Fatalf("dashboard/config: %d %s", res.Status, res.Body)
		}
		checkHeaders(t, res, "/admin/runtime/config")
		// The alias needs the same credentials as the admin API; its
		// refusals carry its headers too.
		res = request(t, "GET", g.URL+"/admin/api/v1/auth-keys", "")
		res.ExpectErr(t, 401, "authentication_error", "missing_api_key")
		checkHeaders(t, res, "/admin/auth-keys")
		plain := createKey(t, g, `{"name":"plain"}`)
		request(t, "GET", g.URL+"/admin/api/v1/auth-keys", "", bearer(plain.Secret)...).
			ExpectErr(t, 403, "authentication_error", "dashboard_access_denied")
		// An unknown legacy path has no successor to link to.
		res = adminCall(t, g, "GET", "/admin/api/v1/nonexistent", "")
		if res.Status != 404 || res.Header.Get("Link") != "" || res.Header.Get("Deprecation") != "true" {
			t.Fatalf("unknown legacy path: %d %v", res.Status, res.Header)
		}
	})

	t.Run("auto", func(t *testing.T) {
		g := startGateway(t, mockBlock(""))
		res := adminCall(t, g, "GET", "/admin/api/v1/runtime/config", "")
		if time.Now().Before(admin.LegacySunset) {
			if res.Status != 200 {
				t.Fatalf("before the sunset: %d %s", res.Status, res.Body)
			}
		} else {
			res.ExpectErr(t, 410, "invalid_request_error", "endpoint_sunset")
			// Retired is retired, whoever asks.
			anon := request(t, "GET", g.URL+"/admin/api/v1/runtime/config", "")
			anon.ExpectErr(t, 410, "invalid_request_error", "endpoint_sunset")
			checkHeaders(t, anon, "/admin/runtime/config")
		}
		checkHeaders(t, res, "/admin/runtime/config")
	})

	t.Run("off from the environment", func(t *testing.T) {
		t.Setenv("ADMIN_LEGACY_ALIAS", "off")
		g := startGateway(t, mockBlock("admin {\n legacy_alias on\n}"))
		res := adminCall(t, g, "GET", "/admin/api/v1/auth-keys", "")
		res.ExpectErr(t, 404, "invalid_request_error", "unknown_route")
		if res.Header.Get("Deprecation") != "" {
			t.Fatal("off mode sends Deprecation")
		}
	})
}
