package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/modelgate/modelgate/budgets"
	"github.com/modelgate/modelgate/catalog"
	"github.com/modelgate/modelgate/limits"
	"github.com/modelgate/modelgate/reqinfo"
	"github.com/modelgate/modelgate/routes"
	"github.com/modelgate/modelgate/tokens"
)

// pricedUsage is the usage every priced test request reports.
var pricedUsage = tokens.Usage{InputTokens: 1000, OutputTokens: 1000, TotalTokens: 2000}

// pricedCost is what pricedUsage costs on openai/gpt-4o-mini.
func pricedCost(t testing.TB) float64 {
	t.Helper()
	b, ok := catalog.Price("openai", "gpt-4o-mini", pricedUsage)
	if !ok || b.Total <= 0 {
		t.Fatalf("gpt-4o-mini has no price: %+v", b)
	}
	return b.Total
}

// servedBy answers 200 as the proxy would, recording model and usage.
func servedBy(providerType, model string) caddyhttp.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		info := reqinfo.From(r.Context())
		info.ProviderType, info.ResolvedModel = providerType, model
		info.SetUsage(pricedUsage)
		w.WriteHeader(200)
		return nil
	}
}

// budgetService returns a service with the manual budgets given.
func budgetService(t testing.TB, put map[budgets.Key]float64, perChild bool) *budgets.Service {
	t.Helper()
	s, err := budgets.New(budgets.Options{QuotaTemplates: true})
	if err != nil {
		t.Fatal(err)
	}
	for k, amount := range put {
		if _, err := s.Put(k, amount, perChild); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// budgetServe runs one request through serveLimited.
func budgetServe(bs *budgets.Service, e *limits.Engine, method, path, userPath string, cacheHit bool, next caddyhttp.Handler) *httptest.ResponseRecorder {
	info := reqinfo.New()
	info.UserPath, info.CacheHit = userPath, cacheHit
	req := httptest.NewRequest(method, path, nil)
	req = req.WithContext(reqinfo.With(req.Context(), info))
	rec := httptest.NewRecorder()
	rt, found := routes.Lookup(method, path)
	_ = serveLimited(bs, found && rt.Budgeted, e, classify(rt, found), rec, req, next)
	return rec
}

// TestBudgetEnforcedAndCharged: requests pass until the spend reaches the
// amount, then 429 budget_exceeded with Retry-After the seconds to the
// day's end (Anthropic envelope on /v1/messages); a sibling path, cache
// hits and unpriced models are neither refused nor charged; a refused
// request counts against no rate limit.
func TestBudgetEnforcedAndCharged(t *testing.T) {
	c := pricedCost(t)
	bs := budgetService(t, map[budgets.Key]float64{{UserPath: "/team", Period: budgets.Daily}: 1.5 * c}, false)
	e := rlEngine(t, limits.Rule{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodMinute, MaxRequests: 100})
	priced := servedBy("openai", "gpt-4o-mini")
	for i := range 2 {
		if rec := budgetServe(bs, e, "POST", "/v1/chat/completions", "/team/app", false, priced); rec.Code != 200 {
			t.Fatalf("request %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	// Cache hits and unpriced models pass (also over budget) and cost nothing.
	rec := budgetServe(bs, e, "POST", "/v1/chat/completions", "/team", true, priced)
	if rec.Code != 200 {
		t.Fatalf("cache hit %d", rec.Code)
	}
	if got := bs.List()[0].Spent; got != 2*c {
		t.Fatalf("spent %v, want %v", got, 2*c)
	}
	// Not budgeted routes pass.
	if rec := budgetServe(bs, e, "POST", "/v1/messages/count_tokens", "/team", false, caddyhttp.HandlerFunc(ok200)); rec.Code != 200 {
		t.Fatalf("count_tokens %d", rec.Code)
	}
	called := false
	for _, path := range []string{"/v1/chat/completions", "/v1/messages"} {
		rec := budgetServe(bs, e, "POST", path, "/team/app", false, caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error {
			called = true
			return nil
		}))
		if rec.Code != 429 || called {
			t.Fatalf("%s over budget: %d (upstream called %v)", path, rec.Code, called)
		}
		now := time.Now().UTC()
		end := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC)
		ra, err := strconv.Atoi(rec.Header().Get("Retry-After"))
		if want := int(end.Sub(now).Seconds()); err != nil || ra < want-2 || ra > want+2 {
			t.Fatalf("%s Retry-After %q, want about %d", path, rec.Header().Get("Retry-After"), want)
		}
		var body struct {
			Type  string `json:"type"`
			Error struct {
				Type string  `json:"type"`
				Code *string `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Error.Type != "rate_limit_error" {
			t.Fatalf("%s body %s", path, rec.Body)
		}
		if path == "/v1/messages" && body.Type != "error" {
			t.Fatalf("messages envelope %s", rec.Body)
		}
		if path == "/v1/chat/completions" && (body.Error.Code == nil || *body.Error.Code != budgets.CodeBudgetExceeded) {
			t.Fatalf("code %s", rec.Body)
		}
	}
	// Only the two admitted requests (and the cache hit, which the
	// rate-limit stage passes uncounted) reached the rate limits.
	for _, st := range e.StatusFor("/team") {
		if st.Usage.RequestsUsed != 2 {
			t.Fatalf("rate limit counted %d requests", st.Usage.RequestsUsed)
		}
	}
	if rec := budgetServe(bs, e, "POST", "/v1/chat/completions", "/team-alpha", false, priced); rec.Code != 200 {
		t.Fatalf("/team-alpha %d", rec.Code)
	}
	if _, err := bs.ResetOne(budgets.Key{UserPath: "/team", Period: budgets.Daily}); err != nil {
		t.Fatal(err)
	}
	if rec := budgetServe(bs, e, "POST", "/v1/chat/completions", "/team", false, servedBy("openai", "no-such-model")); rec.Code != 200 {
		t.Fatalf("after reset %d", rec.Code)
	}
	if got := bs.List()[0].Spent; got != 0 {
		t.Fatalf("an unpriced model was charged %v", got)
	}
}

// TestBudgetPerChild: a template keeps the children apart.
func TestBudgetPerChild(t *testing.T) {
	c := pricedCost(t)
	bs := budgetService(t, map[budgets.Key]float64{{UserPath: "/customers", Period: budgets.Hourly}: c / 2}, true)
	priced := servedBy("openai", "gpt-4o-mini")
	if rec := budgetServe(bs, nil, "POST", "/v1/responses", "/customers/a/app", false, priced); rec.Code != 200 {
		t.Fatalf("a: %d", rec.Code)
	}
	if rec := budgetServe(bs, nil, "POST", "/v1/responses", "/customers/a", false, priced); rec.Code != 429 {
		t.Fatalf("a again: %d", rec.Code)
	}
	if rec := budgetServe(bs, nil, "POST", "/v1/responses", "/customers/b", false, priced); rec.Code != 200 {
		t.Fatalf("b: %d", rec.Code)
	}
}

// BenchmarkBudgetHandler is the admitted path of the rate-limit stage on
// a budgeted route, without budgets and with 1,000 budgets (a per_child
// template with 10,000 active children among them); compare allocs/op.
func BenchmarkBudgetHandler(b *testing.B) {
	reqs := make([]*http.Request, 10000)
	for i := range reqs {
		info := reqinfo.New()
		info.UserPath = fmt.Sprintf("/customers/c%d/app", i)
		r := httptest.NewRequest("POST", "/v1/chat/completions", nil)
		reqs[i] = r.WithContext(reqinfo.With(r.Context(), info))
	}
	e := rlEngine(b, limits.Rule{Scope: limits.ScopeUserPath, Subject: "/", Period: limits.PeriodMinute, MaxRequests: 1 << 50})
	w := &headerWriter{h: http.Header{}}
	next := caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { return nil })
	bs, err := budgets.New(budgets.Options{QuotaTemplates: true})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := bs.Put(budgets.Key{UserPath: "/customers", Period: budgets.Daily}, 1e9, true); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 999; i++ {
		if _, err := bs.Put(budgets.Key{UserPath: fmt.Sprintf("/team%d", i), Period: budgets.Monthly}, 1e9, false); err != nil {
			b.Fatal(err)
		}
	}
	now := time.Now()
	for i := range reqs {
		bs.Charge(fmt.Sprintf("/customers/c%d", i), 0.001, now)
	}
	for _, c := range []struct {
		name string
		bs   *budgets.Service
	}{{"none", nil}, {"budgets", bs}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				r := reqs[i%len(reqs)]
				if err := serveLimited(c.bs, true, e, routes.CountRequestAndSlot, w, r, next); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
