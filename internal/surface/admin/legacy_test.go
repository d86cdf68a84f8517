package admin

import (
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/platform/config"
	"github.com/modelgate/modelgate/internal/request/routes"
)

func TestLegacyAlias(t *testing.T) {
	before := LegacySunset.Add(-time.Second)
	cases := []struct {
		mode   string
		now    time.Time
		status int
	}{
		{config.LegacyAliasAuto, before, 200},
		{config.LegacyAliasAuto, LegacySunset, 410},
		{config.LegacyAliasAuto, LegacySunset.Add(365 * 24 * time.Hour), 410},
		{config.LegacyAliasOn, before, 200},
		{config.LegacyAliasOn, LegacySunset.Add(time.Hour), 200},
		{config.LegacyAliasOff, before, 404},
		{config.LegacyAliasOff, LegacySunset.Add(time.Hour), 404},
	}
	for _, c := range cases {
		t.Run(c.mode+" "+c.now.Format(time.RFC3339), func(t *testing.T) {
			h, clk := newTestHandler(t, func(cfg *config.Config, _ *Options) { cfg.Admin.LegacyAlias = c.mode })
			clk.now = c.now
			res := do(h, "GET", "/admin/api/v1/auth-keys", "")
			switch c.status {
			case 200:
				if res.status != 200 || res.json(t)["keys"] == nil {
					t.Fatalf("%d %s", res.status, res.body)
				}
			case 410:
				res.expectErr(t, 410, "invalid_request_error", "endpoint_sunset")
			case 404:
				res.expectErr(t, 404, "invalid_request_error", "unknown_route")
				if res.header.Get("Deprecation") != "" {
					t.Fatal("off mode sends deprecation headers")
				}
				return
			}
			if res.header.Get("Deprecation") != "true" ||
				res.header.Get("Sunset") != "Sun, 09 Aug 2026 00:00:00 GMT" ||
				res.header.Get("Link") != `</admin/auth-keys>; rel="successor-version"` {
				t.Fatalf("headers %v", res.header)
			}
			if served := h.Runtime(c.now).Settings.LegacyAliasServed; served != (c.status == 200) {
				t.Fatalf("runtime config says served=%v", served)
			}
		})
	}
}

func TestLegacyRoutes(t *testing.T) {
	h, _ := newTestHandler(t, func(cfg *config.Config, _ *Options) { cfg.Admin.LegacyAlias = config.LegacyAliasOn })
	res := do(h, "GET", "/admin/api/v1/dashboard/config", "")
	if res.status != 200 || res.json(t)["version"] != "9.9.9-test" {
		t.Fatalf("dashboard/config: %d %s", res.status, res.body)
	}
	if res.header.Get("Link") != `</admin/runtime/config>; rel="successor-version"` {
		t.Fatalf("Link %q", res.header.Get("Link"))
	}
	// Every admin route answers under the alias, writes included.
	res = do(h, "POST", "/admin/api/v1/auth-keys", `{"name":"legacy"}`)
	if res.status != 201 {
		t.Fatalf("create through the alias: %d %s", res.status, res.body)
	}
	id := res.json(t)["id"].(string)
	if res := do(h, "POST", "/admin/api/v1/auth-keys/"+id+"/deactivate", ""); res.status != 200 ||
		res.header.Get("Link") != "</admin/auth-keys/"+id+`/deactivate>; rel="successor-version"` {
		t.Fatalf("deactivate through the alias: %d %v", res.status, res.header)
	}
	for _, r := range adminRoutes() {
		legacy := LegacyPrefix + r.Path[len(Prefix):]
		if rt, ok := routes.Lookup(r.Method, successor(legacy)); !ok || apiHandler(rt) == nil {
			t.Errorf("%s %s has no successor route", r.Method, legacy)
		}
	}
	do(h, "GET", "/admin/api/v1/nope", "").expectErr(t, 404, "invalid_request_error", "unknown_route")
	do(h, "PUT", "/admin/api/v1/auth-keys", "").expectErr(t, 405, "invalid_request_error", "method_not_allowed")
	// The dashboard is not aliased.
	do(h, "GET", "/admin/api/v1/dashboard", "").expectErr(t, 404, "invalid_request_error", "unknown_route")
}

// TestLegacyGoneNamesMovedPath: after the sunset, the 410 of a legacy
// path that moved elsewhere than /admin/ + the same rest names where it
// went, since following the prefix rule would lead to a 404; other paths
// keep the prefix rule.
func TestLegacyGoneNamesMovedPath(t *testing.T) {
	h, clk := newTestHandler(t, nil)
	clk.now = LegacySunset.Add(time.Hour)
	e := do(h, "GET", "/admin/api/v1/dashboard/config", "").expectErr(t, 410, "invalid_request_error", "endpoint_sunset")
	if !strings.Contains(e.Message, "/admin/runtime/config") {
		t.Errorf("moved path: %q", e.Message)
	}
	e = do(h, "GET", "/admin/api/v1/auth-keys", "").expectErr(t, 410, "invalid_request_error", "endpoint_sunset")
	if !strings.Contains(e.Message, "replace /admin/api/v1/ with /admin/") {
		t.Errorf("other path: %q", e.Message)
	}
}
