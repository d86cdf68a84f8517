package selfusage

import (
	"testing"

	"github.com/modelgate/modelgate/internal/domain/limits"
)

// TestLimitsAdapter: every user-path rule covering the caller, with a
// per_child template's counters for the caller's child; polling charges
// nothing.
func TestLimitsAdapter(t *testing.T) {
	e, err := limits.New(limits.Options{QuotaTemplates: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, r := range []limits.Rule{
		{Scope: limits.ScopeUserPath, Subject: "/", Period: limits.PeriodDay, MaxRequests: 100},
		{Scope: limits.ScopeUserPath, Subject: "/customers", Period: limits.PeriodMinute, MaxRequests: 5, PerChild: true},
		{Scope: limits.ScopeUserPath, Subject: "/customers", Period: limits.PeriodConcurrent, MaxRequests: 2},
		{Scope: limits.ScopeUserPath, Subject: "/other", PeriodSeconds: 90, MaxTokens: 7},
		{Scope: limits.ScopeProvider, Subject: "openai", Period: limits.PeriodMinute, MaxRequests: 1},
	} {
		if err := e.Upsert(r, nil); err != nil {
			t.Fatal(err)
		}
	}
	a, rej := e.AdmitUserPath("/customers/alice/app")
	if rej != nil {
		t.Fatal(rej)
	}
	defer a.Done(0)
	h := &Handler{RateLimits: Limits{Source: e}}
	for i := 0; i < 3; i++ {
		m := get(t, h, "/customers/alice/app")
		rl := m["rate_limits"].([]any)
		if len(rl) != 3 {
			t.Fatalf("%d rules: %v", len(rl), rl)
		}
		root, tmpl, conc := rl[0].(map[string]any), rl[1].(map[string]any), rl[2].(map[string]any)
		if root["subject"] != "/" || root["requests_used"] != 1.0 || root["period_seconds"] != 86400.0 || root["window_end"] == nil {
			t.Fatalf("root %v", root)
		}
		if tmpl["per_child"] != true || tmpl["effective_subject"] != "/customers/alice" || tmpl["requests_used"] != 1.0 || tmpl["max_requests"] != 5.0 {
			t.Fatalf("template %v", tmpl)
		}
		if conc["period"] != "concurrent" || conc["in_flight"] != 1.0 || conc["window_start"] != nil || conc["period_seconds"] != nil {
			t.Fatalf("concurrent %v", conc)
		}
	}
	if got := (Limits{}).RateLimitStatuses(t.Context(), "/"); got != nil {
		t.Fatalf("nil source: %v", got)
	}
}
