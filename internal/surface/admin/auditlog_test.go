package admin

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/platform/config"
)

func TestAuditLogList(t *testing.T) {
	h, _, es := seeded(t, nil)
	var page struct {
		Entries []struct {
			ID         string          `json:"id"`
			StatusCode int             `json:"status_code"`
			UserPath   string          `json:"user_path"`
			Data       json.RawMessage `json:"data"`
		} `json:"entries"`
		Total, Limit, Offset int
	}
	res := do(h, "GET", "/admin/audit/log", "")
	if err := json.Unmarshal(res.body, &page); err != nil || res.status != 200 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	if page.Total != 3 || page.Limit != 50 || page.Offset != 0 || len(page.Entries) != 3 {
		t.Fatalf("page %+v", page)
	}
	for i, want := range []string{es[2].ID.String(), es[1].ID.String(), es[0].ID.String()} {
		if page.Entries[i].ID != want {
			t.Fatalf("entry %d is %s, want %s (newest first)", i, page.Entries[i].ID, want)
		}
	}
	if strings.Contains(string(res.body), "request_body") && strings.Contains(string(res.body), `"hi"`) {
		t.Fatalf("list carries bodies: %s", res.body)
	}
	if res.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("Cache-Control %q", res.header.Get("Cache-Control"))
	}
	for q, want := range map[string]int{
		"status=5xx":            1,
		"status=200":            2,
		"user_path=team/a":      2,
		"session_id=s1":         2,
		"model=gpt-4o":          2,
		"provider=openai-main":  3,
		"search=TEAM/B":         1,
		"start_date=2026-05-04": 2,
		"start_date=2026-05-03&end_date=2026-05-03": 1,
		"limit=1&offset=1":                          3,
		"provider=anthropic":                        0,
	} {
		m := do(h, "GET", "/admin/audit/log?"+q, "").json(t)
		if m["total"] != float64(want) {
			t.Errorf("%s: total %v, want %d", q, m["total"], want)
		}
	}
	if m := do(h, "GET", "/admin/audit/log?limit=1&offset=1", "").json(t); len(m["entries"].([]any)) != 1 ||
		m["entries"].([]any)[0].(map[string]any)["id"] != es[1].ID.String() {
		t.Fatalf("second page %v", m)
	}
	if m := do(h, "GET", "/admin/audit/log?limit=5000", "").json(t); m["limit"] != 200.0 {
		t.Fatalf("limit not clamped: %v", m["limit"])
	}
}

// TestAuditLogDays: days bounds the list to the last days days, today
// included, as on the other reads of the record.
func TestAuditLogDays(t *testing.T) {
	h, _, _ := seeded(t, nil)
	if m := do(h, "GET", "/admin/audit/log?days=1", "").json(t); m["total"] != 2.0 || len(m["entries"].([]any)) != 2 {
		t.Fatalf("days=1 %v", m)
	}
	if m := do(h, "GET", "/admin/audit/log?days=2", "").json(t); m["total"] != 3.0 {
		t.Fatalf("days=2 %v", m)
	}
}

func TestAuditLogBadParams(t *testing.T) {
	h, _, _ := seeded(t, nil)
	for _, c := range []struct{ q, param string }{
		{"limit=0", "limit"}, {"limit=x", "limit"}, {"offset=-1", "offset"}, {"status=abc", "status"},
		{"status=600", "status"}, {"start_date=May", "start_date"}, {"end_date=2026-02-30", "end_date"},
		{"start_date=2026-05-04&end_date=2026-05-01", "end_date"}, {"user_path=/a/../b", "user_path"},
		{"days=0", "days"}, {"days=367", "days"}, {"days=week", "days"},
	} {
		e := do(h, "GET", "/admin/audit/log?"+c.q, "").expectErr(t, 400, "invalid_request_error", "invalid_value")
		if e.Param == nil || *e.Param != c.param {
			t.Errorf("%s: param %v, want %s", c.q, e.Param, c.param)
		}
	}
}

func TestAuditLogEntry(t *testing.T) {
	h, _, es := seeded(t, nil)
	m := do(h, "GET", "/admin/audit/log/"+es[1].ID.String(), "").json(t)
	if m["id"] != es[1].ID.String() || m["resolved_model"] != "gpt-4o" {
		t.Fatalf("entry %v", m)
	}
	if body, _ := json.Marshal(m["data"]); !strings.Contains(string(body), `"content":"hi"`) {
		t.Fatalf("single entry lacks its request body: %s", body)
	}
	do(h, "GET", "/admin/audit/log/"+es[1].ID.String()[:10]+"0000000000000000", "").expectErr(t, 404, "not_found_error", "audit_entry_not_found")
	res := do(h, "GET", "/admin/audit/log/not-an-id", "")
	res.expectErr(t, 404, "not_found_error", "audit_entry_not_found")
	if res.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("an error answer may be cached: %q", res.header.Get("Cache-Control"))
	}
	// The legacy alias serves it too.
	if res := do(h, "GET", "/admin/api/v1/audit/log/"+es[0].ID.String(), ""); res.status != 200 {
		t.Fatalf("legacy alias: %d %s", res.status, res.body)
	}
}

func TestAuditStats(t *testing.T) {
	h, _, _ := seeded(t, nil)
	var st struct {
		Interval string `json:"interval"`
		Buckets  []struct {
			Requests  int `json:"requests"`
			Status2xx int `json:"status_2xx"`
			Status5xx int `json:"status_5xx"`
		} `json:"buckets"`
		Summary struct {
			Requests    int     `json:"requests"`
			SuccessRate float64 `json:"success_rate"`
		} `json:"summary"`
		ProviderLatency []struct {
			Provider      string     `json:"provider"`
			Requests      []int      `json:"requests"`
			AvgDurationMs []*float64 `json:"avg_duration_ms"`
		} `json:"provider_latency"`
	}
	res := do(h, "GET", "/admin/audit/stats?days=2", "")
	if err := json.Unmarshal(res.body, &st); err != nil {
		t.Fatalf("%d %s", res.status, res.body)
	}
	// Two days up to 10:xx today: 24 + 11 hourly buckets.
	if st.Interval != "hour" || len(st.Buckets) != 35 || st.Summary.Requests != 3 {
		t.Fatalf("stats %+v", st)
	}
	if b := st.Buckets[9]; b.Requests != 1 || b.Status2xx != 1 { // 2026-05-03 09:30
		t.Fatalf("bucket 9 %+v", b)
	}
	if b := st.Buckets[34]; b.Requests != 1 || b.Status5xx != 1 {
		t.Fatalf("last bucket %+v", b)
	}
	if len(st.ProviderLatency) != 1 || len(st.ProviderLatency[0].AvgDurationMs) != 35 ||
		st.ProviderLatency[0].AvgDurationMs[34] != nil || st.ProviderLatency[0].AvgDurationMs[33] == nil ||
		*st.ProviderLatency[0].AvgDurationMs[33] != 200 {
		t.Fatalf("latency %+v", st.ProviderLatency)
	}
	if m := do(h, "GET", "/admin/audit/stats", "").json(t); m["interval"] != "day" || len(m["buckets"].([]any)) != 30 {
		t.Fatalf("default window: %v buckets of %v", len(m["buckets"].([]any)), m["interval"])
	}
	do(h, "GET", "/admin/audit/stats?days=0", "").expectErr(t, 400, "invalid_request_error", "invalid_value")
	do(h, "GET", "/admin/audit/stats?start_date=2026-05-04&end_date=2026-05-01", "").expectErr(t, 400, "invalid_request_error", "invalid_value")
}

func TestAuditConversation(t *testing.T) {
	h, _, es := seeded(t, nil)
	m := do(h, "GET", "/admin/audit/conversation?log_id="+es[1].ID.String(), "").json(t)
	ents := m["entries"].([]any)
	if m["anchor_id"] != es[1].ID.String() || m["truncated"] != false || len(ents) != 2 ||
		ents[0].(map[string]any)["id"] != es[0].ID.String() {
		t.Fatalf("conversation %v", m)
	}
	m = do(h, "GET", "/admin/audit/conversation?limit=1&log_id="+es[1].ID.String(), "").json(t)
	if ents := m["entries"].([]any); m["truncated"] != true || len(ents) != 1 || ents[0].(map[string]any)["id"] != es[1].ID.String() {
		t.Fatalf("limited conversation %v", m)
	}
	do(h, "GET", "/admin/audit/conversation", "").expectErr(t, 400, "invalid_request_error", "missing_required_parameter")
	do(h, "GET", "/admin/audit/conversation?log_id="+es[1].ID.String()+"&limit=0", "").expectErr(t, 400, "invalid_request_error", "invalid_value")
	do(h, "GET", "/admin/audit/conversation?log_id="+es[1].ID.String()+"&limit=x", "").expectErr(t, 400, "invalid_request_error", "invalid_value")
	do(h, "GET", "/admin/audit/conversation?log_id=nope", "").expectErr(t, 404, "not_found_error", "audit_entry_not_found")
}

// TestAuditOff: with audit logging off the reads answer empty, never an
// error, even though the record holds entries.
func TestAuditOff(t *testing.T) {
	h, _, es := seeded(t, func(c *config.Config, _ *Options) { c.Logging.Enabled = config.Ptr(false) })
	if res := do(h, "GET", "/admin/audit/log", ""); string(res.body) != `{"entries":[],"total":0,"limit":50,"offset":0}` {
		t.Fatalf("log %d %s", res.status, res.body)
	}
	m := do(h, "GET", "/admin/audit/stats?days=1", "").json(t)
	if m["summary"].(map[string]any)["requests"] != 0.0 || len(m["buckets"].([]any)) != 11 || len(m["provider_latency"].([]any)) != 0 {
		t.Fatalf("stats %v", m)
	}
	m = do(h, "GET", "/admin/audit/conversation?log_id="+es[0].ID.String(), "").json(t)
	if len(m["entries"].([]any)) != 0 || m["truncated"] != false {
		t.Fatalf("conversation %v", m)
	}
	// Without any record wired, the same.
	h2, _ := newTestHandler(t, nil)
	if res := do(h2, "GET", "/admin/audit/log?status=4xx", ""); res.status != 200 || !strings.Contains(string(res.body), `"entries":[]`) {
		t.Fatalf("unwired log %d %s", res.status, res.body)
	}
}
