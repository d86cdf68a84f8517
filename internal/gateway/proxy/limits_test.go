package proxy

import (
	"net/http"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/gateway/providers"
)

func limitsEngine(t *testing.T, rules ...limits.Rule) *limits.Engine {
	t.Helper()
	e, err := limits.New(limits.Options{TokensEnforced: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	for _, r := range rules {
		if err := e.Upsert(r, nil); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func ruleUsage(t *testing.T, e *limits.Engine, scope limits.Scope, subject string, period limits.Period) limits.Usage {
	t.Helper()
	for _, st := range e.Rules() {
		if st.Key.Scope == scope && st.Key.Subject == subject && st.Key.Period == period {
			return st.Usage
		}
	}
	t.Fatalf("no rule %s %s %s", scope, subject, period)
	return limits.Usage{}
}

// TestTargetLimits: a saturated provider or model rule answers 429 with
// Retry-After without calling the upstream; tokens are charged to the
// provider and upstream model that served the request; slots are
// released once the answer is complete.
func TestTargetLimits(t *testing.T) {
	calls := 0
	var e *limits.Engine
	p := &stubProvider{name: "up", answer: func(providers.Endpoint, string, []byte) *http.Response {
		calls++
		if u := ruleUsage(t, e, limits.ScopeProvider, "up", limits.PeriodConcurrent); u.InFlight != 1 {
			t.Errorf("in flight %d during the upstream call", u.InFlight)
		}
		return jsonResponse(200, chatAnswer)
	}}
	s := newService(t, p)
	e = limitsEngine(t,
		limits.Rule{Scope: limits.ScopeProvider, Subject: "UP", Period: limits.PeriodConcurrent, MaxRequests: 2},
		limits.Rule{Scope: limits.ScopeModel, Subject: "up/M1", Period: limits.PeriodMinute, MaxRequests: 2, MaxTokens: 1000},
		limits.Rule{Scope: limits.ScopeModel, Subject: "other-model", Period: limits.PeriodMinute, MaxRequests: 1})
	s.Limits = e
	if _, ok := s.TargetAvailable("up", "m1"); !ok {
		t.Fatal("fresh target unavailable")
	}
	for i := 0; i < 2; i++ {
		if rec, _ := serve(s, "POST", "/v1/chat/completions", `{"model":"m1","messages":[]}`); rec.Code != 200 {
			t.Fatalf("request %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	if u := ruleUsage(t, e, limits.ScopeModel, "up/m1", limits.PeriodMinute); u.RequestsUsed != 2 || u.TokensUsed != 14 {
		t.Fatalf("model usage %+v", u)
	}
	if u := ruleUsage(t, e, limits.ScopeProvider, "up", limits.PeriodConcurrent); u.InFlight != 0 {
		t.Fatalf("in flight %d after the answers", u.InFlight)
	}
	if wait, ok := s.TargetAvailable("up", "m1"); ok || wait < 1e9 {
		t.Fatalf("saturated target available: %v %v", wait, ok)
	}
	rec, _ := serve(s, "POST", "/v1/chat/completions", `{"model":"m1","messages":[]}`)
	if rec.Code != 429 || calls != 2 || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("third: %d (upstream calls %d) %v", rec.Code, calls, rec.Header())
	}
	e2 := errorOf(t, rec)
	if e2["type"] != "rate_limit_error" || e2["code"] != "rate_limit_exceeded" || e2["provider"] != "up" ||
		!strings.Contains(e2["message"].(string), `"up/m1"`) {
		t.Fatalf("error %v", e2)
	}
	// Other models on the same provider are unaffected.
	if _, ok := s.TargetAvailable("up", "m2"); !ok {
		t.Fatal("another model is saturated too")
	}
}

// TestTargetLimitReleasedOnUpstreamError: a failed upstream call releases
// its slot and charges nothing.
func TestTargetLimitReleasedOnUpstreamError(t *testing.T) {
	p := &stubProvider{name: "up", answer: func(providers.Endpoint, string, []byte) *http.Response {
		return jsonResponse(500, `{"error":{"message":"down"}}`)
	}}
	s := newService(t, p)
	e := limitsEngine(t, limits.Rule{Scope: limits.ScopeProvider, Subject: "up", Period: limits.PeriodConcurrent, MaxRequests: 1},
		limits.Rule{Scope: limits.ScopeProvider, Subject: "up", Period: limits.PeriodHour, MaxTokens: 10})
	s.Limits = e
	for i := 0; i < 3; i++ {
		if rec, _ := serve(s, "POST", "/v1/chat/completions", `{"model":"m1","messages":[]}`); rec.Code != 500 {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
	if u := ruleUsage(t, e, limits.ScopeProvider, "up", limits.PeriodHour); u.TokensUsed != 0 {
		t.Fatalf("tokens %d charged for errors", u.TokensUsed)
	}
}
