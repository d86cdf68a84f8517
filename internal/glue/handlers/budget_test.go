package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/gateway/proxy"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
)

// pricedUsage is the usage every priced test request reports.
var pricedUsage = catalog.Usage{InputTokens: 1000, OutputTokens: 1000, TotalTokens: 2000}

// pricedCost is what pricedUsage costs on openai/gpt-4o-mini, as spend
// counts it: rounded to the billionth (catalog.Nanos).
func pricedCost(t testing.TB) float64 {
	t.Helper()
	b, ok := catalog.Price("openai", "gpt-4o-mini", pricedUsage)
	if !ok || b.Total <= 0 {
		t.Fatalf("gpt-4o-mini has no price: %+v", b)
	}
	return catalog.NanosOf(b.Total).Float()
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

// budgetUpstream is a provider answering every chat with pricedUsage,
// counting its calls.
type budgetUpstream struct {
	name, typ string
	calls     atomic.Int64
}

func (p *budgetUpstream) Name() string                        { return p.name }
func (p *budgetUpstream) Type() string                        { return p.typ }
func (p *budgetUpstream) StreamUsageOption() bool             { return true }
func (p *budgetUpstream) Shape() providers.Shape              { return providers.ShapeChat }
func (p *budgetUpstream) Supports(ep providers.Endpoint) bool { return ep == providers.EndpointChat }
func (p *budgetUpstream) ListModels(context.Context) ([]providers.Model, error) {
	return nil, nil
}
func (p *budgetUpstream) Do(_ context.Context, _ providers.Endpoint, model string, _ []byte) (*http.Response, error) {
	p.calls.Add(1)
	body := `{"id":"c1","object":"chat.completion","created":1,"model":"` + model + `","choices":[{"index":0,` +
		`"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":1000,"completion_tokens":1000,"total_tokens":2000}}`
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body))}, nil
}

// budgetProxy is the real proxy behind the rate-limit stage, over a priced
// openai provider serving gpt-4o-mini and an unpriced (self-hosted) ollama
// provider serving llama3; it returns the two providers too.
func budgetProxy(t testing.TB) (next caddyhttp.Handler, openai, ollama *budgetUpstream) {
	t.Helper()
	openai, ollama = &budgetUpstream{name: "openai", typ: "openai"}, &budgetUpstream{name: "local", typ: "ollama"}
	reg := providers.NewRegistry([]providers.Entry{
		{Provider: openai, Models: []string{"gpt-4o-mini"}, Allowlist: true},
		{Provider: ollama, Models: []string{"llama3"}, Allowlist: true},
	}, providers.RegistryOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	reg.Start(ctx)
	<-reg.Ready()
	svc := &proxy.Service{Registry: reg, MaxBodyBytes: 1 << 20}
	return caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		svc.ServeHTTP(w, r)
		return nil
	}), openai, ollama
}

// modelBody is a request body for path asking for model.
func modelBody(path, model string) string {
	switch path {
	case "/v1/messages":
		return `{"model":"` + model + `","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`
	case "/v1/responses":
		return `{"model":"` + model + `","input":"hi"}`
	}
	return `{"model":"` + model + `","messages":[{"role":"user","content":"hi"}]}`
}

// budgetServe runs one request through serveLimited, as the rate-limit
// stage does for its route.
func budgetServe(bs *budgets.Service, e *limits.Engine, method, path, userPath, body string, cacheHit bool, next caddyhttp.Handler) *httptest.ResponseRecorder {
	info := reqinfo.New()
	info.UserPath, info.CacheHit = userPath, cacheHit
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req = req.WithContext(reqinfo.With(req.Context(), info))
	rec := httptest.NewRecorder()
	rt, found := routes.Lookup(method, path)
	_ = serveLimited(bs, budgetCheckFor(rt), e, classify(rt, found), rec, req, next)
	return rec
}

// checkBudgetExceeded fails unless rec is the 429 budget_exceeded answer,
// with Retry-After the seconds to the day's end, in the envelope of path.
func checkBudgetExceeded(t *testing.T, path string, rec *httptest.ResponseRecorder) {
	t.Helper()
	if rec.Code != 429 {
		t.Fatalf("%s over budget: %d %s", path, rec.Code, rec.Body)
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
	anthropic := strings.HasPrefix(path, "/v1/messages")
	if anthropic && body.Type != "error" {
		t.Fatalf("messages envelope %s", rec.Body)
	}
	if !anthropic && (body.Error.Code == nil || *body.Error.Code != budgets.CodeBudgetExceeded) {
		t.Fatalf("%s code %s", path, rec.Body)
	}
}

// TestBudgetEnforcedAndCharged: requests pass until the spend reaches the
// amount, then 429 budget_exceeded with Retry-After the seconds to the
// day's end (Anthropic envelope on /v1/messages) and no upstream call; a
// sibling path, cache hits and unpriced models are neither refused nor
// charged; a refused request counts against no rate limit.
func TestBudgetEnforcedAndCharged(t *testing.T) {
	c := pricedCost(t)
	bs := budgetService(t, map[budgets.Key]float64{{UserPath: "/team", Period: budgets.Daily}: 1.5 * c}, false)
	e := rlEngine(t, limits.Rule{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodMinute, MaxRequests: 100})
	next, openai, ollama := budgetProxy(t)
	chat := modelBody("/v1/chat/completions", "gpt-4o-mini")
	for i := range 2 {
		if rec := budgetServe(bs, e, "POST", "/v1/chat/completions", "/team/app", chat, false, next); rec.Code != 200 {
			t.Fatalf("request %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	// Cache hits pass (also over budget) and cost nothing.
	rec := budgetServe(bs, e, "POST", "/v1/chat/completions", "/team", chat, true, servedBy("openai", "gpt-4o-mini"))
	if rec.Code != 200 {
		t.Fatalf("cache hit %d", rec.Code)
	}
	if got := bs.List()[0].Spent; float64(got) != 2*c {
		t.Fatalf("spent %v, want %v", got, 2*c)
	}
	// Not budgeted routes pass.
	if rec := budgetServe(bs, e, "POST", "/v1/messages/count_tokens", "/team", "", false, caddyhttp.HandlerFunc(ok200)); rec.Code != 200 {
		t.Fatalf("count_tokens %d", rec.Code)
	}
	// A priced model is refused once its model is resolved, before any
	// upstream call.
	for _, path := range []string{"/v1/chat/completions", "/v1/messages", "/v1/responses"} {
		rec := budgetServe(bs, e, "POST", path, "/team/app", modelBody(path, "gpt-4o-mini"), false, next)
		checkBudgetExceeded(t, path, rec)
		if n := openai.calls.Load(); n != 2 {
			t.Fatalf("%s over budget: upstream called (%d calls)", path, n)
		}
	}
	// A batch submission (no model resolved by the proxy) is refused by
	// the stage itself.
	called := false
	rec = budgetServe(bs, e, "POST", "/v1/batches", "/team/app", `{"input_file_id":"f1"}`, false, caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error {
		called = true
		return nil
	}))
	if checkBudgetExceeded(t, "/v1/batches", rec); called {
		t.Fatal("batch over budget: next called")
	}
	// So is a message batch, in Anthropic's envelope.
	rec = budgetServe(bs, e, "POST", "/v1/messages/batches", "/team/app", `{"requests":[]}`, false, caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error {
		called = true
		return nil
	}))
	if checkBudgetExceeded(t, "/v1/messages/batches", rec); called {
		t.Fatal("message batch over budget: next called")
	}
	// Only the two admitted requests (and the cache hit, which the
	// rate-limit stage passes uncounted) reached the rate limits.
	for _, st := range e.StatusFor("/team") {
		if st.Usage.RequestsUsed != 2 {
			t.Fatalf("rate limit counted %d requests", st.Usage.RequestsUsed)
		}
	}
	// An unpriced model is admitted over budget, reaches its upstream and
	// costs nothing.
	for _, path := range []string{"/v1/chat/completions", "/v1/messages"} {
		if rec := budgetServe(bs, e, "POST", path, "/team/app", modelBody(path, "llama3"), false, next); rec.Code != 200 {
			t.Fatalf("%s unpriced over budget: %d %s", path, rec.Code, rec.Body)
		}
	}
	if n := ollama.calls.Load(); n != 2 {
		t.Fatalf("unpriced upstream called %d times, want 2", n)
	}
	if got := bs.List()[0].Spent; float64(got) != 2*c {
		t.Fatalf("spent %v after unpriced requests, want %v", got, 2*c)
	}
	if rec := budgetServe(bs, e, "POST", "/v1/chat/completions", "/team-alpha", chat, false, next); rec.Code != 200 {
		t.Fatalf("/team-alpha %d", rec.Code)
	}
	if _, err := bs.ResetOne(budgets.Key{UserPath: "/team", Period: budgets.Daily}); err != nil {
		t.Fatal(err)
	}
	if rec := budgetServe(bs, e, "POST", "/v1/chat/completions", "/team", "", false, servedBy("openai", "no-such-model")); rec.Code != 200 {
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
	next, _, _ := budgetProxy(t)
	body := modelBody("/v1/responses", "gpt-4o-mini")
	if rec := budgetServe(bs, nil, "POST", "/v1/responses", "/customers/a/app", body, false, next); rec.Code != 200 {
		t.Fatalf("a: %d %s", rec.Code, rec.Body)
	}
	if rec := budgetServe(bs, nil, "POST", "/v1/responses", "/customers/a", body, false, next); rec.Code != 429 {
		t.Fatalf("a again: %d", rec.Code)
	}
	if rec := budgetServe(bs, nil, "POST", "/v1/responses", "/customers/b", body, false, next); rec.Code != 200 {
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
				if err := serveLimited(c.bs, budgetAtModel, e, routes.CountRequestAndSlot, w, r, next); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestAbortedStreamChargedAndReleased: a stream the proxy aborts
// (panicking with http.ErrAbortHandler once the upstream broke it off)
// after its usage was reported is charged to the budget and releases its
// concurrency slot, and the panic goes on to net/http.
func TestAbortedStreamChargedAndReleased(t *testing.T) {
	c := pricedCost(t)
	bs := budgetService(t, map[budgets.Key]float64{{UserPath: "/team", Period: budgets.Daily}: 10 * c}, false)
	e := rlEngine(t, limits.Rule{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodConcurrent, MaxRequests: 1})
	var panicked any
	func() {
		defer func() { panicked = recover() }()
		budgetServe(bs, e, "POST", "/v1/chat/completions", "/team", modelBody("/v1/chat/completions", "gpt-4o-mini"), false,
			caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
				_ = servedBy("openai", "gpt-4o-mini")(w, r)
				panic(http.ErrAbortHandler)
			}))
	}()
	if panicked != http.ErrAbortHandler {
		t.Fatalf("panicked with %v, want http.ErrAbortHandler passed on", panicked)
	}
	if got := bs.List()[0].Spent; float64(got) != c {
		t.Errorf("spent %v, want %v", got, c)
	}
	if n := inFlight(t, e, "/team"); n != 0 {
		t.Errorf("in flight %d after an aborted stream", n)
	}
}

// plannedServe is budgetServe for a request whose plan resolved to
// openai/gpt-4o-mini before the rate-limit stage, as proxy.Service.Plan
// makes it: a priced request reserves its worst case there.
func plannedServe(bs *budgets.Service, body string, next caddyhttp.Handler) *httptest.ResponseRecorder {
	info := reqinfo.New()
	info.UserPath = "/team"
	info.SetBody([]byte(body))
	info.SetPlan(&reqinfo.Plan{Requested: "gpt-4o-mini", Target: reqinfo.Target{Provider: "openai", ProviderType: "openai", Model: "gpt-4o-mini"}})
	req := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(body))
	req = req.WithContext(reqinfo.With(req.Context(), info))
	rec := httptest.NewRecorder()
	_ = serveLimited(bs, budgetAtModel, nil, routes.CountRequestAndSlot, rec, req, next)
	return rec
}

// TestReservationHeldAndSettled: a priced request holds its worst-case
// cost while it runs and is charged its real cost when it ends; one
// whose worst case does not fit is refused without being served; one
// aborted before any usage (its client went away) gives its reservation
// back and is charged nothing.
func TestReservationHeldAndSettled(t *testing.T) {
	c := pricedCost(t)
	body := `{"model":"gpt-4o-mini","max_tokens":1000,"messages":[{"role":"user","content":"hi"}]}`
	scanned := reqinfo.New()
	scanned.SetBody([]byte(body))
	worst, ok := proxy.WorstCaseCost(reqinfo.Target{ProviderType: "openai", Model: "gpt-4o-mini"}, scanned.Body())
	if !ok || worst <= 0 {
		t.Fatalf("worst case %v %v", worst, ok)
	}
	k := budgets.Key{UserPath: "/team", Period: budgets.Daily}
	bs := budgetService(t, map[budgets.Key]float64{k: c + worst.Float()}, false)
	reserved := func() float64 {
		v, err := bs.Tracker().Reserved(k, "/team")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	var during float64
	rec := plannedServe(bs, body, caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		during = reserved()
		return servedBy("openai", "gpt-4o-mini")(w, r)
	}))
	if rec.Code != 200 || during != worst.Float() {
		t.Fatalf("status %d, reserved while running %v, want %v", rec.Code, during, worst.Float())
	}
	if got := bs.List()[0].Spent; float64(got) != c || reserved() != 0 {
		t.Fatalf("spent %v (want %v), reserved %v after the request", got, c, reserved())
	}
	// c spent, worst left: fits exactly once more; a dearer worst case
	// (no max_tokens: the model's largest answer) does not.
	served := false
	rec = plannedServe(bs, `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`,
		caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { served = true; return nil }))
	if rec.Code != 429 || served || !strings.Contains(rec.Body.String(), "worst-case cost") {
		t.Fatalf("over the budget: %d served %v %s", rec.Code, served, rec.Body)
	}
	var panicked any
	func() {
		defer func() { panicked = recover() }()
		plannedServe(bs, body, caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error {
			if reserved() != worst.Float() {
				t.Errorf("reserved %v while running", reserved())
			}
			panic(http.ErrAbortHandler) // the client went away mid-stream
		}))
	}()
	if panicked != http.ErrAbortHandler {
		t.Fatalf("panicked with %v", panicked)
	}
	if got := bs.List()[0].Spent; float64(got) != c || reserved() != 0 {
		t.Fatalf("after a disconnect: spent %v (want %v), reserved %v", got, c, reserved())
	}
}
