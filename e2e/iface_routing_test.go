package e2e

// Virtual models, failover, model access and the response cache as a
// client of the public HTTP API sees them.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestIfaceFailoverTriggers: failover is tried after an upstream 500, 502,
// a redirect (never followed) or an unreachable upstream, and for a
// stream whose primary fails before its first byte; never after a 401,
// 403, 404 or 422, whose status the client gets as the upstream sent it.
// Every try is an attempts[] element of kind primary or failover.
func TestIfaceFailoverTriggers(t *testing.T) {
	a, b := newRouteUpstream(t, "m1"), newRouteUpstream(t, "m2")
	var status, elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	a.fail = func(w http.ResponseWriter, r *http.Request) bool {
		if s := int(status.Load()); s != 0 {
			if s < 400 {
				w.Header().Set("Location", other.URL+r.URL.Path)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(s)
			_, _ = w.Write([]byte(`{"error":{"message":"refused","type":"invalid_request_error"}}`))
			return true
		}
		return false
	}
	clearEnv(t)
	cfg := writeFile(t, "failover.yaml", "failover:\n  a/m1: [b/m2]\n  dead/m1: [b/m2]\n")
	g := startGateway(t, "master_key "+masterKey+"\nconfig_file "+cfg+"\n"+
		providerBlock("a", "openai", "sk-up", a.srv.URL+"/v1")+
		providerBlock("b", "openai", "sk-up", b.srv.URL+"/v1")+
		providerBlock("dead", "openai", "sk-up", closedURL(t), "models m1", "models_mode allowlist"))
	waitListed(t, g, masterKey, "m1", "m2")

	for _, s := range []int{500, 502, 307} {
		status.Store(int64(s))
		res := chatModel(t, g, "a/m1", "x", "X-Session-Id", "fo-"+http.StatusText(s))
		if res.Status != 200 || res.Header.Get("X-Modelgate-Provider") != "b" {
			t.Errorf("after an upstream %d: %d %s %s", s, res.Status, res.Header.Get("X-Modelgate-Provider"), res.Body)
		}
	}
	if elsewhere.Load() != 0 {
		t.Errorf("a redirect was followed %d times", elsewhere.Load())
	}
	res := chatModel(t, g, "dead/m1", "x", "X-Session-Id", "fo-dead")
	if res.Status != 200 || res.Header.Get("X-Modelgate-Provider") != "b" {
		t.Errorf("after an unreachable upstream: %d %s", res.Status, res.Body)
	}
	e := auditEntryOf(t, g, "fo-dead")
	at, _ := e["data"].(map[string]any)["attempts"].([]any)
	if len(at) != 2 || jsonAt(at[0], "kind") != "primary" || jsonAt(at[0], "provider_name") != "dead" ||
		jsonAt(at[0], "success") != false || jsonAt(at[1], "kind") != "failover" || jsonAt(at[1], "provider_name") != "b" ||
		jsonAt(at[1], "success") != true {
		t.Errorf("attempts after an unreachable upstream: %v", at)
	}

	// A stream whose primary fails before its first byte fails over.
	status.Store(503)
	res = request(t, "POST", g.URL+"/v1/chat/completions",
		`{"model":"a/m1","stream":true,"messages":[{"role":"user","content":"s"}]}`, bearer(masterKey)...)
	if res.Status != 200 || res.Header.Get("X-Modelgate-Provider") != "b" || !strings.Contains(string(res.Body), "[DONE]") {
		t.Errorf("a stream after a 503 before its first byte: %d %s %s", res.Status, res.Header.Get("X-Modelgate-Provider"), res.Body)
	}

	for _, s := range []int{401, 403, 404, 422} {
		status.Store(int64(s))
		before := b.hits.Load()
		res := chatModel(t, g, "a/m1", "x")
		if res.Status != s || b.hits.Load() != before {
			t.Errorf("an upstream %d: client got %d, failover target called %d times", s, res.Status, b.hits.Load()-before)
		}
	}
}

// TestIfaceVirtualModelsFromEnv: VIRTUAL_MODELS wins over the YAML row of
// the same source and leaves the others; both are managed (read-only,
// 409 virtual_model_managed); a target naming an unknown provider in
// VIRTUAL_MODELS aborts startup.
func TestIfaceVirtualModelsFromEnv(t *testing.T) {
	a, b := newRouteUpstream(t, "m1"), newRouteUpstream(t, "m2")
	clearEnv(t)
	t.Setenv("VIRTUAL_MODELS", `[{"source":"fast","targets":[{"provider":"b","model":"m2"}]}]`)
	cfg := writeFile(t, "vm.yaml", `virtual_models:
  - source: fast
    targets: [{provider: a, model: m1}]
  - source: steady
    targets: [{provider: a, model: m1}]
`)
	block := "master_key " + masterKey + "\nconfig_file " + cfg + "\n" +
		providerBlock("a", "openai", "sk-up", a.srv.URL+"/v1") + providerBlock("b", "openai", "sk-up", b.srv.URL+"/v1")
	g := startGateway(t, block)
	waitListed(t, g, masterKey, "fast", "steady")
	if res := chatModel(t, g, "fast", "x"); res.Status != 200 || res.Header.Get("X-Modelgate-Provider") != "b" {
		t.Errorf("fast: %d %s %s", res.Status, res.Header.Get("X-Modelgate-Provider"), res.Body)
	}
	if res := chatModel(t, g, "steady", "x"); res.Status != 200 || res.Header.Get("X-Modelgate-Provider") != "a" {
		t.Errorf("steady: %d %s %s", res.Status, res.Header.Get("X-Modelgate-Provider"), res.Body)
	}
	var list struct {
		VirtualModels []struct {
			Source  string `json:"source"`
			Managed bool   `json:"managed"`
		} `json:"virtual_models"`
	}
	if err := json.Unmarshal(adminCall(t, g, "GET", "/admin/virtual-models", "").Body, &list); err != nil {
		t.Fatal(err)
	}
	managed := map[string]bool{}
	for _, v := range list.VirtualModels {
		managed[v.Source] = v.Managed
	}
	if !managed["fast"] || !managed["steady"] || len(list.VirtualModels) != 2 {
		t.Errorf("listed %+v", list.VirtualModels)
	}
	adminCall(t, g, "PUT", "/admin/virtual-models", `{"source":"fast","targets":[{"provider":"a","model":"m1"}]}`).
		ExpectErr(t, 409, "invalid_request_error", "virtual_model_managed")
	adminCall(t, g, "DELETE", "/admin/virtual-models/fast", "").
		ExpectErr(t, 409, "invalid_request_error", "virtual_model_managed")

	t.Setenv("VIRTUAL_MODELS", `[{"source":"typo","targets":[{"provider":"nobody","model":"m1"}]}]`)
	if err := loadFails(t, block); err == nil || !strings.Contains(err.Error(), "nobody") {
		t.Errorf("an unknown provider in VIRTUAL_MODELS: %v", err)
	}
}

// TestIfaceModelAccessSelectors: a policy on a bare model name applies on
// every provider; a policy on * with user_paths hides every model from
// callers outside them (403 model_access_denied, left out of /v1/models);
// GET /admin/models names the deciding row as override, null where no
// row decides, and ?category= filters.
func TestIfaceModelAccessSelectors(t *testing.T) {
	a, b := newRouteUpstream(t, "m1", "shared"), newRouteUpstream(t, "m2", "shared")
	g := routingGateway(t, `virtual_models:
  - source: shared
    enabled: false
  - source: "*"
    user_paths: [/inside]
`, map[string]*routeUpstream{"a": a, "b": b})
	for _, m := range []string{"shared", "a/shared", "b/shared"} {
		chatModel(t, g, m, "x", userPathHeader, "/inside").ExpectErr(t, 403, "invalid_request_error", "model_access_denied")
	}
	if res := chatModel(t, g, "a/m1", "x", userPathHeader, "/inside/app"); res.Status != 200 {
		t.Errorf("a/m1 under /inside: %d %s", res.Status, res.Body)
	}
	chatModel(t, g, "a/m1", "x", userPathHeader, "/outside").ExpectErr(t, 403, "invalid_request_error", "model_access_denied")
	inside := request(t, "GET", g.URL+"/v1/models", "", append(bearer(masterKey), userPathHeader, "/inside")...)
	outside := request(t, "GET", g.URL+"/v1/models", "", append(bearer(masterKey), userPathHeader, "/outside")...)
	if !listingHas(inside.Body, "m1") || !listingHas(inside.Body, "m2") || listingHas(inside.Body, "shared") {
		t.Errorf("/inside lists %s", inside.Body)
	}
	if listingHas(outside.Body, "m1") || listingHas(outside.Body, "m2") || listingHas(outside.Body, "shared") {
		t.Errorf("/outside lists %s", outside.Body)
	}

	var rows []struct {
		Selector string `json:"selector"`
		Model    struct {
			ID string `json:"id"`
		} `json:"model"`
		Access struct {
			Selector         string          `json:"selector"`
			DefaultEnabled   bool            `json:"default_enabled"`
			EffectiveEnabled bool            `json:"effective_enabled"`
			UserPaths        []string        `json:"user_paths"`
			Override         json.RawMessage `json:"override"`
		} `json:"access"`
	}
	waitProvidersListed(t)
	if err := json.Unmarshal(adminCall(t, g, "GET", "/admin/models?category=all", "").Body, &rows); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, r := range rows {
		src := jsonAt(decode(t, r.Access.Override), "source")
		switch r.Selector {
		case "a/shared", "b/shared":
			seen++
			if r.Access.EffectiveEnabled || !r.Access.DefaultEnabled || src != "shared" ||
				(r.Model.ID != "shared" && r.Model.ID != r.Selector) {
				t.Errorf("%s: %+v override %s", r.Selector, r.Access, r.Access.Override)
			}
		case "a/m1", "b/m2":
			seen++
			if !r.Access.EffectiveEnabled || src != "*" || len(r.Access.UserPaths) != 1 || r.Access.UserPaths[0] != "/inside" {
				t.Errorf("%s: %+v override %s", r.Selector, r.Access, r.Access.Override)
			}
		}
		if r.Access.Selector != r.Selector {
			t.Errorf("access selector %q of row %q", r.Access.Selector, r.Selector)
		}
	}
	if seen != 4 {
		t.Errorf("inventory %+v", rows)
	}
	if res := adminCall(t, g, "GET", "/admin/models?category=embedding", ""); res.Status != 200 || strings.Contains(string(res.Body), `"a/m1"`) {
		t.Errorf("embedding filter: %d %s", res.Status, res.Body)
	}
}

// TestIfaceModelAccessNoOverride: a model no row decides shows override
// null in GET /admin/models.
func TestIfaceModelAccessNoOverride(t *testing.T) {
	a := newRouteUpstream(t, "m1")
	g := routingGateway(t, "virtual_models: []\n", map[string]*routeUpstream{"a": a})
	var rows []map[string]any
	waitProvidersListed(t)
	if err := json.Unmarshal(adminCall(t, g, "GET", "/admin/models", "").Body, &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		acc := r["access"].(map[string]any)
		if ov, ok := acc["override"]; !ok || ov != nil || acc["effective_enabled"] != true {
			t.Errorf("%v: access %v", r["selector"], acc)
		}
	}
}

// TestIfaceCacheStoresOnly200: an upstream's 4xx answer is not stored:
// its repeat reaches the upstream again, marked miss.
func TestIfaceCacheStoresOnly200(t *testing.T) {
	a := newRouteUpstream(t, "m1")
	var fail atomic.Bool
	fail.Store(true)
	a.fail = func(w http.ResponseWriter, _ *http.Request) bool {
		if fail.Load() {
			http.Error(w, `{"error":{"message":"bad"}}`, http.StatusBadRequest)
			return true
		}
		return false
	}
	g := routingGateway(t, "cache:\n  enabled: true\n", map[string]*routeUpstream{"a": a})
	for i := range 2 {
		res := chatModel(t, g, "a/m1", "same")
		expectCache(t, "4xx "+string(rune('0'+i)), res, 400, "miss")
	}
	if n := a.hits.Load(); n != 2 {
		t.Errorf("the upstream was called %d times for two 400s, want 2", n)
	}
	fail.Store(false)
	expectCache(t, "200", chatModel(t, g, "a/m1", "same"), 200, "miss")
	expectCache(t, "repeat", chatModel(t, g, "a/m1", "same"), 200, "hit")
}

// TestIfaceAffinityFollowsAvailability: with session affinity (the
// default) a session stays on the target that served it, and moves to
// another once that target is saturated, rather than being refused.
func TestIfaceAffinityFollowsAvailability(t *testing.T) {
	a, b := newRouteUpstream(t, "m1"), newRouteUpstream(t, "m2")
	g := routingGateway(t, `virtual_models:
  - source: sticky
    targets: [{provider: a, model: m1}, {provider: b, model: m2}]
`, map[string]*routeUpstream{"a": a, "b": b})
	first := chatModel(t, g, "sticky", "q0", "X-Session-Id", "pinned")
	pinned := first.Header.Get("X-Modelgate-Provider")
	if first.Status != 200 || (pinned != "a" && pinned != "b") {
		t.Fatalf("first: %d %q %s", first.Status, pinned, first.Body)
	}
	for i := range 5 {
		if res := chatModel(t, g, "sticky", fmt.Sprint("q", i+1), "X-Session-Id", "pinned"); res.Header.Get("X-Modelgate-Provider") != pinned {
			t.Fatalf("request %d of the session went to %q, not %q", i+1, res.Header.Get("X-Modelgate-Provider"), pinned)
		}
	}
	other := map[string]string{"a": "b", "b": "a"}[pinned]
	if res := adminCall(t, g, "PUT", "/admin/rate-limits",
		`{"scope":"provider","subject":"`+pinned+`","period":"minute","max_requests":1}`); res.Status != 200 {
		t.Fatalf("rule: %d %s", res.Status, res.Body)
	}
	// The new rule's one request a minute is the session's next request.
	if res := chatModel(t, g, "sticky", "q6", "X-Session-Id", "pinned"); res.Header.Get("X-Modelgate-Provider") != pinned {
		t.Fatalf("under the new rule: %d %q", res.Status, res.Header.Get("X-Modelgate-Provider"))
	}
	res := chatModel(t, g, "sticky", "q7", "X-Session-Id", "pinned")
	if res.Status != 200 || res.Header.Get("X-Modelgate-Provider") != other {
		t.Fatalf("with %s saturated: %d %q %s", pinned, res.Status, res.Header.Get("X-Modelgate-Provider"), res.Body)
	}
}

// TestIfaceSlowdown: a virtual model's slowdown f delays the answer by f
// times the upstream's own time; an alias without slowdown inherits its
// target's policy row. Only lower bounds are asserted: a delay is never
// shorter than asked.
func TestIfaceSlowdown(t *testing.T) {
	const upstream = 300 * time.Millisecond
	a := newRouteUpstream(t, "m1", "m2", "whisper-1")
	a.fail = func(http.ResponseWriter, *http.Request) bool {
		time.Sleep(upstream)
		return false
	}
	g := routingGateway(t, `virtual_models:
  - source: a/m1
    slowdown: 2
  - source: a/whisper-1
    slowdown: 2
  - source: slow-alias
    targets: [{provider: a, model: m1}]
  - source: fast-alias
    slowdown: 0
    targets: [{provider: a, model: m2}]
`, map[string]*routeUpstream{"a": a})
	for _, c := range []struct {
		model string
		min   time.Duration
	}{{"a/m1", 3 * upstream}, {"slow-alias", 3 * upstream}, {"a/m2", upstream}} {
		start := time.Now()
		res := chatModel(t, g, c.model, "x")
		if took := time.Since(start); res.Status != 200 || took < c.min {
			t.Errorf("%s: %d after %v, want at least %v", c.model, res.Status, took, c.min)
		}
	}
	// A transcription is slowed down like any other answer.
	body, ct := multipartBody(t, map[string]string{"model": "a/whisper-1"})
	start := time.Now()
	res := request(t, "POST", g.URL+"/v1/audio/transcriptions", body, append(bearer(masterKey), "Content-Type", ct)...)
	if took := time.Since(start); res.Status != 200 || took < 3*upstream {
		t.Errorf("transcription: %d %s after %v, want at least %v", res.Status, res.Body, took, 3*upstream)
	}
}

// TestIfaceCostStrategySkipsUnpriced: the cost strategy picks the
// cheapest priced target by input plus output price; a target without a
// catalog price is not "free" and is not picked over a priced one, and a
// lower input price alone does not win (gpt-5 at 1.25 + 10 loses to
// gpt-4.1 at 2 + 8).
func TestIfaceCostStrategySkipsUnpriced(t *testing.T) {
	a, b, c := newRouteUpstream(t, "house-model", "gpt-5"), newRouteUpstream(t, "gpt-4o"), newRouteUpstream(t, "gpt-4o-mini", "gpt-4.1")
	g := routingGateway(t, `virtual_models:
  - source: thrifty
    strategy: cost
    targets: [{provider: a, model: house-model}, {provider: b, model: gpt-4o}, {provider: c, model: gpt-4o-mini}]
  - source: total-price
    strategy: cost
    targets: [{provider: a, model: gpt-5}, {provider: c, model: gpt-4.1}]
`, map[string]*routeUpstream{"a": a, "b": b, "c": c})
	for i := range 10 {
		res := chatModel(t, g, "thrifty", fmt.Sprint("q", i))
		if res.Status != 200 || res.Header.Get("X-Modelgate-Provider") != "c" {
			t.Fatalf("request %d: %d went to %q, want c (gpt-4o-mini, the cheapest priced)", i, res.Status, res.Header.Get("X-Modelgate-Provider"))
		}
	}
	if res := chatModel(t, g, "total-price", "x"); res.Status != 200 || !strings.Contains(string(res.Body), `"model":"gpt-4.1"`) {
		t.Errorf("total-price: %d %s", res.Status, res.Body)
	}
}

// TestIfaceWeightedRoundRobinExact: under round_robin a target of weight
// w takes exactly w of every sum-of-weights consecutive picks (here 3 of
// every 4, and 2 of every 5 with weights 2:3), not merely about that
// share on average.
func TestIfaceWeightedRoundRobinExact(t *testing.T) {
	a, b := newRouteUpstream(t, "m1"), newRouteUpstream(t, "m2")
	g := routingGateway(t, `virtual_models:
  - source: three-one
    session_affinity: false
    targets: [{provider: a, model: m1, weight: 3}, {provider: b, model: m2, weight: 1}]
  - source: two-three
    session_affinity: false
    targets: [{provider: a, model: m1, weight: 2}, {provider: b, model: m2, weight: 3}]
`, map[string]*routeUpstream{"a": a, "b": b})
	for _, c := range []struct {
		alias    string
		sum, aOf int
	}{{"three-one", 4, 3}, {"two-three", 5, 2}} {
		for block := range 5 {
			onA := 0
			for i := range c.sum {
				res := chatModel(t, g, c.alias, fmt.Sprint(c.alias, block, i))
				if res.Status != 200 {
					t.Fatalf("%s: %d %s", c.alias, res.Status, res.Body)
				}
				if res.Header.Get("X-Modelgate-Provider") == "a" {
					onA++
				}
			}
			if onA != c.aOf {
				t.Errorf("%s block %d: a took %d of %d picks, want %d", c.alias, block, onA, c.sum, c.aOf)
			}
		}
	}
}

// TestIfaceCacheSkipsCutStreams: a stream the upstream cuts before its
// end is not a complete answer and is not stored: its repeat reaches the
// upstream again.
func TestIfaceCacheSkipsCutStreams(t *testing.T) {
	a := newRouteUpstream(t, "m1")
	var cut atomic.Bool
	cut.Store(true)
	a.fail = func(w http.ResponseWriter, _ *http.Request) bool {
		if !cut.Load() {
			return false
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"par\"}}]}\n\n"))
		w.(http.Flusher).Flush()
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
		return true
	}
	g := routingGateway(t, "cache:\n  enabled: true\n", map[string]*routeUpstream{"a": a})
	body := `{"model":"a/m1","stream":true,"messages":[{"role":"user","content":"cut"}]}`
	if _, err := sendOnce("POST", g.URL+"/v1/chat/completions", body, bearer(masterKey)); err == nil {
		t.Fatal("the cut stream reached the client whole")
	}
	cut.Store(false)
	before := a.hits.Load()
	res, err := send("POST", g.URL+"/v1/chat/completions", body, bearer(masterKey)...)
	if err != nil || res.Status != 200 || res.Header.Get("X-Modelgate-Cache") != "miss" || a.hits.Load() != before+1 {
		t.Fatalf("after a cut stream: %v %d cache %q, upstream calls %d (want a miss and 1)", err, res.Status,
			res.Header.Get("X-Modelgate-Cache"), a.hits.Load()-before)
	}
	if res, _ := send("POST", g.URL+"/v1/chat/completions", body, bearer(masterKey)...); res.Header.Get("X-Modelgate-Cache") != "hit" {
		t.Errorf("the complete stream was not stored: %q", res.Header.Get("X-Modelgate-Cache"))
	}
}

// TestIfaceCacheScopeIsOnePath: under the default scope user_path an
// entry is shared only within its own user path: neither a path below it
// nor its parent hits it, while the same path does, whoever the key.
func TestIfaceCacheScopeIsOnePath(t *testing.T) {
	clearEnv(t)
	g, _, _ := startCacheGateway(t, filepath.Join(t.TempDir(), "mg.db"))
	expectCache(t, "first", cachedCall(t, g, "/v1/chat/completions", "/team", budgetChat), 200, "miss")
	expectCache(t, "below", cachedCall(t, g, "/v1/chat/completions", "/team/app", budgetChat), 200, "miss")
	expectCache(t, "parent", cachedCall(t, g, "/v1/chat/completions", "/", budgetChat), 200, "miss")
	key := createKey(t, g, `{"name":"team key","user_path":"/team"}`)
	res := request(t, "POST", g.URL+"/v1/chat/completions", budgetChat, bearer(key.Secret)...)
	expectCache(t, "same path, another key", res, 200, "hit")
}

// TestIfaceTranscriptionFailover: a failover route applies to
// transcriptions as to the other model endpoints: an upstream 503 moves
// the request to the next target, recorded as a failover attempt, and an
// upstream 400 does not.
func TestIfaceTranscriptionFailover(t *testing.T) {
	a, b := newRouteUpstream(t, "whisper-1"), newRouteUpstream(t, "whisper-2")
	var status atomic.Int64
	status.Store(503)
	a.fail = func(w http.ResponseWriter, _ *http.Request) bool {
		http.Error(w, `{"error":{"message":"no"}}`, int(status.Load()))
		return true
	}
	// The failover target gets the whole form again, with its own model.
	var gotFile atomic.Value
	var gotModel atomic.Value
	b.fail = func(w http.ResponseWriter, r *http.Request) bool {
		if f, _, err := r.FormFile("file"); err == nil {
			data, _ := io.ReadAll(f)
			gotFile.Store(data)
		}
		gotModel.Store(r.FormValue("model"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"text":"from b"}`))
		return true
	}
	g := routingGateway(t, "failover:\n  a/whisper-1: [b/whisper-2]\n", map[string]*routeUpstream{"a": a, "b": b})
	body, ct := multipartBody(t, map[string]string{"model": "a/whisper-1"})
	res := request(t, "POST", g.URL+"/v1/audio/transcriptions", body, append(bearer(masterKey), "Content-Type", ct, "X-Session-Id", "stt-fo")...)
	if res.Status != 200 || res.Header.Get("X-Modelgate-Provider") != "b" || string(res.Body) != `{"text":"from b"}` {
		t.Fatalf("after a 503: %d %q %s", res.Status, res.Header.Get("X-Modelgate-Provider"), res.Body)
	}
	if f, _ := gotFile.Load().([]byte); !bytes.Equal(f, fakeAudio) || gotModel.Load() != "whisper-2" {
		t.Errorf("failover target got %d bytes of audio (want %d) and model %v", len(f), len(fakeAudio), gotModel.Load())
	}
	at, _ := auditEntryOf(t, g, "stt-fo")["data"].(map[string]any)["attempts"].([]any)
	if len(at) != 2 || jsonAt(at[0], "kind") != "primary" || jsonAt(at[0], "status_code") != 503.0 ||
		jsonAt(at[1], "kind") != "failover" || jsonAt(at[1], "provider_name") != "b" {
		t.Errorf("attempts %v", at)
	}
	status.Store(400)
	before := b.hits.Load()
	res = request(t, "POST", g.URL+"/v1/audio/transcriptions", body, append(bearer(masterKey), "Content-Type", ct)...)
	if res.Status != 400 || b.hits.Load() != before {
		t.Errorf("after a 400: %d, failover target called %d times", res.Status, b.hits.Load()-before)
	}
}
