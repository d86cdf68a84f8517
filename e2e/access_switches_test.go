package e2e

import (
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/surface/ui"
)

// TestAccessAdminSwitches: ADMIN_ENDPOINTS_ENABLED and ADMIN_UI_ENABLED,
// from the environment, the Caddyfile and the YAML admin: block.
func TestAccessAdminSwitches(t *testing.T) {
	admin404 := func(t *testing.T, g *gateway, paths ...string) {
		t.Helper()
		for _, p := range paths {
			adminCall(t, g, "GET", p, "").ExpectErr(t, 404, "invalid_request_error", "unknown_route")
		}
	}
	apiPaths := []string{"/admin/auth-keys", "/admin/runtime/config", "/admin/openapi.json", "/admin/usage/summary"}
	uiPaths := append([]string(nil), ui.Pages...)
	for _, a := range ui.Assets {
		uiPaths = append(uiPaths, "/admin/static/"+a)
	}

	t.Run("endpoints off in the environment", func(t *testing.T) {
		clearEnv(t)
		t.Setenv("ADMIN_ENDPOINTS_ENABLED", "false")
		g := startGateway(t, mockBlock(""))
		admin404(t, g, append(apiPaths, uiPaths...)...)
		// Without a credential too: the API is absent, not protected.
		request(t, "GET", g.URL+"/admin/auth-keys", "").ExpectErr(t, 404, "invalid_request_error", "unknown_route")
		if res := request(t, "POST", g.URL+"/v1/chat/completions", mockChat, bearer(masterKey)...); res.Status != 200 {
			t.Fatalf("model endpoint: %d", res.Status)
		}
	})

	t.Run("endpoints off in the Caddyfile", func(t *testing.T) {
		clearEnv(t)
		g := startGateway(t, mockBlock("admin {\n endpoints_enabled false\n ui_enabled true\n}"))
		admin404(t, g, append(apiPaths, uiPaths...)...)
	})

	t.Run("endpoints off in the YAML admin block", func(t *testing.T) {
		clearEnv(t)
		cfg := writeFile(t, "config.yaml", "admin:\n  endpoints_enabled: false\n")
		g := startGateway(t, mockBlock("config_file "+cfg))
		admin404(t, g, append(apiPaths, uiPaths...)...)
	})

	t.Run("UI off", func(t *testing.T) {
		clearEnv(t)
		t.Setenv("ADMIN_UI_ENABLED", "false")
		g := startGateway(t, mockBlock(""))
		for _, p := range uiPaths {
			request(t, "GET", g.URL+p, "").ExpectErr(t, 404, "invalid_request_error", "unknown_route")
		}
		for _, p := range apiPaths {
			if res := adminCall(t, g, "GET", p, ""); res.Status != 200 {
				t.Fatalf("%s with the UI off: %d %s", p, res.Status, res.Body)
			}
		}
		f := adminCall(t, g, "GET", "/admin/runtime/config", "").JSON(t)["features"].(map[string]any)
		if f["admin_ui_enabled"] != false || f["admin_endpoints_enabled"] != true {
			t.Fatalf("features %v", f)
		}
	})

	t.Run("UI off in the YAML admin block", func(t *testing.T) {
		clearEnv(t)
		cfg := writeFile(t, "config.yaml", "admin:\n  ui_enabled: false\n")
		g := startGateway(t, mockBlock("config_file "+cfg))
		request(t, "GET", g.URL+"/admin/dashboard", "").ExpectErr(t, 404, "invalid_request_error", "unknown_route")
		if res := adminCall(t, g, "GET", "/admin/auth-keys", ""); res.Status != 200 {
			t.Fatalf("API: %d", res.Status)
		}
	})
}

// TestAccessUsageTrackingOff: the usage routes answer zeroed or empty
// results, never errors.
func TestAccessUsageTrackingOff(t *testing.T) {
	clearEnv(t)
	t.Setenv("USAGE_ENABLED", "false")
	g := startGateway(t, mockBlock(""))
	sum := adminCall(t, g, "GET", "/admin/usage/summary?days=7", "")
	if sum.Status != 200 {
		t.Fatalf("summary: %d %s", sum.Status, sum.Body)
	}
	for _, f := range []string{"total_requests", "total_input_tokens", "total_output_tokens", "total_tokens", "cached_input_tokens", "cache_write_input_tokens", "total_cost"} {
		if v, ok := sum.JSON(t)[f]; !ok || v != 0.0 {
			t.Errorf("%s = %v", f, v)
		}
	}
	if res := adminCall(t, g, "GET", "/admin/usage/daily?interval=monthly", ""); res.Status != 200 || strings.TrimSpace(string(res.Body)) != "[]" {
		t.Fatalf("daily: %d %s", res.Status, res.Body)
	}
	if res := adminCall(t, g, "GET", "/admin/usage/sessions", ""); res.Status != 200 || len(res.JSON(t)["sessions"].([]any)) != 0 {
		t.Fatalf("sessions: %d %s", res.Status, res.Body)
	}
	if res := adminCall(t, g, "GET", "/v1/usage", ""); res.Status != 200 ||
		res.JSON(t)["usage"].(map[string]any)["last_30_days"].(map[string]any)["requests"] != 0.0 {
		t.Fatalf("self usage, zeroed: %d %s", res.Status, res.Body)
	}
	// Budgets are not enforced without usage records, and the runtime
	// config says so.
	if f := adminCall(t, g, "GET", "/admin/runtime/config", "").JSON(t)["features"].(map[string]any); f["usage_enabled"] != false ||
		f["budgets_enabled"] != false {
		t.Fatalf("features %v", f)
	}
}

// TestAccessRuntimeConfig: switches, version and providers, never a secret.
func TestAccessRuntimeConfig(t *testing.T) {
	clearEnv(t)
	t.Setenv("LOGGING_ENABLED", "false")
	up := "sk-upstream-secret-42"
	g := startGateway(t, mockBlock("provider openai {\n api_key "+up+"\n base_url http://127.0.0.1:9/v1\n models gpt-x\n models_mode allowlist\n}"))
	res := adminCall(t, g, "GET", "/admin/runtime/config", "")
	if res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	for _, s := range []string{masterKey, up} {
		if strings.Contains(string(res.Body), s) {
			t.Fatalf("runtime config leaks a secret: %s", res.Body)
		}
	}
	m := res.JSON(t)
	if m["version"] == "" || m["api_version"] != "1.0" {
		t.Fatalf("versions: %v", m)
	}
	f := m["features"].(map[string]any)
	if f["logging_enabled"] != false || f["admin_endpoints_enabled"] != true || f["master_key_configured"] != true {
		t.Fatalf("features %v", f)
	}
	ps := m["providers"].([]any)
	got := map[string]any{}
	for _, p := range ps {
		got[p.(map[string]any)["name"].(string)] = p.(map[string]any)["type"]
	}
	if got["demo"] != "mock" || got["openai"] != "openai" || len(got) != 2 {
		t.Fatalf("providers %v", ps)
	}
}
