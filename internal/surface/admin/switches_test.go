package admin

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/platform/config"
)

func TestEndpointsOff(t *testing.T) {
	h, _ := newTestHandler(t, func(c *config.Config, _ *Options) { c.Admin.EndpointsEnabled = config.Ptr(false) })
	for _, p := range []string{"/admin/auth-keys", "/admin/runtime/config", "/admin/openapi.json", "/admin/dashboard", "/admin/static/modelgate.css", "/admin/api/v1/auth-keys"} {
		do(h, "GET", p, "").expectErr(t, 404, "invalid_request_error", "unknown_route")
	}
}

func TestUIOff(t *testing.T) {
	h, _ := newTestHandler(t, func(c *config.Config, _ *Options) { c.Admin.UIEnabled = config.Ptr(false) })
	for _, p := range []string{"/admin/dashboard", "/admin/dashboard/audit", "/admin/static/modelgate.css"} {
		do(h, "GET", p, "").expectErr(t, 404, "invalid_request_error", "unknown_route")
	}
	if res := do(h, "GET", "/admin/auth-keys", ""); res.status != 200 {
		t.Fatalf("API with the UI off: %d", res.status)
	}
	if res := do(h, "GET", "/admin/runtime/config", ""); res.json(t)["features"].(map[string]any)["admin_ui_enabled"] != false {
		t.Fatalf("runtime config: %s", res.body)
	}
}

func TestUIOn(t *testing.T) {
	h, _ := newTestHandler(t, nil)
	for _, p := range []string{"/admin/dashboard", "/admin/dashboard/audit", "/admin/static/modelgate.css"} {
		if res := do(h, "GET", p, ""); res.status != 200 {
			t.Fatalf("%s: %d", p, res.status)
		}
	}
}

func TestRuntimeConfig(t *testing.T) {
	h, _ := newTestHandler(t, func(c *config.Config, _ *Options) {
		c.Logging.Enabled = config.Ptr(false)
		c.Passthrough.EnabledProviders = []string{"openai"}
	})
	res := do(h, "GET", "/admin/runtime/config", "")
	if res.status != 200 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	for _, secret := range []string{testMaster, "sk-provider-secret"} {
		if strings.Contains(string(res.body), secret) {
			t.Fatalf("runtime config leaks %q: %s", secret, res.body)
		}
	}
	m := res.json(t)
	f := m["features"].(map[string]any)
	if f["logging_enabled"] != false || f["admin_endpoints_enabled"] != true || f["usage_enabled"] != true ||
		f["master_key_configured"] != true || f["rate_limits_enabled"] != true {
		t.Fatalf("features %v", f)
	}
	s := m["settings"].(map[string]any)
	if s["user_path_header"] != "X-Modelgate-User-Path" || s["legacy_alias"] != "auto" || s["rate_limits_flush_interval"] != 1.0 ||
		s["passthrough_providers"].([]any)[0] != "openai" || s["legacy_alias_sunset"] != "2026-08-09T00:00:00Z" {
		t.Fatalf("settings %v", s)
	}
	ps := m["providers"].([]any)
	if len(ps) != 2 || ps[1].(map[string]any)["name"] != "demo" || ps[1].(map[string]any)["type"] != "mock" {
		t.Fatalf("providers %v", ps)
	}
	if m["version"] != "9.9.9-test" || m["api_version"] != "1.0" {
		t.Fatalf("versions %v", m)
	}
}

// TestRuntimeConfigNamesTheStorage: the runtime config says whether the
// gateway keeps its state in its own file or in PostgreSQL, and whether it
// shares counters through Redis, without quoting either connection string.
func TestRuntimeConfigNamesTheStorage(t *testing.T) {
	h, _ := newTestHandler(t, nil)
	s := do(h, "GET", "/admin/runtime/config", "").json(t)["settings"].(map[string]any)
	if s["storage"] != "bbolt" || s["redis"] != false {
		t.Fatalf("embedded: settings %v", s)
	}
	h, _ = newTestHandler(t, func(c *config.Config, _ *Options) {
		c.Postgres = "postgres://gw:pg-secret-pw@db.internal/modelgate"
		c.Redis = "redis://:redis-secret-pw@cache.internal:6379/0"
	})
	res := do(h, "GET", "/admin/runtime/config", "")
	s = res.json(t)["settings"].(map[string]any)
	if s["storage"] != "postgres" || s["redis"] != true {
		t.Fatalf("shared: settings %v", s)
	}
	for _, secret := range []string{"pg-secret-pw", "redis-secret-pw", "db.internal", "cache.internal"} {
		if strings.Contains(string(res.body), secret) {
			t.Fatalf("runtime config quotes %q: %s", secret, res.body)
		}
	}
}

func TestUsageOff(t *testing.T) {
	h, _, _ := seeded(t, func(c *config.Config, _ *Options) { c.Usage.Enabled = config.Ptr(false) })
	m := do(h, "GET", "/admin/usage/summary", "").json(t)
	for _, f := range []string{"total_requests", "total_input_tokens", "total_output_tokens", "total_tokens", "cached_input_tokens", "cache_write_input_tokens", "total_cost"} {
		if m[f] != 0.0 {
			t.Errorf("%s = %v, want 0", f, m[f])
		}
	}
	if m["start_date"] != "2026-04-05" || m["end_date"] != "2026-05-04" {
		t.Errorf("default window %v..%v", m["start_date"], m["end_date"])
	}
	if res := do(h, "GET", "/admin/usage/daily?interval=weekly", ""); res.status != 200 || strings.TrimSpace(string(res.body)) != "[]" {
		t.Fatalf("daily: %d %s", res.status, res.body)
	}
	if res := do(h, "GET", "/admin/usage/sessions", ""); res.status != 200 || string(res.body) != `{"sessions":[],"next_cursor":null}` {
		t.Fatalf("sessions: %d %s", res.status, res.body)
	}
}

func TestUsageOnWithoutTracker(t *testing.T) {
	h, _ := newTestHandler(t, nil)
	if m := do(h, "GET", "/admin/usage/summary?days=7", "").json(t); m["total_requests"] != 0.0 || m["start_date"] != "2026-04-28" {
		t.Fatalf("summary %v", m)
	}
}

func TestUsageSource(t *testing.T) {
	h, _, _ := seeded(t, nil)
	m := do(h, "GET", "/admin/usage/summary?start_date=2026-05-01&end_date=2026-05-04&days=1", "").json(t)
	if m["total_requests"] != 3.0 || m["total_tokens"] != 45.0 || m["total_cost"] != 0.75 ||
		m["start_date"] != "2026-05-01" || m["end_date"] != "2026-05-04" {
		t.Fatalf("summary %v", m)
	}
	if m := do(h, "GET", "/admin/usage/summary?days=1", "").json(t); m["total_requests"] != 2.0 || m["start_date"] != "2026-05-04" {
		t.Fatalf("days=1 summary %v", m)
	}
	res := do(h, "GET", "/admin/usage/daily", "")
	if want := `[{"date":"2026-05-04","requests":2,"input_tokens":20,"output_tokens":10,"total_tokens":30,"cost":0.25},` +
		`{"date":"2026-05-03","requests":1,"input_tokens":10,"output_tokens":5,"total_tokens":15,"cost":0.5}]`; string(res.body) != want {
		t.Fatalf("daily %s", res.body)
	}
	if res := do(h, "GET", "/admin/usage/daily?interval=weekly", ""); !strings.HasPrefix(string(res.body), `[{"date":"2026-W19","requests":2,`) ||
		!strings.Contains(string(res.body), `{"date":"2026-W18","requests":1,`) {
		t.Fatalf("weekly %s", res.body)
	}
	if res := do(h, "GET", "/admin/usage/daily?interval=monthly", ""); !strings.HasPrefix(string(res.body), `[{"date":"2026-05","requests":3,`) {
		t.Fatalf("monthly %s", res.body)
	}
	if res := do(h, "GET", "/admin/usage/daily?interval=yearly", ""); !strings.HasPrefix(string(res.body), `[{"date":"2026","requests":3,`) {
		t.Fatalf("yearly %s", res.body)
	}
	res = do(h, "GET", "/admin/usage/sessions?user_path=team/a/", "")
	var page struct {
		Sessions []struct {
			SessionID string   `json:"session_id"`
			UserPath  string   `json:"user_path"`
			Requests  int      `json:"requests"`
			Cost      float64  `json:"cost"`
			Models    []string `json:"models"`
		} `json:"sessions"`
		NextCursor *string `json:"next_cursor"`
	}
	if err := json.Unmarshal(res.body, &page); err != nil || len(page.Sessions) != 1 {
		t.Fatalf("sessions %d %s", res.status, res.body)
	}
	if s := page.Sessions[0]; s.SessionID != "s1" || s.UserPath != "/team/a" || s.Requests != 2 || s.Cost != 0.75 || len(s.Models) != 2 {
		t.Fatalf("session %+v", s)
	}
	if res.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("Cache-Control %q", res.header.Get("Cache-Control"))
	}
	if res := do(h, "GET", "/admin/usage/sessions?user_path=/team/b", ""); string(res.body) != `{"sessions":[],"next_cursor":null}` {
		t.Fatalf("rows without a session are omitted: %s", res.body)
	}
	do(h, "GET", "/admin/usage/sessions?cursor=not-one-we-issued", "").expectErr(t, 400, "invalid_request_error", "invalid_value")
}

func TestUsageParams(t *testing.T) {
	h, _ := newTestHandler(t, nil)
	for _, c := range []struct{ q, param string }{
		{"/admin/usage/summary?days=0", "days"},
		{"/admin/usage/summary?days=x", "days"},
		{"/admin/usage/summary?start_date=2026-13-01", "start_date"},
		{"/admin/usage/summary?end_date=yesterday", "end_date"},
		{"/admin/usage/summary?start_date=2026-02-02&end_date=2026-02-01", "end_date"},
		{"/admin/usage/summary?days=367", "days"},
		{"/admin/usage/daily?days=-1", "days"},
		{"/admin/usage/daily?interval=hourly", "interval"},
		{"/admin/usage/sessions?limit=0", "limit"},
		{"/admin/usage/sessions?user_path=/a/../b", "user_path"},
	} {
		e := do(h, "GET", c.q, "").err(t)
		if e.StatusCode != 400 || e.Type != "invalid_request_error" || e.Param == nil || *e.Param != c.param {
			t.Errorf("%s: %+v", c.q, e)
		}
	}
	if res := do(h, "GET", "/admin/usage/sessions?limit=1000", ""); res.status != 200 {
		t.Fatalf("limit above 200 is clamped: %d", res.status)
	}
}
