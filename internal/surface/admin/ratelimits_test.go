package admin

import (
	"net/http"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/platform/config"
)

// newRateLimitHandler returns a Handler over an in-memory engine with one
// config rule on /cfg.
func newRateLimitHandler(t *testing.T, entitled bool) (*Handler, *limits.Engine) {
	t.Helper()
	e, err := limits.New(limits.Options{QuotaTemplates: entitled, TokensEnforced: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	if err := e.SetConfigRules([]limits.Rule{{Scope: limits.ScopeUserPath, Subject: "/cfg", Period: limits.PeriodMinute, MaxRequests: 9}}); err != nil {
		t.Fatal(err)
	}
	h, _ := newTestHandler(t, func(_ *config.Config, o *Options) { o.RateLimits = e })
	return h, e
}

func rules(t *testing.T, res result) []map[string]any {
	t.Helper()
	return listRows(t, res, "rules")
}

// listRows checks that res is a 200 list answer with a server_time and
// returns the rows under key.
func listRows(t *testing.T, res result, key string) []map[string]any {
	t.Helper()
	if res.status != 200 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	m := res.json(t)
	if m["server_time"] == nil {
		t.Fatalf("no server_time: %s", res.body)
	}
	var out []map[string]any
	for _, r := range m[key].([]any) {
		out = append(out, r.(map[string]any))
	}
	return out
}

func TestRateLimitsCRUD(t *testing.T) {
	h, e := newRateLimitHandler(t, false)
	list := rules(t, do(h, "GET", "/admin/rate-limits", ""))
	if len(list) != 1 || list[0]["source"] != "config" || list[0]["read_only"] != true || list[0]["requests_used"] != 0.0 ||
		list[0]["period"] != "minute" || list[0]["period_seconds"] != 60.0 || list[0]["window_start"] == nil {
		t.Fatalf("list %v", list)
	}

	// Create with the user_path shorthand; the answer is the rule.
	res := do(h, "PUT", "/admin/rate-limits", `{"user_path":"team/","period":"minute","max_requests":3,"max_tokens":100}`)
	if res.status != 200 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	r := res.json(t)
	if r["scope"] != "user_path" || r["subject"] != "/team" || r["user_path"] != "/team" || r["source"] != "manual" ||
		r["read_only"] != false || r["max_requests"] != 3.0 || r["max_tokens"] != 100.0 {
		t.Fatalf("created %v", r)
	}
	for i := 0; i < 2; i++ {
		a, rej := e.AdmitUserPath("/team/x")
		if rej != nil {
			t.Fatal(rej)
		}
		a.Done(10)
	}
	// Editing only the caps keeps the counters.
	r = do(h, "PUT", "/admin/rate-limits", `{"scope":"user_path","subject":"/team","period":"minute","period_seconds":60,"max_requests":5}`).json(t)
	if r["max_requests"] != 5.0 || r["max_tokens"] != 0.0 || r["requests_used"] != 2.0 || r["tokens_used"] != 20.0 {
		t.Fatalf("edited %v", r)
	}
	// Changing the period through previous recreates it with fresh counters.
	r = do(h, "PUT", "/admin/rate-limits", `{"user_path":"/team","period_seconds":300,"max_requests":5,
		"previous":{"user_path":"/team","period":"minute"}}`).json(t)
	if r["period"] != nil || r["period_seconds"] != 300.0 || r["requests_used"] != 0.0 {
		t.Fatalf("moved %v", r)
	}
	if list := rules(t, do(h, "GET", "/admin/rate-limits", "")); len(list) != 2 {
		t.Fatalf("after the move: %v", list)
	}
	// Provider and model rules name scope and subject; matching is
	// case-insensitive, so the subject is stored lower-cased.
	r = do(h, "PUT", "/admin/rate-limits", `{"scope":"model","subject":"OpenAI/GPT-4o","period":"concurrent","max_requests":4}`).json(t)
	if r["subject"] != "openai/gpt-4o" || r["period_seconds"] != 0.0 || r["window_start"] != nil || r["in_flight"] != 0.0 {
		t.Fatalf("model rule %v", r)
	}

	// Reset one, then delete.
	a, _ := e.AdmitUserPath("/team")
	a.Done(0)
	list = rules(t, do(h, "POST", "/admin/rate-limits/reset-one", `{"user_path":"/team","period_seconds":300}`))
	if len(list) != 1 || list[0]["requests_used"] != 0.0 {
		t.Fatalf("reset-one %v", list)
	}
	if res := do(h, "DELETE", "/admin/rate-limits", `{"scope":"model","subject":"openai/gpt-4o","period":"concurrent"}`); res.status != 204 {
		t.Fatalf("delete %d %s", res.status, res.body)
	}
	do(h, "DELETE", "/admin/rate-limits", `{"scope":"model","subject":"openai/gpt-4o","period":"concurrent"}`).
		expectErr(t, 404, "not_found_error", "rate_limit_rule_not_found")
	do(h, "POST", "/admin/rate-limits/reset-one", `{"user_path":"/nobody","period":"hour"}`).
		expectErr(t, 404, "not_found_error", "rate_limit_rule_not_found")

	// Reset all needs the confirmation word.
	do(h, "POST", "/admin/rate-limits/reset", `{}`).expectErr(t, 400, "invalid_request_error", "confirmation_required")
	do(h, "POST", "/admin/rate-limits/reset", `{"confirmation":"yes"}`).expectErr(t, 400, "invalid_request_error", "confirmation_required")
	a, _ = e.AdmitUserPath("/cfg")
	a.Done(0)
	for _, r := range rules(t, do(h, "POST", "/admin/rate-limits/reset", `{"confirmation":"reset"}`)) {
		if r["requests_used"] != 0.0 {
			t.Fatalf("after reset %v", r)
		}
	}
}

func TestRateLimitsRefusals(t *testing.T) {
	h, _ := newRateLimitHandler(t, false)
	// Config rules are read-only.
	do(h, "PUT", "/admin/rate-limits", `{"user_path":"/cfg","period":"minute","max_requests":1}`).
		expectErr(t, http.StatusConflict, "invalid_request_error", "rate_limit_rule_read_only")
	do(h, "DELETE", "/admin/rate-limits", `{"user_path":"/cfg","period":"minute"}`).
		expectErr(t, http.StatusConflict, "invalid_request_error", "rate_limit_rule_read_only")
	// But their counters can be reset.
	if res := do(h, "POST", "/admin/rate-limits/reset-one", `{"user_path":"/cfg","period":"minute"}`); res.status != 200 {
		t.Fatalf("reset-one of a config rule: %d %s", res.status, res.body)
	}
	// per_child needs the entitlement.
	do(h, "PUT", "/admin/rate-limits", `{"user_path":"/customers","period":"hour","max_requests":10,"per_child":true}`).
		expectErr(t, http.StatusForbidden, "invalid_request_error", "quota_templates_not_entitled")
	for _, c := range []struct{ body, param string }{
		{`{"period":"minute","max_requests":1}`, "scope"},
		{`{"scope":"team","subject":"/x","period":"minute","max_requests":1}`, "scope"},
		{`{"scope":"provider","period":"minute","max_requests":1}`, "subject"},
		{`{"scope":"provider","user_path":"/x","period":"minute","max_requests":1}`, "user_path"},
		{`{"user_path":"/x","subject":"/y","period":"minute","max_requests":1}`, "subject"},
		{`{"user_path":"/x","max_requests":1}`, "period"},
		{`{"user_path":"/team//app","period":"minute","max_requests":1}`, "user_path"},
		{`{"scope":"user_path","subject":"/a/../b","period":"minute","max_requests":1}`, "subject"},
		{`{"user_path":"/x","period":"minute","max_requests":1,"previous":{"user_path":"/x","period_seconds":90000}}`, "previous.period_seconds"},
		{`{"user_path":"/x","period":"hourly","max_requests":1}`, "period"},
		{`{"user_path":"/x","period":"hour","period_seconds":60,"max_requests":1}`, "period_seconds"},
		{`{"user_path":"/x","period_seconds":86401,"max_requests":1}`, "period_seconds"},
		{`{"user_path":"/x","period":"minute"}`, "max_requests"},
		{`{"user_path":"/x","period":"minute","max_requests":-1}`, "max_requests"},
		{`{"user_path":"/x","period":"concurrent","max_requests":1,"max_tokens":5}`, "max_tokens"},
		{`{"scope":"provider","subject":"openai","period":"minute","max_requests":1,"per_child":true}`, "per_child"},
		{`{"user_path":"/x","period":"minute","max_requests":1,"previous":{"user_path":"/x"}}`, "previous.period"},
		{`{"user_path":"/x","period":"minute","max_requests":1,"requests_used":3}`, "requests_used"},
		// Members of the wrong JSON type are named as the client wrote them.
		{`{"user_path":"/x","period_seconds":1.5,"max_requests":1}`, "period_seconds"},
		{`{"user_path":"/x","period_seconds":"60","max_requests":1}`, "period_seconds"},
		{`{"user_path":"/x","period":5,"max_requests":1}`, "period"},
		{`{"user_path":"/x","period":"minute","max_requests":1,"previous":{"user_path":"/x","period":7}}`, "previous.period"},
		{`{"scope":"provider","subject":"opnai","period":"minute","max_requests":1}`, "subject"},
	} {
		e := do(h, "PUT", "/admin/rate-limits", c.body).err(t)
		if e.StatusCode != 400 || e.Type != "invalid_request_error" || e.Param == nil || *e.Param != c.param {
			t.Errorf("%s: %+v (param %v), want param %s", c.body, e, e.Param, c.param)
		}
	}
	do(h, "PUT", "/admin/rate-limits", `{"user_path":"/x","period":"minute","max_requests":1,"previous":{"user_path":"/y","period":"hour"}}`).
		expectErr(t, 404, "not_found_error", "rate_limit_rule_not_found")
	// Moving a rule onto another's key is a conflict.
	do(h, "PUT", "/admin/rate-limits", `{"user_path":"/a","period":"minute","max_requests":1}`)
	do(h, "PUT", "/admin/rate-limits", `{"user_path":"/b","period":"minute","max_requests":1}`)
	do(h, "PUT", "/admin/rate-limits", `{"user_path":"/b","period":"minute","max_requests":1,"previous":{"user_path":"/a","period":"minute"}}`).
		expectErr(t, 409, "invalid_request_error", "rate_limit_rule_exists")
}

func TestRateLimitsTemplates(t *testing.T) {
	h, e := newRateLimitHandler(t, true)
	if res := do(h, "PUT", "/admin/rate-limits", `{"user_path":"/customers","period":"hour","max_requests":10,"per_child":true}`); res.status != 200 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	a, _ := e.AdmitUserPath("/customers/alice")
	a.Done(0)
	for _, r := range rules(t, do(h, "GET", "/admin/rate-limits", "")) {
		if r["subject"] != "/customers" {
			continue
		}
		// A template has no aggregate counter.
		if r["per_child"] != true || r["requests_used"] != nil || r["in_flight"] != nil || r["window_start"] != nil {
			t.Fatalf("template %v", r)
		}
		return
	}
	t.Fatal("template not listed")
}

func TestRateLimitsUnavailable(t *testing.T) {
	h, _ := newTestHandler(t, nil)
	do(h, "GET", "/admin/rate-limits", "").expectErr(t, 503, "provider_error", "rate_limits_unavailable")
}
