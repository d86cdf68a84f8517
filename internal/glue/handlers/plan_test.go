package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/gateway/proxy"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
)

// TestBudgetDecidedOnThePlan: once the request's plan resolved a priced
// target, the rate-limit stage refuses it under a spent budget itself:
// nothing behind it runs and no rate-limit rule counts it. An unpriced
// plan goes on, with the verdict recorded for the proxy's other calls.
func TestBudgetDecidedOnThePlan(t *testing.T) {
	c := pricedCost(t)
	bs := budgetService(t, map[budgets.Key]float64{{UserPath: "/team", Period: budgets.Daily}: c / 2}, false)
	bs.Charge("/team", c, time.Now())
	e := rlEngine(t, limits.Rule{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodMinute, MaxRequests: 100})
	openai, ollama := &budgetUpstream{name: "openai", typ: "openai"}, &budgetUpstream{name: "local", typ: "ollama"}
	reg := providers.NewRegistry([]providers.Entry{
		{Provider: openai, Models: []string{"gpt-4o-mini"}, Allowlist: true},
		{Provider: ollama, Models: []string{"llama3"}, Allowlist: true},
	}, providers.RegistryOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	reg.Start(ctx)
	<-reg.Ready()
	svc := &proxy.Service{Registry: reg, MaxBodyBytes: 1 << 20}
	for _, tc := range []struct {
		model  string
		priced bool
	}{{"gpt-4o-mini", true}, {"llama3", false}} {
		info := reqinfo.New()
		info.UserPath = "/team"
		req := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(modelBody("/v1/chat/completions", tc.model)))
		req.Header.Set("Content-Type", "application/json")
		req = req.WithContext(reqinfo.With(req.Context(), info))
		p := svc.Plan(req)
		if p == nil || p.Err != nil || p.Target.Priced() != tc.priced {
			t.Fatalf("%s: plan %+v", tc.model, p)
		}
		called := false
		next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
			called = true
			svc.ServeHTTP(w, r)
			return nil
		})
		rec := httptest.NewRecorder()
		rt, found := routes.Lookup("POST", "/v1/chat/completions")
		_ = serveLimited(bs, budgetCheckFor(rt), e, classify(rt, found), rec, req, next)
		if tc.priced {
			checkBudgetExceeded(t, "/v1/chat/completions", rec)
			if called || openai.calls.Load() != 0 {
				t.Fatalf("priced plan over budget: next called %v, upstream %d", called, openai.calls.Load())
			}
			for _, st := range e.StatusFor("/team") {
				if st.Usage.RequestsUsed != 0 {
					t.Fatalf("a refused request counted %d requests", st.Usage.RequestsUsed)
				}
			}
			continue
		}
		if rec.Code != 200 || !called || info.BudgetExceeded == nil {
			t.Fatalf("unpriced plan over budget: %d, next called %v, verdict %v", rec.Code, called, info.BudgetExceeded)
		}
	}
}

// TestVirtualModelStageRoutesThePlan: the virtual-model stage resolves
// the plan with model routing on, and makes again a plan an earlier stage
// made without it.
func TestVirtualModelStageRoutesThePlan(t *testing.T) {
	info := reqinfo.New()
	stale := &reqinfo.Plan{Requested: "m"}
	info.SetPlan(stale)
	req := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(modelBody("/v1/chat/completions", "gpt-4o-mini")))
	req.Header.Set("Content-Type", "application/json")
	req = req.WithContext(reqinfo.With(req.Context(), info))
	_, px := cacheCapSetup(t)
	var seen *reqinfo.Plan
	_ = routeRequest(px, httptest.NewRecorder(), req, caddyhttp.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) error {
		seen = reqinfo.From(r.Context()).Plan()
		return nil
	}))
	if !info.VirtualModels || seen == nil || seen == stale || !seen.VirtualModels || seen.Requested != "gpt-4o-mini" {
		t.Fatalf("virtual models %v, plan %+v", info.VirtualModels, seen)
	}
}
