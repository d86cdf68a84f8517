package e2e

// Rate-limit rules checked through the public HTTP API: target rules and
// failover, virtual models under saturation, several matching rules,
// environment seeding, the endpoints a rule covers and batch submissions.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// expectRetryAfter fails unless res carries a Retry-After of whole seconds
// within (0, max]; a sliding window may admit a retry only after the
// next window boundary, so max is up to two window lengths.
func expectRetryAfter(t *testing.T, what string, res response, max int) {
	t.Helper()
	v, err := strconv.Atoi(res.Header.Get("Retry-After"))
	if err != nil || v < 1 || v > max {
		t.Fatalf("%s: Retry-After %q, want 1..%d", what, res.Header.Get("Retry-After"), max)
	}
}

// waitTokensUsed waits up to 5 s until the tokens_used of one rule is want
// (tokens are charged when the answer has completed).
func waitTokensUsed(t *testing.T, g *gateway, scope, subject, period string, want float64) {
	t.Helper()
	var got float64
	defer func() {
		if t.Failed() {
			t.Logf("%s rule on %s: tokens_used %v", scope, subject, got)
		}
	}()
	poll(t, 5*time.Second, fmt.Sprintf("%s rule on %s: tokens_used %v", scope, subject, want), func() bool {
		got, _ = rateRule(t, g, scope, subject, period)["tokens_used"].(float64)
		return got == want
	})
}

// TestSpecLimitsTargetRulesAndFailover: a model rule matches the executed
// model only; a saturated primary is not called and failover starts at
// once, skipping a saturated candidate, and with no viable target left
// the client gets 429 with Retry-After; a direct request to a saturated
// target without failover is refused with 429 and Retry-After; tokens are
// charged to the provider and model that executed the request; provider
// and model rules cannot be per_child templates.
func TestSpecLimitsTargetRulesAndFailover(t *testing.T) {
	a, b, c := newRouteUpstream(t, "m1", "m9"), newRouteUpstream(t, "m2"), newRouteUpstream(t, "m3")
	g := routingGateway(t, `rate_limits:
  models:
    - {model: a/m1, rpm: 1, tpm: 1000}
    - {model: a/m9, rpm: 3}
  providers:
    - {provider: b, rpm: 1}
    - {provider: c, rpm: 100, tpm: 1000}
failover:
  a/m1: [b/m2, c/m3]
  a/m9: [b/m2]
`, map[string]*routeUpstream{"a": a, "b": b, "c": c})

	// The model rule admits one request to a/m1; a/m9 is another model.
	if res := chatModel(t, g, "a/m1", "one"); res.Status != 200 || res.Header.Get("X-Modelgate-Provider") != "a" {
		t.Fatalf("first a/m1: %d %s", res.Status, res.Body)
	}
	for i := range 3 {
		if res := chatModel(t, g, "a/m9", fmt.Sprint("m9 ", i)); res.Status != 200 {
			t.Fatalf("a/m9 %d: %d %s", i, res.Status, res.Body)
		}
	}
	waitTokensUsed(t, g, "model", "a/m1", "minute", 4)
	if a.hits.Load() != 4 {
		t.Fatalf("a hits %d, want 4", a.hits.Load())
	}

	// a/m1 is saturated: the primary is not called, b serves.
	if res := chatModel(t, g, "a/m1", "two"); res.Status != 200 || res.Header.Get("X-Modelgate-Provider") != "b" {
		t.Fatalf("second a/m1: %d %s %s", res.Status, res.Header.Get("X-Modelgate-Provider"), res.Body)
	}
	// Now b is saturated too and is skipped: c serves.
	if res := chatModel(t, g, "a/m1", "three"); res.Status != 200 || res.Header.Get("X-Modelgate-Provider") != "c" {
		t.Fatalf("third a/m1: %d %s %s", res.Status, res.Header.Get("X-Modelgate-Provider"), res.Body)
	}
	if a.hits.Load() != 4 || b.hits.Load() != 1 || c.hits.Load() != 1 {
		t.Fatalf("hits a=%d b=%d c=%d, want 4, 1, 1", a.hits.Load(), b.hits.Load(), c.hits.Load())
	}
	// Tokens went to the target that executed each request.
	waitTokensUsed(t, g, "provider", "c", "minute", 4)
	waitTokensUsed(t, g, "model", "a/m1", "minute", 4)

	// b/m2 has no failover: a direct request is refused, b is not called.
	res := chatModel(t, g, "b/m2", "direct")
	res.ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	expectRetryAfter(t, "direct b/m2", res, 120)
	if b.hits.Load() != 1 {
		t.Fatal("a saturated provider was called")
	}
	// a/m9 and its only failover target are saturated: 429, nobody called.
	res = chatModel(t, g, "a/m9", "no target left")
	res.ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	expectRetryAfter(t, "no viable target", res, 120)
	if a.hits.Load() != 4 || b.hits.Load() != 1 {
		t.Fatalf("hits a=%d b=%d after the refusal, want 4 and 1", a.hits.Load(), b.hits.Load())
	}

	// Provider and model rules cannot be templates.
	for _, body := range []string{
		`{"scope":"provider","subject":"a","period":"minute","max_requests":1,"per_child":true}`,
		`{"scope":"model","subject":"a/m1","period":"hour","max_requests":1,"per_child":true}`,
	} {
		if res := adminCall(t, g, "PUT", "/admin/rate-limits", body); res.Status/100 != 4 || res.Err(t).Type != "invalid_request_error" {
			t.Fatalf("%s: %d %s", body, res.Status, res.Body)
		}
	}
}

// TestSpecLimitsSaturatedAliasFailsOver: with every target of a virtual
// model saturated the alias resolves to its first target, and that
// target's failover route takes over without calling it.
func TestSpecLimitsSaturatedAliasFailsOver(t *testing.T) {
	a, b, c := newRouteUpstream(t, "m1"), newRouteUpstream(t, "m2"), newRouteUpstream(t, "m3")
	g := routingGateway(t, `virtual_models:
  - source: fast
    session_affinity: false
    targets: [{provider: a, model: m1}, {provider: b, model: m2}]
rate_limits:
  providers:
    - {provider: a, rpm: 1}
    - {provider: b, rpm: 1}
failover:
  a/m1: [c/m3]
`, map[string]*routeUpstream{"a": a, "b": b, "c": c})
	for i, want := range []string{"a", "b", "c"} {
		if res := chatModel(t, g, "fast", fmt.Sprint("q", i)); res.Status != 200 || res.Header.Get("X-Modelgate-Provider") != want {
			t.Fatalf("request %d: %d %s %s, want %s", i, res.Status, res.Header.Get("X-Modelgate-Provider"), res.Body, want)
		}
	}
	if a.hits.Load() != 1 || b.hits.Load() != 1 || c.hits.Load() != 1 {
		t.Fatalf("hits a=%d b=%d c=%d, want 1 each", a.hits.Load(), b.hits.Load(), c.hits.Load())
	}
}

// TestSpecLimitsAllMatchingRules: every rule covering the path is checked
// and the first exhausted one refuses; the x-ratelimit-* headers come from
// the most constrained rule; a rule on / covers all traffic.
func TestSpecLimitsAllMatchingRules(t *testing.T) {
	g := startMockGateway(t)
	for _, body := range []string{
		`{"user_path":"/","period":"minute","max_requests":100}`,
		`{"user_path":"/team","period":"minute","max_requests":5}`,
		`{"user_path":"/team/app","period":"minute","max_requests":2}`,
	} {
		if res := adminCall(t, g, "PUT", "/admin/rate-limits", body); res.Status != 200 {
			t.Fatalf("%s: %d %s", body, res.Status, res.Body)
		}
	}
	for i := 1; i <= 2; i++ {
		res := chatAs(t, g, "/team/app/x")
		if res.Status != 200 || res.Header.Get("X-Ratelimit-Limit-Requests") != "2" ||
			res.Header.Get("X-Ratelimit-Remaining-Requests") != strconv.Itoa(2-i) {
			t.Fatalf("/team/app request %d: %d %v", i, res.Status, res.Header)
		}
	}
	res := chatAs(t, g, "/team/app")
	res.ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	expectRetryAfter(t, "/team/app", res, 120)
	// /team still has 3 requests, then it refuses its other children.
	for i := 1; i <= 3; i++ {
		res := chatAs(t, g, "/team/other")
		if res.Status != 200 || res.Header.Get("X-Ratelimit-Limit-Requests") != "5" ||
			res.Header.Get("X-Ratelimit-Remaining-Requests") != strconv.Itoa(3-i) {
			t.Fatalf("/team/other request %d: %d %v", i, res.Status, res.Header)
		}
	}
	chatAs(t, g, "/team/other").ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	// The root rule counted every admitted request, and covers other paths.
	if res := chatAs(t, g, "/elsewhere"); res.Status != 200 || res.Header.Get("X-Ratelimit-Limit-Requests") != "100" {
		t.Fatalf("/elsewhere: %d %v", res.Status, res.Header)
	}
	if used := rateUsed(t, g, "user_path", "/", "minute"); used != 6 {
		t.Fatalf("root rule used %v, want 6", used)
	}
	if used := rateUsed(t, g, "user_path", "/team", "minute"); used != 5 {
		t.Fatalf("/team rule used %v, want 5", used)
	}
}

// TestSpecLimitsEnvSeeding: SET_RATE_LIMIT_* and SET_PROVIDER_RATE_LIMIT_*
// seed rules from the compact names and from a JSON array with a custom
// window; "__" separates path segments and provider underscores become
// hyphens.
func TestSpecLimitsEnvSeeding(t *testing.T) {
	clearEnv(t)
	t.Setenv("SET_RATE_LIMIT_TEAM__ALPHA", "rpm=10,tpm=100,rph=20,tph=200,rpd=30,tpd=300,concurrent=4")
	t.Setenv("SET_RATE_LIMIT_OPS", `[{"period_seconds":90,"max_requests":2}]`)
	t.Setenv("SET_PROVIDER_RATE_LIMIT_MY_DEMO", "rpm=50,concurrent=3")
	g := startGateway(t, "master_key "+masterKey+"\nprovider my-demo {\n type mock\n}\n")

	for _, c := range []struct {
		scope, subject, period string
		requests, tokens       float64
	}{
		{"user_path", "/team/alpha", "minute", 10, 100},
		{"user_path", "/team/alpha", "hour", 20, 200},
		{"user_path", "/team/alpha", "day", 30, 300},
		{"user_path", "/team/alpha", "concurrent", 4, 0},
		{"user_path", "/ops", "90s", 2, 0},
		{"provider", "my-demo", "minute", 50, 0},
		{"provider", "my-demo", "concurrent", 3, 0},
	} {
		r := rateRule(t, g, c.scope, c.subject, c.period)
		tokens, _ := r["max_tokens"].(float64)
		if r["max_requests"] != c.requests || tokens != c.tokens || r["source"] != "config" {
			t.Errorf("%s %s %s: %v", c.scope, c.subject, c.period, r)
		}
	}
	if res := chatAs(t, g, "/team/alpha/app"); res.Status != 200 || res.Header.Get("X-Ratelimit-Limit-Requests") == "" {
		t.Fatalf("/team/alpha: %d %v %s", res.Status, res.Header, res.Body)
	}
	if used := rateUsed(t, g, "provider", "my-demo", "minute"); used != 1 {
		t.Fatalf("provider rule used %v, want 1", used)
	}
	for i := range 2 {
		if res := chatAs(t, g, "/ops"); res.Status != 200 {
			t.Fatalf("/ops %d: %d %s", i, res.Status, res.Body)
		}
	}
	res := chatAs(t, g, "/ops/x")
	res.ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	expectRetryAfter(t, "/ops", res, 180)
}

// TestSpecLimitsEndpointsCovered: a user-path rule limits the chat
// completions, responses, messages, embeddings and both audio endpoints;
// a per_child template gives each endpoint's child path its own counter,
// and every refusal carries Retry-After.
func TestSpecLimitsEndpointsCovered(t *testing.T) {
	clearEnv(t)
	t.Setenv("GATEWAY_ENTITLEMENTS", "quota_templates")
	t.Setenv("SET_RATE_LIMIT_EP", `[{"period":"minute","max_requests":1,"per_child":true}]`)
	g := startGateway(t, mockBlock(""))
	form, ct := multipartBody(t, map[string]string{"model": "mock-transcribe"})
	for _, c := range []struct{ child, path, body, ct string }{
		{"chat", "/v1/chat/completions", mockChat, ""},
		{"responses", "/v1/responses", `{"model":"mock-chat","input":"hi"}`, ""},
		{"messages", "/v1/messages", `{"model":"mock-chat","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, ""},
		{"embeddings", "/v1/embeddings", `{"model":"mock-embedding","input":"hi"}`, ""},
		{"speech", "/v1/audio/speech", `{"model":"mock-tts","input":"hi","voice":"alloy"}`, ""},
		{"transcriptions", "/v1/audio/transcriptions", form, ct},
	} {
		headers := append(bearer(masterKey), userPathHeader, "/ep/"+c.child)
		if c.ct != "" {
			headers = append(headers, "Content-Type", c.ct)
		}
		if res := request(t, "POST", g.URL+c.path, c.body, headers...); res.Status != 200 {
			t.Fatalf("%s first: %d %s", c.path, res.Status, res.Body)
		}
		res := request(t, "POST", g.URL+c.path, c.body, headers...)
		if res.Status != 429 {
			t.Fatalf("%s second: %d %s", c.path, res.Status, res.Body)
		}
		expectRetryAfter(t, c.path, res, 120)
	}
}

// TestSpecLimitsBatchSubmission: a batch submission counts one request
// against the user-path rules and holds no concurrency slot: it is
// admitted while a chat request holds the path's only slot and the
// provider's only slot, since provider rules do not apply to it.
func TestSpecLimitsBatchSubmission(t *testing.T) {
	clearEnv(t)
	t.Setenv("SET_RATE_LIMIT_TEAM", "rpm=3,concurrent=1")
	t.Setenv("SET_PROVIDER_RATE_LIMIT_DEMO", "concurrent=1")
	g := startGateway(t, "master_key "+masterKey+"\nprovider demo {\n type mock\n latency 1s\n}\n")
	cl := openaiClient(g, masterKey, option.WithHeader(userPathHeader, "/team/jobs"))
	ctx := context.Background()
	f := uploadBatchFile(t, cl, batchInput(1, "/v1/chat/completions", "mock-chat"))
	submit := func() (*openai.Batch, error) {
		return cl.Batches.New(ctx, openai.BatchNewParams{
			InputFileID:      f.ID,
			Endpoint:         openai.BatchNewParamsEndpointV1ChatCompletions,
			CompletionWindow: openai.BatchNewParamsCompletionWindow24h,
		})
	}

	chat := make(chan response, 1)
	go func() {
		res, _ := send("POST", g.URL+"/v1/chat/completions", mockChat, append(bearer(masterKey), userPathHeader, "/team/chat")...)
		chat <- res
	}()
	poll(t, 5*time.Second, "the chat request holds its slots", func() bool {
		return rateRule(t, g, "provider", "demo", "concurrent")["in_flight"] == 1.0 &&
			rateRule(t, g, "user_path", "/team", "concurrent")["in_flight"] == 1.0
	})
	for i := range 2 {
		if _, err := submit(); err != nil {
			t.Fatalf("submission %d while the slots are held: %v", i, err)
		}
	}
	if res := <-chat; res.Status != 200 {
		t.Fatalf("chat: %d %s", res.Status, res.Body)
	}
	if used := rateUsed(t, g, "user_path", "/team", "minute"); used != 3 {
		t.Fatalf("user-path requests %v, want 3", used)
	}
	_, err := submit()
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTooManyRequests || apiErr.Response.Header.Get("Retry-After") == "" ||
		apiErr.Response.Header.Get("X-Ratelimit-Limit-Requests") != "3" {
		t.Fatalf("fourth request: %v", err)
	}
}

// TestSpecLimitsRealtimeSession: a realtime session counts one request
// against the user-path rules and holds one slot while it lasts; a
// session the rules refuse is not upgraded.
func TestSpecLimitsRealtimeSession(t *testing.T) {
	clearEnv(t)
	t.Setenv("SET_RATE_LIMIT_RT", "rpm=2,concurrent=5")
	up := newFakeRealtime(t)
	g := startGateway(t, mockBlock(providerBlock("oa", "openai", "sk-upstream", up.srv.URL+"/v1")))
	waitListed(t, g, masterKey, "gpt-rt")

	c, _, err := dialRealtime(t, g, "gpt-rt", "/rt/a")
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	if typ, _ := readWSEvent(t, c); typ != "session.created" {
		t.Fatalf("first event %s", typ)
	}
	if used := rateUsed(t, g, "user_path", "/rt", "minute"); used != 1 {
		t.Fatalf("requests during the session %v, want 1", used)
	}
	if r := rateRule(t, g, "user_path", "/rt", "concurrent"); r["in_flight"] != 1.0 {
		t.Fatalf("slots during the session %v, want 1", r["in_flight"])
	}
	if err := c.Close(websocket.StatusNormalClosure, "bye"); err != nil {
		t.Fatal(err)
	}
	waitSlotsFree(t, g)
	if used := rateUsed(t, g, "user_path", "/rt", "minute"); used != 1 {
		t.Fatalf("requests after the session %v, want 1", used)
	}
	if res := chatAs(t, g, "/rt/b"); res.Status != 200 {
		t.Fatalf("second request: %d %s", res.Status, res.Body)
	}
	_, resp, err := dialRealtime(t, g, "gpt-rt", "/rt/a")
	if err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" ||
		resp.Header.Get("X-Ratelimit-Remaining-Requests") != "0" {
		t.Fatalf("a session over the limit: %v %v", err, resp)
	}
}

// TestSpecLimitsStreamTokensCharged: a stream's tokens are charged to the
// user-path and provider token rules once it has completed, and the token
// window then refuses.
func TestSpecLimitsStreamTokensCharged(t *testing.T) {
	clearEnv(t)
	t.Setenv("SET_RATE_LIMIT_S", "tpm=1")
	t.Setenv("SET_PROVIDER_RATE_LIMIT_DEMO", "tpm=100000")
	g := startGateway(t, mockBlock("storage "+filepath.Join(t.TempDir(), "stream-tokens.db")))
	stream := `{"model":"mock-chat","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	res := request(t, "POST", g.URL+"/v1/chat/completions", stream, append(bearer(masterKey), userPathHeader, "/s/a")...)
	if res.Status != 200 || !strings.Contains(string(res.Body), "[DONE]") {
		t.Fatalf("stream: %d %s", res.Status, res.Body)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		user, _ := rateRule(t, g, "user_path", "/s", "minute")["tokens_used"].(float64)
		prov, _ := rateRule(t, g, "provider", "demo", "minute")["tokens_used"].(float64)
		if user > 0 && user == prov {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("stream tokens charged: user path %v, provider %v", user, prov)
		}
		time.Sleep(20 * time.Millisecond)
	}
	res = request(t, "POST", g.URL+"/v1/chat/completions", stream, append(bearer(masterKey), userPathHeader, "/s/b")...)
	res.ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	expectRetryAfter(t, "token window", res, 120)
}

// TestSpecLimitsTemplateEntitledByYAML: the quota_templates entitlement in
// the YAML configuration admits a per_child template at startup and
// through the admin API; a deeper path shares its child's counter and the
// template path itself does not match.
func TestSpecLimitsTemplateEntitledByYAML(t *testing.T) {
	clearEnv(t)
	yaml := writeFile(t, "ent.yaml", "entitlements: [quota_templates]\nrate_limits:\n  user_paths:\n    - {user_path: /customers, rpm: 1, per_child: true}\n")
	g := startGateway(t, mockBlock("config_file "+yaml))
	if res := adminCall(t, g, "PUT", "/admin/rate-limits", `{"user_path":"/tenants","period":"hour","max_requests":1,"per_child":true}`); res.Status != 200 {
		t.Fatalf("template through the admin API: %d %s", res.Status, res.Body)
	}
	for _, root := range []string{"/customers", "/tenants"} {
		if res := chatAs(t, g, root+"/alice/app"); res.Status != 200 {
			t.Fatalf("%s/alice/app: %d %s", root, res.Status, res.Body)
		}
		chatAs(t, g, root+"/alice").ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
		if res := chatAs(t, g, root+"/bob"); res.Status != 200 {
			t.Fatalf("%s/bob: %d %s", root, res.Status, res.Body)
		}
		for range 2 {
			if res := chatAs(t, g, root); res.Status != 200 || res.Header.Get("X-Ratelimit-Limit-Requests") != "" {
				t.Fatalf("the template path %s: %d %v", root, res.Status, res.Header)
			}
		}
	}
}
