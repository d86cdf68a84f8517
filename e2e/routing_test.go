package e2e

// Virtual models, failover and model access against fake upstreams.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// routeUpstream is a fake OpenAI-compatible upstream listing models and
// answering chat completions; fail, when set, answers a request instead
// (return false to answer normally).
type routeUpstream struct {
	srv    *httptest.Server
	models []string
	hits   atomic.Int64
	fail   func(w http.ResponseWriter, r *http.Request) bool
}

func newRouteUpstream(t *testing.T, models ...string) *routeUpstream {
	u := &routeUpstream{models: models}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/models") {
			var data []string
			for _, m := range u.models {
				data = append(data, fmt.Sprintf(`{"id":%q,"object":"model","created":1,"owned_by":"x"}`, m))
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"object":"list","data":[%s]}`, strings.Join(data, ","))
			return
		}
		u.hits.Add(1)
		if u.fail != nil && u.fail(w, r) {
			return
		}
		var req struct {
			Model  string `json:"model"`
			Stream bool   `json:"stream"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		if req.Stream {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":%q,\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n", req.Model)
			fmt.Fprint(w, "data: [DONE]\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`, req.Model)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

// routingGateway starts a gateway with providers a and b (and c when
// given) over the upstreams and the YAML configuration yaml.
func routingGateway(t *testing.T, yaml string, ups map[string]*routeUpstream, extra ...string) *gateway {
	t.Helper()
	clearEnv(t)
	block := "master_key " + masterKey + "\nconfig_file " + writeFile(t, "routing.yaml", yaml) + "\n"
	for _, name := range []string{"a", "b", "c"} {
		if u := ups[name]; u != nil {
			block += providerBlock(name, "openai", "sk-up", u.srv.URL+"/v1", extra...)
		}
	}
	g := startGateway(t, block)
	// The inventory lists every provider model whatever the policies.
	poll(t, 10*time.Second, "every provider model in the inventory", func() bool {
		body := string(adminCall(t, g, "GET", "/admin/models", "").Body)
		for name, u := range ups {
			for _, m := range u.models {
				if !strings.Contains(body, `"selector":"`+name+"/"+m+`"`) {
					return false
				}
			}
		}
		return true
	})
	return g
}

// chatModel sends a chat request for model with the headers.
func chatModel(t *testing.T, g *gateway, model, content string, headers ...string) response {
	t.Helper()
	body := fmt.Sprintf(`{"model":%q,"messages":[{"role":"user","content":%q}]}`, model, content)
	return request(t, "POST", g.URL+"/v1/chat/completions", body, append(bearer(masterKey), headers...)...)
}

// TestVirtualModelWeightsAndCost: weights 3:1 split 1,000 requests
// (distinct sessions) 750/250 within 2 %; cost sends every request to the
// cheaper catalog price; one session stays on one target for 20 requests.
func TestVirtualModelWeightsAndCost(t *testing.T) {
	a, b := newRouteUpstream(t, "m1", "gpt-4o"), newRouteUpstream(t, "m2", "gpt-4o-mini")
	g := routingGateway(t, `virtual_models:
  - source: fast
    targets: [{provider: a, model: m1, weight: 3}, {provider: b, model: m2, weight: 1}]
  - source: cheap
    strategy: cost
    targets: [{provider: a, model: gpt-4o}, {provider: b, model: gpt-4o-mini}]
`, map[string]*routeUpstream{"a": a, "b": b})

	served := map[string]int{}
	for i := range 1000 {
		res := chatModel(t, g, "fast", fmt.Sprintf("question %d", i))
		if res.Status != 200 {
			t.Fatalf("request %d: %d %s", i, res.Status, res.Body)
		}
		served[res.Header.Get("X-Modelgate-Provider")]++
	}
	if served["a"] < 735 || served["a"] > 765 || served["a"]+served["b"] != 1000 {
		t.Fatalf("3:1 weights served %v", served)
	}
	if a.hits.Load() != int64(served["a"]) || b.hits.Load() != int64(served["b"]) {
		t.Fatalf("upstream hits a=%d b=%d, headers %v", a.hits.Load(), b.hits.Load(), served)
	}

	for i := range 5 {
		res := chatModel(t, g, "cheap", fmt.Sprint("c", i))
		if res.Status != 200 || res.Header.Get("X-Modelgate-Provider") != "b" || !strings.Contains(string(res.Body), "gpt-4o-mini") {
			t.Fatalf("cost: %d %s %s", res.Status, res.Header.Get("X-Modelgate-Provider"), res.Body)
		}
	}

	first := ""
	for i := range 20 {
		res := chatModel(t, g, "fast", fmt.Sprint("turn ", i), "X-Session-Id", "sess-affine")
		p := res.Header.Get("X-Modelgate-Provider")
		if first == "" {
			first = p
		}
		if res.Status != 200 || p != first {
			t.Fatalf("session moved at request %d: %s then %s", i, first, p)
		}
	}

	// The alias is listed in /v1/models.
	if !listingHas(request(t, "GET", g.URL+"/v1/models", "", bearer(masterKey)...).Body, "fast") {
		t.Fatal("virtual model not listed")
	}
	if res := request(t, "GET", g.URL+"/v1/models/fast", "", bearer(masterKey)...); res.Status != 200 || !strings.Contains(string(res.Body), `"id":"fast"`) {
		t.Fatalf("GET /v1/models/fast: %d %s", res.Status, res.Body)
	}
}

// TestVirtualModelSaturation: a saturated target is skipped (never
// called); with both saturated the client gets 429 with Retry-After and
// the alias stays listed in /v1/models.
func TestVirtualModelSaturation(t *testing.T) {
	a, b := newRouteUpstream(t, "m1"), newRouteUpstream(t, "m2")
	g := routingGateway(t, `virtual_models:
  - source: fast
    session_affinity: false
    targets: [{provider: a, model: m1}, {provider: b, model: m2}]
rate_limits:
  providers:
    - {provider: a, rpm: 1}
    - {provider: b, rpm: 3}
`, map[string]*routeUpstream{"a": a, "b": b})
	for i := range 4 {
		if res := chatModel(t, g, "fast", fmt.Sprint("q", i)); res.Status != 200 {
			t.Fatalf("request %d: %d %s", i, res.Status, res.Body)
		}
	}
	if a.hits.Load() != 1 || b.hits.Load() != 3 {
		t.Fatalf("hits a=%d b=%d, want 1 and 3", a.hits.Load(), b.hits.Load())
	}
	res := chatModel(t, g, "fast", "q5")
	res.ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	expectRetryAfter(t, "all targets saturated", res, 120)
	if a.hits.Load() != 1 || b.hits.Load() != 3 {
		t.Fatal("a saturated upstream was called")
	}
	if m := request(t, "GET", g.URL+"/v1/models", "", bearer(masterKey)...); m.Status != 200 || !listingHas(m.Body, "fast") {
		t.Fatalf("a saturated alias left /v1/models: %d %s", m.Status, m.Body)
	}
}

// TestFailover: an upstream 503, 429 and a timeout move the request to the
// next target (the answer names it, the audit entry has both attempts); a
// 400 does not; a stream that already sent bytes is not retried.
func TestFailover(t *testing.T) {
	a, b, c := newRouteUpstream(t, "m1"), newRouteUpstream(t, "m2"), newRouteUpstream(t, "slow")
	var mode atomic.Value
	mode.Store("503")
	a.fail = func(w http.ResponseWriter, r *http.Request) bool {
		switch mode.Load() {
		case "503":
			http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusServiceUnavailable)
		case "429":
			http.Error(w, `{"error":{"message":"slow down"}}`, http.StatusTooManyRequests)
		case "400":
			http.Error(w, `{"error":{"message":"bad"}}`, http.StatusBadRequest)
		case "cut":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"par\"}}]}\n\n")
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		default:
			return false
		}
		return true
	}
	c.fail = func(w http.ResponseWriter, r *http.Request) bool {
		time.Sleep(2500 * time.Millisecond)
		return false
	}
	g := routingGateway(t, `failover:
  a/m1: [b/m2]
  c/slow: [b/m2]
`, map[string]*routeUpstream{"a": a, "b": b, "c": c}, "timeout 1s")

	for _, m := range []string{"503", "429"} {
		mode.Store(m)
		res := chatModel(t, g, "a/m1", "hello "+m, "X-Request-Id", "fo-"+m)
		if res.Status != 200 || res.Header.Get("X-Modelgate-Provider") != "b" {
			t.Fatalf("after %s: %d %s %s", m, res.Status, res.Header.Get("X-Modelgate-Provider"), res.Body)
		}
	}
	if res := chatModel(t, g, "c/slow", "hello"); res.Status != 200 || res.Header.Get("X-Modelgate-Provider") != "b" {
		t.Fatalf("after a timeout: %d %s", res.Status, res.Body)
	}
	before := b.hits.Load()
	mode.Store("400")
	if res := chatModel(t, g, "a/m1", "bad"); res.Status != 400 {
		t.Fatalf("an upstream 400: %d %s", res.Status, res.Body)
	}
	if b.hits.Load() != before {
		t.Fatal("a 400 failed over")
	}
	mode.Store("cut")
	// The native stream's cut reaches the client as a cut (the gateway
	// aborts the connection); the bytes already sent are not sent again
	// from another target.
	res, err := send("POST", g.URL+"/v1/chat/completions",
		`{"model":"a/m1","stream":true,"messages":[{"role":"user","content":"s"}]}`, bearer(masterKey)...)
	if (err == nil && res.Status != 200) || b.hits.Load() != before {
		t.Fatalf("a cut stream: %v %d %s, b hits %d→%d", err, res.Status, res.Body, before, b.hits.Load())
	}

	entries, _ := auditRecords(t)
	e := one(t, entries, "fo-503")
	if len(e.Data.Attempts) != 2 || e.Data.Attempts[0].Kind != audit.AttemptPrimary || e.Data.Attempts[0].StatusCode != 503 ||
		e.Data.Attempts[1].Kind != audit.AttemptFailover || e.Data.Attempts[1].ProviderName != "b" || !e.Data.Attempts[1].Success {
		t.Fatalf("attempts %+v", e.Data.Attempts)
	}
	if !e.Data.WorkflowFeatures.Failover || e.ProviderName != "b" {
		t.Fatalf("entry provider %q features %+v", e.ProviderName, e.Data.WorkflowFeatures)
	}
	// Each attempt keeps its own outcome; the failover object names the
	// model the request switched to.
	if at := e.Data.Attempts[0]; at.ErrorType != "provider_error" || at.ProviderType != "openai" || at.ErrorMessage == "" {
		t.Errorf("primary attempt %+v", at)
	}
	if e.Data.Failover == nil || e.Data.Failover.TargetModel != "m2" {
		t.Errorf("failover %+v", e.Data.Failover)
	}
	// The 429 attempt is a rate limit's, not the 503's outcome.
	if at := one(t, entries, "fo-429").Data.Attempts[0]; at.StatusCode != 429 || at.ErrorType != "rate_limit_error" {
		t.Errorf("429 attempt %+v", at)
	}
}

// TestModelAccessPolicies: a policy limiting a/* to /team hides a's models
// from /other (and answers 403 there), not from /team; /admin/models shows
// the access of every model.
func TestModelAccessPolicies(t *testing.T) {
	a, b := newRouteUpstream(t, "m1"), newRouteUpstream(t, "m2", "off")
	g := routingGateway(t, `virtual_models:
  - source: "a/*"
    user_paths: [/team]
  - source: b/off
    enabled: false
`, map[string]*routeUpstream{"a": a, "b": b})
	list := func(path string) []byte {
		return request(t, "GET", g.URL+"/v1/models", "", append(bearer(masterKey), userPathHeader, path)...).Body
	}
	if body := list("/other"); listingHas(body, "m1") || !listingHas(body, "m2") || listingHas(body, "off") {
		t.Fatalf("/other sees %s", body)
	}
	if body := list("/team/app"); !listingHas(body, "m1") {
		t.Fatalf("/team/app sees %s", body)
	}
	chatModel(t, g, "m1", "x", userPathHeader, "/other").ExpectErr(t, 403, "invalid_request_error", "model_access_denied")
	if res := chatModel(t, g, "m1", "x", userPathHeader, "/team"); res.Status != 200 {
		t.Fatalf("/team: %d %s", res.Status, res.Body)
	}
	if a.hits.Load() != 1 {
		t.Fatalf("a called %d times", a.hits.Load())
	}

	var rows []struct {
		ProviderName string `json:"provider_name"`
		ProviderType string `json:"provider_type"`
		Selector     string `json:"selector"`
		Model        struct {
			ID string `json:"id"`
		} `json:"model"`
		Access struct {
			EffectiveEnabled bool     `json:"effective_enabled"`
			UserPaths        []string `json:"user_paths"`
			Override         *struct {
				Source string `json:"source"`
			} `json:"override"`
		} `json:"access"`
	}
	waitProvidersListed(t)
	res := adminCall(t, g, "GET", "/admin/models", "")
	if err := json.Unmarshal(res.Body, &rows); err != nil || len(rows) != 3 {
		t.Fatalf("/admin/models: %v %s", err, res.Body)
	}
	for _, r := range rows {
		switch r.Selector {
		case "a/m1":
			if !r.Access.EffectiveEnabled || len(r.Access.UserPaths) != 1 || r.Access.Override == nil || r.Access.Override.Source != "a/*" || r.ProviderType != "openai" {
				t.Errorf("a/m1 row %+v", r)
			}
		case "b/off":
			if r.Access.EffectiveEnabled {
				t.Errorf("b/off row %+v", r)
			}
		case "b/m2":
			if !r.Access.EffectiveEnabled || r.Access.Override != nil || r.Model.ID != "m2" {
				t.Errorf("b/m2 row %+v", r)
			}
		}
	}
	adminCall(t, g, "GET", "/admin/models?category=nope", "").ExpectErr(t, 400, "invalid_request_error", "invalid_value")
}

// TestVirtualModelAdmin: stored rows are written, renamed and deleted
// through the admin API and route at once; managed rows answer 409; a
// typo in a managed target's provider aborts startup.
func TestVirtualModelAdmin(t *testing.T) {
	a, b := newRouteUpstream(t, "m1"), newRouteUpstream(t, "m2")
	g := routingGateway(t, `virtual_models:
  - source: managed
    targets: [{provider: a, model: m1}]
`, map[string]*routeUpstream{"a": a, "b": b})
	adminCall(t, g, "PUT", "/admin/virtual-models", `{"source":"managed","targets":[{"provider":"b","model":"m2"}]}`).
		ExpectErr(t, 409, "invalid_request_error", "virtual_model_managed")
	adminCall(t, g, "DELETE", "/admin/virtual-models/managed", "").ExpectErr(t, 409, "invalid_request_error", "virtual_model_managed")
	if e := adminCall(t, g, "PUT", "/admin/virtual-models", `{"source":"x","targets":[{"provider":"zz","model":"m2"}]}`).
		ExpectErr(t, 400, "invalid_request_error", "invalid_value"); orNull(e.Param) != "targets[0].provider" {
		t.Errorf("unknown provider: param %s", orNull(e.Param))
	}
	// Each refusal names its field, as the client wrote it.
	for body, param := range map[string]string{
		`{"source":"x","targets":"m2"}`:                                        "targets",
		`{"source":"x","slowdown":20}`:                                         "slowdown",
		`{"source":"x","strategy":"random"}`:                                   "strategy",
		`{"source":"x","targets":[{"provider":"a","model":"m1","weight":-1}]}`: "targets[0].weight",
		`{"source":"x","user_paths":["/a/../b"]}`:                              "user_paths[0]",
		`{"source":"x","targets":[{"provider":"a","model":5}]}`:                "targets[0].model",
	} {
		res := adminCall(t, g, "PUT", "/admin/virtual-models", body)
		e := res.Err(t)
		if res.Status != 400 || orNull(e.Param) != param || strings.Contains(e.Message, "vmodels.") || strings.HasPrefix(e.Message, "invalid: ") {
			t.Errorf("%s: param %s, message %q", body, orNull(e.Param), e.Message)
		}
	}
	adminCall(t, g, "PUT", "/admin/failover", `{"primary_model":"m1","targets":[]}`).ExpectErr(t, 400, "invalid_request_error", "invalid_value")
	if res := adminCall(t, g, "PUT", "/admin/virtual-models", `{"source":"mine","targets":[{"provider":"b","model":"m2"}]}`); res.Status != 200 {
		t.Fatalf("put: %d %s", res.Status, res.Body)
	}
	if res := chatModel(t, g, "mine", "x"); res.Status != 200 || res.Header.Get("X-Modelgate-Provider") != "b" {
		t.Fatalf("stored alias: %d %s", res.Status, res.Body)
	}
	if res := adminCall(t, g, "PUT", "/admin/virtual-models", `{"source":"renamed","old_source":"mine","targets":[{"provider":"a","model":"m1"}]}`); res.Status != 200 {
		t.Fatalf("rename: %d %s", res.Status, res.Body)
	}
	if res := chatModel(t, g, "mine", "x"); res.Status != 404 {
		t.Fatalf("old source after the rename: %d %s", res.Status, res.Body)
	}
	var l struct {
		VirtualModels []struct {
			Source  string `json:"source"`
			Managed bool   `json:"managed"`
		} `json:"virtual_models"`
	}
	if err := json.Unmarshal(adminCall(t, g, "GET", "/admin/virtual-models", "").Body, &l); err != nil || len(l.VirtualModels) != 2 ||
		!l.VirtualModels[0].Managed || l.VirtualModels[1].Source != "renamed" {
		t.Fatalf("list %+v %v", l, err)
	}
	if res := adminCall(t, g, "DELETE", "/admin/virtual-models/renamed", ""); res.Status != 204 {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	if res := adminCall(t, g, "PUT", "/admin/failover", `{"primary_model":"a/m1","targets":["b/m2"]}`); res.Status != 200 {
		t.Fatalf("failover put: %d %s", res.Status, res.Body)
	}
	if !strings.Contains(string(adminCall(t, g, "GET", "/admin/failover", "").Body), `"primary_model":"a/m1"`) {
		t.Fatal("failover route not listed")
	}
	if res := adminCall(t, g, "DELETE", "/admin/failover/a%2Fm1", ""); res.Status != 204 {
		t.Fatalf("failover delete: %d %s", res.Status, res.Body)
	}

	bad := writeFile(t, "bad.yaml", "virtual_models:\n  - source: typo\n    targets: [{provider: opnai, model: m}]\n")
	err := loadFails(t, "master_key "+masterKey+"\nconfig_file "+bad+"\n"+providerBlock("a", "openai", "sk", a.srv.URL+"/v1"))
	if err == nil || !strings.Contains(err.Error(), `unknown provider "opnai" (configured: a)`) {
		t.Fatalf("typo: %v", err)
	}
}

// TestFailoverUnderSpentBudget: a spent budget admits a request for an
// unpriced model, but not its failover to a priced one: that call is
// refused before it is made, as a priced request is, and a failover to
// an unpriced model is still tried.
func TestFailoverUnderSpentBudget(t *testing.T) {
	a, b, c := newRouteUpstream(t, "m1"), newRouteUpstream(t, "gpt-4o-mini"), newRouteUpstream(t, "m3")
	a.fail = func(w http.ResponseWriter, r *http.Request) bool {
		http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusServiceUnavailable)
		return true
	}
	t.Setenv("BUDGETS_ENABLED", "true")
	g := routingGateway(t, `failover:
  a/m1: [b/gpt-4o-mini]
  c/m3: [b/gpt-4o-mini]
`, map[string]*routeUpstream{"a": a, "b": b, "c": c})
	if res := adminCall(t, g, "PUT", "/admin/budgets/%2Ffo/daily", `{"amount":0}`); res.Status != 200 {
		t.Fatalf("budget: %d %s", res.Status, res.Body)
	}
	chatModel(t, g, "b/gpt-4o-mini", "priced", userPathHeader, "/fo").ExpectErr(t, 429, "rate_limit_error", "budget_exceeded")
	before := b.hits.Load()
	res := chatModel(t, g, "a/m1", "fails over", userPathHeader, "/fo", "X-Request-Id", "fo-budget")
	res.ExpectErr(t, 429, "rate_limit_error", "budget_exceeded")
	if b.hits.Load() != before {
		t.Fatal("the priced failover target was called under a spent budget")
	}
	// An unpriced model that answers is admitted.
	if res := chatModel(t, g, "c/m3", "unpriced", userPathHeader, "/fo"); res.Status != 200 || b.hits.Load() != before {
		t.Fatalf("unpriced model: %d %s", res.Status, res.Body)
	}
	entries, _ := auditRecords(t)
	// The attempts end where the request did: the failover target,
	// refused, not called.
	e := one(t, entries, "fo-budget")
	if len(e.Data.Attempts) != 2 || e.Data.Attempts[0].StatusCode != 503 || e.StatusCode != 429 ||
		e.Data.Attempts[1].ErrorCode != "budget_exceeded" || e.Data.Attempts[1].Success ||
		e.Data.Failover == nil || e.Data.Failover.TargetModel != "gpt-4o-mini" {
		t.Fatalf("entry %d attempts %+v failover %+v", e.StatusCode, e.Data.Attempts, e.Data.Failover)
	}
}
