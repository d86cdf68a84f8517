package proxy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
)

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
