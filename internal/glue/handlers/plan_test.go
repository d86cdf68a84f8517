package handlers

import (
	"context"
	"errors"
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
	"github.com/modelgate/modelgate/internal/glue/caddymodule"
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
	info.SetBody([]byte(modelBody("/v1/chat/completions", "gpt-4o-mini")))
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

// TestVirtualModelStageKeepsABodyRefusal: a plan an earlier stage made
// without model routing that refused the body itself (which was not kept)
// stays: making it again would read a body already consumed.
func TestVirtualModelStageKeepsABodyRefusal(t *testing.T) {
	info := reqinfo.New()
	refused := &reqinfo.Plan{Err: errors.New("request body exceeds the limit")}
	info.SetPlan(refused)
	req := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`,"tail":1}`))
	req.Header.Set("Content-Type", "application/json")
	req = req.WithContext(reqinfo.With(req.Context(), info))
	_, px := cacheCapSetup(t)
	_ = routeRequest(px, httptest.NewRecorder(), req, caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
	if info.Plan() != refused {
		t.Fatalf("the body's refusal was replaced by %+v", info.Plan())
	}
}

// TestVirtualModelStageDoesNotWaitOffModelRoutes: a request the stage
// has nothing to plan for (GET /health) passes at once, also before the
// gateway has started.
func TestVirtualModelStageDoesNotWaitOffModelRoutes(t *testing.T) {
	h := &VirtualModel{app: &caddymodule.App{}} // never started: Ready would block
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := httptest.NewRequest("GET", "/health", nil).WithContext(ctx)
	passed := false
	_ = h.ServeHTTP(httptest.NewRecorder(), req, caddyhttp.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) error {
		passed = r.Context().Err() == nil
		return nil
	}))
	if !passed {
		t.Fatal("GET /health waited for the gateway to start")
	}
}

// TestBudgetRefusalOnThePlanNamesTheTarget: a request the rate-limit
// stage refuses on its plan is recorded with the plan's target and
// stream flag, as a call the proxy refuses is.
func TestBudgetRefusalOnThePlanNamesTheTarget(t *testing.T) {
	c := pricedCost(t)
	bs := budgetService(t, map[budgets.Key]float64{{UserPath: "/team", Period: budgets.Daily}: c / 2}, false)
	bs.Charge("/team", c, time.Now())
	_, px := cacheCapSetup(t)
	info := reqinfo.New()
	info.UserPath = "/team"
	body := `{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	req := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req = req.WithContext(reqinfo.With(req.Context(), info))
	if p := px.Plan(req); !p.Settled() {
		t.Fatalf("plan %+v", p)
	}
	rec := httptest.NewRecorder()
	_, ok := admitBudget(bs, budgetAtModel, nil, rec, req, info)
	if ok || rec.Code != 429 {
		t.Fatalf("admitted %v, %d", ok, rec.Code)
	}
	if info.ProviderName != "openai" || info.ProviderType != "openai" || info.ResolvedModel != "gpt-4o-mini" || !info.Stream {
		t.Fatalf("record: provider %q/%q model %q stream %v", info.ProviderName, info.ProviderType, info.ResolvedModel, info.Stream)
	}
}

// TestUnroutedPlanIsLeftToTheRoutingStage: a plan made before the
// virtual-model stage for a name that is a virtual model is not settled:
// the cache and the budget decision leave it to the plan made later.
func TestUnroutedPlanIsLeftToTheRoutingStage(t *testing.T) {
	p := &reqinfo.Plan{Requested: "fast", Unrouted: true}
	if p.Settled() {
		t.Fatal("an unrouted plan is settled")
	}
	info := reqinfo.New()
	info.SetPlan(&reqinfo.Plan{Requested: "gpt-4o-mini", Unrouted: true,
		Target: reqinfo.Target{Provider: "openai", ProviderType: "openai", Model: "gpt-4o-mini"}})
	c := pricedCost(t)
	bs := budgetService(t, map[budgets.Key]float64{{UserPath: "/", Period: budgets.Daily}: c / 2}, false)
	bs.Charge("/", c, time.Now())
	req := httptest.NewRequest("POST", "/v1/chat/completions", nil)
	req = req.WithContext(reqinfo.With(req.Context(), info))
	if _, ok := admitBudget(bs, budgetAtModel, nil, httptest.NewRecorder(), req, info); !ok || info.BudgetExceeded == nil {
		t.Fatalf("an unrouted plan was refused here (ok %v) or the verdict not recorded", ok)
	}
}
