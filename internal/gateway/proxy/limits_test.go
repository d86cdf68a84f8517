package proxy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
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

// typedStub is a stubProvider of another provider type.
type typedStub struct {
	*stubProvider
	typ string
}

func (p typedStub) Type() string { return p.typ }

// TestBudgetRefusedOnceModelResolved: with a spent budget recorded on the
// request, a priced model is answered with that error and reaches neither
// its upstream nor the provider rate limits; an unpriced (self-hosted)
// model is served.
func TestBudgetRefusedOnceModelResolved(t *testing.T) {
	ok := func(providers.Endpoint, string, []byte) *http.Response {
		return jsonResponse(200, `{"id":"x","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}
	paid := &stubProvider{name: "openai", answer: ok}
	local := typedStub{&stubProvider{name: "local", answer: ok}, "ollama"}
	reg := providers.NewRegistry([]providers.Entry{
		{Provider: paid, Models: []string{"gpt-4o-mini"}, Allowlist: true},
		{Provider: local, Models: []string{"llama3"}, Allowlist: true},
	}, providers.RegistryOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reg.Start(ctx)
	<-reg.Ready()
	eng := limitsEngine(t, limits.Rule{Scope: limits.ScopeProvider, Subject: "openai", Period: limits.PeriodMinute, MaxRequests: 10})
	s := &Service{Registry: reg, MaxBodyBytes: 1 << 20, Limits: eng}
	spent := apierr.New(http.StatusTooManyRequests, apierr.TypeRateLimit, "budget exceeded").WithCode("budget_exceeded")
	spent.RetryAfter = 42
	send := func(model string) (*httptest.ResponseRecorder, *reqinfo.Info) {
		info := reqinfo.New()
		info.BudgetExceeded = spent
		req := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"model":"`+model+`","messages":[]}`))
		req.Header["Content-Type"] = jsonContentType
		req = req.WithContext(reqinfo.With(req.Context(), info))
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return rec, info
	}

	rec, info := send("gpt-4o-mini")
	if rec.Code != 429 || rec.Header().Get("Retry-After") != "42" || !strings.Contains(rec.Body.String(), "budget_exceeded") {
		t.Fatalf("priced over budget: %d %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	if !info.RefusedBeforeUpstream || info.ResolvedModel != "gpt-4o-mini" || paid.lastModel != "" {
		t.Fatalf("refused %v, resolved %q, upstream saw %q", info.RefusedBeforeUpstream, info.ResolvedModel, paid.lastModel)
	}
	if u := ruleUsage(t, eng, limits.ScopeProvider, "openai", limits.PeriodMinute); u.RequestsUsed != 0 {
		t.Fatalf("provider limit counted %d requests", u.RequestsUsed)
	}

	rec, info = send("llama3")
	if rec.Code != 200 || info.RefusedBeforeUpstream || local.lastModel != "llama3" {
		t.Fatalf("unpriced over budget: %d refused %v upstream %q %s", rec.Code, info.RefusedBeforeUpstream, local.lastModel, rec.Body)
	}
}

// TestDecidesBudgetShapes: the shapes whose budget verdict the service
// applies are exactly the budgeted model endpoints it forwards and
// realtime sessions.
func TestDecidesBudgetShapes(t *testing.T) {
	for sh := routes.Shape(0); sh < routes.NumShapes; sh++ {
		want := sh == routes.ShapeChat || sh == routes.ShapeResponses || sh == routes.ShapeMessages || sh == routes.ShapeEmbeddings ||
			sh == routes.ShapeSpeech || sh == routes.ShapeTranscription || sh == routes.ShapePassthrough ||
			sh == routes.ShapeRealtime
		if got := DecidesBudget(sh); got != want {
			t.Errorf("DecidesBudget(%s) = %v, want %v", sh, got, want)
		}
		if DecidesBudget(sh) && !serves(sh) {
			t.Errorf("%s decides budgets but is not served here", sh)
		}
	}
}

// bodyOf is body as an earlier stage read and scanned it.
func bodyOf(body string) *reqinfo.Body {
	i := reqinfo.New()
	i.SetBody([]byte(body))
	return i.Body()
}

func TestWorstCaseCost(t *testing.T) {
	mini := reqinfo.Target{ProviderType: "openai", Model: "gpt-4o-mini"}
	m, ok := catalog.Lookup("openai", "gpt-4o-mini")
	if !ok || m.MaxOutputTokens <= 0 {
		t.Fatalf("gpt-4o-mini: %+v", m)
	}
	price := func(in, out int64) catalog.Nanos {
		b, ok := catalog.Price("openai", "gpt-4o-mini", catalog.Usage{InputTokens: in, OutputTokens: out, TotalTokens: in + out})
		if !ok {
			t.Fatal("no price")
		}
		return catalog.NanosOf(b.Total)
	}
	// "hi" in one message: 3 + 4 + 1 estimated input tokens.
	responses := `{"model":"gpt-4o-mini","input":"hello","max_output_tokens":5}`
	for _, c := range []struct {
		name, body string
		want       catalog.Nanos
	}{
		{"max_tokens", `{"model":"gpt-4o-mini","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`, price(8, 100)},
		{"max_completion_tokens", `{"model":"gpt-4o-mini","max_completion_tokens":7,"messages":[{"role":"user","content":"hi"}]}`, price(8, 7)},
		{"catalog ceiling", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`, price(8, m.MaxOutputTokens)},
		{"not messages: bytes/4", responses, price(int64(len(responses)+3)/4, 5)},
	} {
		got, ok := WorstCaseCost(mini, bodyOf(c.body))
		if !ok || got != c.want {
			t.Errorf("%s: %v %v, want %v", c.name, got, ok, c.want)
		}
	}
	if _, ok := WorstCaseCost(reqinfo.Target{ProviderType: "ollama", Model: "llama3"}, bodyOf(`{"messages":[]}`)); ok {
		t.Error("an unpriced model is reservable")
	}
	if _, ok := WorstCaseCost(mini, nil); ok {
		t.Error("no body is reservable")
	}
}
