package admin

import (
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/platform/config"
)

// TestUsageBreakdown: the breakdown groups the seeded usage, names the
// keys it knows, pages, and refuses bad parameters; audit entries name
// their key too.
func TestUsageBreakdown(t *testing.T) {
	h, rc, _ := seeded(t, nil)
	key := do(h, "POST", "/admin/auth-keys", `{"name":"ci-bot"}`).json(t)["id"].(string)
	at := testNow.Add(-10 * time.Minute)
	e := rc.add(t, at, 200, "/team/a/app", "", "gpt-4o", 1)
	cost := 2.0
	rec := &audit.UsageRecord{ID: rc.ids.New(at), Timestamp: at, UserPath: "/team/a/app", AuthKeyID: key,
		ProviderName: "openai-main", Model: "gpt-4o", Endpoint: "/v1/messages", StatusCode: 200,
		DurationNs: int64(80 * time.Millisecond), Usage: catalog.Usage{InputTokens: 1, TotalTokens: 1}, TotalCost: &cost}
	keyed := *e
	keyed.ID, keyed.AuthKeyID = rc.ids.New(at), key
	if !rc.bolt.AppendUsage(rec) || !rc.bolt.AppendEntry(&keyed) {
		t.Fatal("refused")
	}
	rc.flush(t)

	m := do(h, "GET", "/admin/usage/breakdown?by=key&days=2", "").json(t)
	rows := m["rows"].([]any)
	if m["by"] != "key" || len(rows) != 2 || m["next"] != nil {
		t.Fatalf("by key: %v", m)
	}
	first := rows[0].(map[string]any)
	if first["group"] != key || first["name"] != "ci-bot" || first["total_cost"] != 2.0 || first["p50_ms"] != 100.0 {
		t.Fatalf("key row: %v", first)
	}
	if second := rows[1].(map[string]any); second["group"] != "" || second["name"] != nil || second["requests"] != 4.0 {
		t.Fatalf("no-key row: %v", second)
	}
	m = do(h, "GET", "/admin/usage/breakdown?by=user_path&depth=1&days=2&limit=1", "").json(t)
	if rows := m["rows"].([]any); len(rows) != 1 || rows[0].(map[string]any)["group"] != "/team" || m["next"] != nil {
		t.Fatalf("depth 1: %v", m)
	}
	m = do(h, "GET", "/admin/usage/breakdown?by=endpoint&days=2&limit=1", "").json(t)
	next, _ := m["next"].(string)
	if next == "" {
		t.Fatalf("no next page: %v", m)
	}
	m = do(h, "GET", "/admin/usage/breakdown?by=endpoint&days=2&limit=1&after="+next, "").json(t)
	if rows := m["rows"].([]any); len(rows) != 1 || rows[0].(map[string]any)["group"] != "/v1/chat/completions" || m["next"] != nil {
		t.Fatalf("second page: %v", m)
	}
	// The summary of the key counts its records only.
	if m := do(h, "GET", "/admin/usage/summary?days=2&key_id="+key, "").json(t); m["total_requests"] != 1.0 || m["total_cost"] != 2.0 {
		t.Fatalf("summary of the key: %v", m)
	}
	for _, q := range []string{"", "?by=nobody", "?by=model&depth=2", "?by=key&after=x", "?by=key&days=0", "?by=key&user_path=a//b"} {
		do(h, "GET", "/admin/usage/breakdown"+q, "").expectErr(t, 400, "invalid_request_error", "invalid_value")
	}
	do(h, "GET", "/admin/usage/sessions?key_id=k", "").expectErr(t, 400, "invalid_request_error", "invalid_value")

	log := do(h, "GET", "/admin/audit/log?key_id="+key, "").json(t)
	ents := log["entries"].([]any)
	if log["total"] != 1.0 || ents[0].(map[string]any)["auth_key_name"] != "ci-bot" {
		t.Fatalf("entries of the key: %v", log)
	}
	one := do(h, "GET", "/admin/audit/log/"+keyed.ID.String(), "").json(t)
	if one["auth_key_name"] != "ci-bot" {
		t.Fatalf("entry: %v", one)
	}
}

// TestUsageBreakdownOff: with usage tracking off the breakdown is empty.
func TestUsageBreakdownOff(t *testing.T) {
	h, _, _ := seeded(t, func(c *config.Config, _ *Options) { c.Usage.Enabled = config.Ptr(false) })
	m := do(h, "GET", "/admin/usage/breakdown?by=model", "").json(t)
	if rows := m["rows"].([]any); len(rows) != 0 || m["next"] != nil || m["start_date"] != "2026-04-05" {
		t.Fatalf("off: %v", m)
	}
}
