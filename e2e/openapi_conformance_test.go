package e2e

// The running gateway's answers checked against the OpenAPI document it
// serves at GET /admin/openapi.json: status, documented headers and JSON
// body of every documented operation, errors included, with a third-party
// OpenAPI validator, so a client generated from the document reads what
// the server sends.

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
)

// conformance checks answers of one gateway against its document.
type conformance struct {
	t *testing.T
	g *gateway
	v validator.Validator
	// ops are the document's operations ("GET /admin/auth-keys"), each
	// true once an answer to it was validated.
	ops map[string]bool
	// legacy sends admin calls to the legacy alias (/admin/api/v1/...).
	legacy bool
}

// at returns op or path (an operation or a path under /admin/) on the
// legacy alias while c.legacy is set, else as it is.
func (c *conformance) at(s string) string {
	method, path, isOp := strings.Cut(s, " ")
	if !isOp {
		method, path = "", s
	}
	if c.legacy && strings.HasPrefix(path, "/admin/") && !strings.HasPrefix(path, "/admin/api/v1/") {
		path = "/admin/api/v1/" + strings.TrimPrefix(path, "/admin/")
	}
	if isOp {
		return method + " " + path
	}
	return path
}

// newConformance fetches the gateway's document, checks that it is a
// valid OpenAPI document and builds a validator from it that also
// asserts formats (date-time, date).
func newConformance(t *testing.T, g *gateway) *conformance {
	t.Helper()
	res := adminCall(t, g, "GET", "/admin/openapi.json", "")
	if res.Status != http.StatusOK {
		t.Fatalf("GET /admin/openapi.json: %d %s", res.Status, res.Body)
	}
	doc, err := libopenapi.NewDocument(res.Body)
	if err != nil {
		t.Fatalf("parsing the document: %v", err)
	}
	v, errs := validator.NewValidator(doc, config.WithFormatAssertions())
	if len(errs) > 0 {
		t.Fatalf("building the validator: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		t.Errorf("the served document is not a valid OpenAPI document:%s", describe(verrs))
	}
	c := &conformance{t: t, g: g, v: v, ops: map[string]bool{}}
	for path, item := range res.JSON(t)["paths"].(map[string]any) {
		for method := range item.(map[string]any) {
			c.ops[strings.ToUpper(method)+" "+path] = false
		}
	}
	return c
}

// ok sends a valid request for op (a document operation such as
// "GET /admin/auth-keys/{id}") to path, wants one of the statuses want,
// and validates request and answer against the document. Headers come in
// name, value pairs after the body; the master key is sent unless the
// pairs carry an Authorization header.
func (c *conformance) ok(op, path, body string, want []int, headers ...string) response {
	c.t.Helper()
	return c.check(op, path, body, want, true, headers)
}

// fails sends a request for op that the gateway refuses with status want
// and validates the error answer against the document; the request itself
// is not validated (it is meant to be wrong).
func (c *conformance) fails(op, path, body string, want int, headers ...string) response {
	c.t.Helper()
	return c.check(op, path, body, []int{want}, false, headers)
}

func (c *conformance) check(op, path, body string, want []int, validRequest bool, headers []string) response {
	c.t.Helper()
	op, path = c.at(op), c.at(path)
	method, _, _ := strings.Cut(op, " ")
	if _, documented := c.ops[op]; !documented {
		c.t.Errorf("%s is not in the document", op)
	}
	if !hasHeader(headers, "Authorization") {
		headers = append(bearer(masterKey), headers...)
	}
	res := request(c.t, method, c.g.URL+path, body, headers...)
	if !slices.Contains(want, res.Status) {
		c.t.Errorf("%s %s: status %d, want %v: %s", method, path, res.Status, want, res.Body)
		return res
	}
	req, err := http.NewRequest(method, c.g.URL+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	httpRes := &http.Response{StatusCode: res.Status, Header: res.Header, Body: io.NopCloser(bytes.NewReader(res.Body)), Request: req}
	var ok bool
	var verrs []*verrors.ValidationError
	if validRequest {
		ok, verrs = c.v.ValidateHttpRequestResponse(req, httpRes)
	} else {
		ok, verrs = c.v.ValidateHttpResponse(req, httpRes)
	}
	if !ok {
		c.t.Errorf("%s (%s %s) answered %d, which the document does not describe:%s\nbody: %s",
			op, method, path, res.Status, describe(verrs), clip(res.Body))
	}
	c.ops[op] = true
	return res
}

// skip marks operations the test does not validate, with the reason.
func (c *conformance) skip(reason string, ops ...string) {
	c.t.Helper()
	for _, op := range ops {
		op = c.at(op)
		if _, documented := c.ops[op]; !documented {
			c.t.Errorf("skipped %s is not in the document", op)
		}
		c.ops[op] = true
		c.t.Logf("not validated: %s (%s)", op, reason)
	}
}

// covered fails for every document operation neither validated nor
// skipped.
func (c *conformance) covered() {
	c.t.Helper()
	var missing []string
	for op, done := range c.ops {
		if !done {
			missing = append(missing, op)
		}
	}
	sort.Strings(missing)
	for _, op := range missing {
		c.t.Errorf("no answer to %s was validated", op)
	}
}

// describe renders validation errors with their schema failures.
func describe(errs []*verrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "\n  - %s: %s", e.Message, e.Reason)
		for _, f := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, "\n      %s (at %s, keyword %s)", f.Reason, f.FieldPath, f.KeywordLocation)
		}
	}
	return b.String()
}

// clip shortens a body for a failure message.
func clip(b []byte) string {
	if len(b) > 4000 {
		return string(b[:4000]) + "..."
	}
	return string(b)
}

// hasHeader reports whether name, value pairs name the header name.
func hasHeader(pairs []string, name string) bool {
	for i := 0; i < len(pairs); i += 2 {
		if strings.EqualFold(pairs[i], name) {
			return true
		}
	}
	return false
}

// status200 and the like are the wanted statuses of a call.
var (
	status200 = []int{http.StatusOK}
	status201 = []int{http.StatusCreated}
	status204 = []int{http.StatusNoContent}
	status202 = []int{http.StatusAccepted}
)

// formBody builds a multipart form with fields and a file.
func formBody(t *testing.T, fields map[string]string, file, name string, content []byte) (string, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := mw.WriteField(k, fields[k]); err != nil {
			t.Fatal(err)
		}
	}
	fw, err := mw.CreateFormFile(file, name)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write(content)
	_ = mw.Close()
	return b.String(), mime.FormatMediaType("multipart/form-data", map[string]string{"boundary": mw.Boundary()})
}

// TestResponsesMatchOpenAPI seeds a gateway on the mock provider through
// its public API (model calls streamed and not, with a session, a
// managed key, rate-limit rules, budgets, virtual models, failover, the
// response cache, a batch) and validates the answer of every documented
// operation, and of typical refusals (401, 403, 404, 400, 429), against
// the document the gateway serves.
func TestResponsesMatchOpenAPI(t *testing.T) {
	clearEnv(t)
	t.Setenv("GATEWAY_ENTITLEMENTS", "quota_templates")
	t.Setenv("RESPONSE_CACHE_ENABLED", "true")
	// Rows from configuration: read-only, with their own nulls.
	t.Setenv("VIRTUAL_MODELS", `[{"source":"configured-alias","targets":[{"provider":"demo","model":"mock-chat"}]},{"source":"demo/mock-tts","description":"a configured policy"}]`)
	t.Setenv("SET_RATE_LIMIT_CONFIGURED", "rpm=100,tpd=100000,concurrent=4")
	t.Setenv("SET_BUDGET_CONFIGURED", "daily=10,monthly=200")
	t.Setenv("ENABLED_PASSTHROUGH_PROVIDERS", "demo")
	flaky := httptest.NewServer(http.HandlerFunc(refusingUpstream))
	t.Cleanup(flaky.Close)
	g := startGateway(t, mockBlock("admin {\n legacy_alias on\n live_logs_enabled true\n}\n"+
		providerBlock("flaky", "openai", "sk-flaky-upstream", flaky.URL+"/v1", "models flaky-model", "models_mode allowlist")))
	waitListed(t, g, masterKey, "mock-chat", "mock-embedding", "mock-tts", "mock-transcribe")
	c := newConformance(t, g)

	c.skip("HTML page or static asset of the dashboard, not JSON", dashboardOps(c)...)
	c.skip("a WebSocket upgrade (101) relaying the provider's frames; its refusals are checked below", "GET /v1/realtime")

	plain := checkAuthKeys(c)
	checkModelCalls(c)
	checkLimits(c)
	checkBudgets(c)
	checkSessionLimits(c)
	checkRouting(c)
	checkPricing(c)
	checkBatches(c)
	checkMessageBatches(c)
	checkRecordReads(c)
	checkGatewayReads(c)
	checkLegacy(c)
	checkRefusals(c, plain)
	c.covered()
}

// refusingUpstream is an OpenAI-shaped provider that refuses every chat
// call with the status its last message names ("fail 503").
func refusingUpstream(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	status := http.StatusInternalServerError
	if _, rest, ok := strings.Cut(string(b), "fail "); ok && len(rest) >= 3 {
		_, _ = fmt.Sscanf(rest[:3], "%d", &status)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":"upstream says %d","type":"server_error","param":null,"code":null}}`, status)
}

// dashboardOps lists the document's dashboard pages and assets.
func dashboardOps(c *conformance) []string {
	var out []string
	for op := range c.ops {
		if strings.HasPrefix(op, "GET /admin/dashboard") || strings.HasPrefix(op, "GET /admin/static/") {
			out = append(out, op)
		}
	}
	sort.Strings(out)
	return out
}

// checkAuthKeys creates, reads, changes, deactivates and deletes managed
// keys, and returns one without dashboard access.
func checkAuthKeys(c *conformance) managedKey {
	t := c.t
	expires := time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)
	res := c.ok("POST /admin/auth-keys", "/admin/auth-keys",
		`{"name":"conformance","user_path":"/team/alpha","description":"checks the document","expires_at":"`+expires+`"}`, status201)
	plain := managedKey{ID: res.JSON(t)["id"].(string), Secret: res.JSON(t)["key"].(string)}
	res = c.ok("POST /admin/auth-keys", "/admin/auth-keys", `{"name":"admin","dashboard_access":true}`, status201)
	admin := managedKey{ID: res.JSON(t)["id"].(string), Secret: res.JSON(t)["key"].(string)}
	res = c.ok("POST /admin/auth-keys", "/admin/auth-keys", `{"name":"doomed"}`, status201)
	doomed := res.JSON(t)["id"].(string)

	// The managed key is used once, so last_used_at is set.
	c.ok("POST /v1/chat/completions", "/v1/chat/completions", mockChat, status200, bearer(plain.Secret)...)
	c.ok("GET /admin/auth-keys", "/admin/auth-keys", "", status200)
	c.ok("GET /admin/auth-keys/{id}", "/admin/auth-keys/"+plain.ID, "", status200)
	c.ok("PATCH /admin/auth-keys/{id}", "/admin/auth-keys/"+plain.ID, `{"name":"conformance-renamed","user_path":"/team/alpha"}`, status200)
	c.ok("POST /admin/auth-keys/{id}/deactivate", "/admin/auth-keys/"+doomed+"/deactivate", "", status200)
	c.ok("GET /admin/auth-keys/{id}", "/admin/auth-keys/"+doomed, "", status200)
	c.ok("DELETE /admin/auth-keys/{id}", "/admin/auth-keys/"+doomed, "", status204)
	c.ok("GET /admin/auth-keys", "/admin/auth-keys", "", status200, bearer(admin.Secret)...)
	return plain
}

// checkModelCalls sends model calls of every shape, streamed and not, one
// with a session header.
func checkModelCalls(c *conformance) {
	t := c.t
	up := []string{userPathHeader, "/team/alpha"}
	c.ok("POST /v1/chat/completions", "/v1/chat/completions", mockChat, status200, up...)
	c.ok("POST /v1/chat/completions", "/v1/chat/completions",
		`{"model":"mock-chat","stream":true,"messages":[{"role":"user","content":"stream"}]}`, status200, up...)
	c.ok("POST /v1/chat/completions", "/v1/chat/completions",
		`{"model":"mock-chat","messages":[{"role":"user","content":"in a session"}]}`, status200,
		userPathHeader, "/team/alpha", "X-Session-Id", "sess-conformance")
	c.ok("POST /v1/chat/completions", "/v1/chat/completions",
		`{"model":"mock-chat","messages":[{"role":"user","content":"in a session"},{"role":"assistant","content":"Echo: in a session"},{"role":"user","content":"again"}]}`,
		status200, userPathHeader, "/team/alpha", "X-Session-Id", "sess-conformance")
	c.ok("POST /v1/responses", "/v1/responses", `{"model":"mock-chat","input":"hi"}`, status200, up...)
	c.ok("POST /v1/responses", "/v1/responses", `{"model":"mock-chat","input":"hi","stream":true}`, status200, up...)
	// Stored responses: read, paged, deleted, then gone.
	stored := c.ok("POST /v1/responses", "/v1/responses", `{"model":"mock-chat","input":[{"role":"user","content":"keep"},{"role":"user","content":"this"}]}`,
		status200, up...).JSON(t)["id"].(string)
	c.ok("GET /v1/responses/{id}", "/v1/responses/"+stored, "", status200, up...)
	c.ok("GET /v1/responses/{id}/input_items", "/v1/responses/"+stored+"/input_items?limit=1&order=asc", "", status200, up...)
	c.fails("GET /v1/responses/{id}/input_items", "/v1/responses/"+stored+"/input_items?limit=0", "", http.StatusBadRequest, up...)
	c.fails("GET /v1/responses/{id}", "/v1/responses/"+stored, "", http.StatusNotFound, userPathHeader, "/team/other")
	c.ok("DELETE /v1/responses/{id}", "/v1/responses/"+stored, "", status200, up...)
	c.fails("DELETE /v1/responses/{id}", "/v1/responses/"+stored, "", http.StatusNotFound, up...)
	msg := `{"model":"mock-chat","max_tokens":32,"messages":[{"role":"user","content":"hi"}]}`
	c.ok("POST /v1/messages", "/v1/messages", msg, status200, up...)
	c.ok("POST /v1/messages", "/v1/messages", `{"model":"mock-chat","max_tokens":32,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, status200, up...)
	c.ok("POST /v1/messages/count_tokens", "/v1/messages/count_tokens", msg, status200, up...)
	c.ok("POST /v1/embeddings", "/v1/embeddings", `{"model":"mock-embedding","input":"hi"}`, status200, up...)
	c.ok("POST /v1/audio/speech", "/v1/audio/speech", `{"model":"mock-tts","input":"hello","voice":"alloy"}`, status200, up...)
	form, ct := formBody(t, map[string]string{"model": "mock-transcribe"}, "file", "a.wav", fakeAudio)
	c.ok("POST /v1/audio/transcriptions", "/v1/audio/transcriptions", form, status200, "Content-Type", ct, userPathHeader, "/team/alpha")
	for _, format := range []string{"verbose_json", "text", "srt", "vtt"} {
		form, ct := formBody(t, map[string]string{"model": "mock-transcribe", "response_format": format}, "file", "a.wav", fakeAudio)
		c.ok("POST /v1/audio/transcriptions", "/v1/audio/transcriptions", form, status200, "Content-Type", ct)
	}
	form, ct = formBody(t, map[string]string{"model": "mock-transcribe", "stream": "true"}, "file", "a.wav", fakeAudio)
	c.ok("POST /v1/audio/transcriptions", "/v1/audio/transcriptions", form, status200, "Content-Type", ct)
	for _, format := range []string{"wav", "pcm"} {
		c.ok("POST /v1/audio/speech", "/v1/audio/speech", `{"model":"mock-tts","input":"hello","voice":"alloy","response_format":"`+format+`"}`, status200)
	}
	c.ok("POST /v1/audio/speech", "/v1/audio/speech", `{"model":"mock-tts","input":"hello","voice":"alloy","stream_format":"sse"}`, status200)
	// A response-cache hit answers the second identical call.
	c.ok("POST /v1/chat/completions", "/v1/chat/completions", mockChat, status200, up...)

	// Passthrough relays the provider's own answers, errors included.
	c.ok("GET /p/{provider}/{path}", "/p/demo/models", "", status200)
	c.ok("POST /p/{provider}/{path}", "/p/demo/embeddings", `{"model":"mock-embedding","input":"hi"}`, status200)
	res := c.ok("GET /p/{provider}/{path}", "/p/demo/nothing-here", "", []int{http.StatusNotFound})
	t.Logf("a provider's 404, relayed: %s", res.Body)
	c.ok("POST /p/{provider}/{path}", "/p/demo/embeddings", `{"model":"mock-embedding"}`, []int{http.StatusBadRequest})
}

// checkLimits writes, reads, resets and deletes rate-limit rules of every
// scope, a per_child template and a custom window among them.
func checkLimits(c *conformance) {
	for _, body := range []string{
		`{"user_path":"/team","period":"minute","max_requests":100,"max_tokens":100000}`,
		`{"user_path":"/customers","period":"hour","max_requests":5,"per_child":true}`,
		`{"scope":"provider","subject":"demo","period":"concurrent","max_requests":10}`,
		`{"scope":"model","subject":"mock-chat","period_seconds":600,"max_requests":1000}`,
		`{"user_path":"/limited","period":"minute","max_requests":1}`,
		`{"user_path":"/gone","period":"day","max_requests":1}`,
	} {
		c.ok("PUT /admin/rate-limits", "/admin/rate-limits", body, status200)
	}
	c.ok("PUT /admin/rate-limits", "/admin/rate-limits",
		`{"user_path":"/team","period":"minute","max_requests":200,"max_tokens":100000,"previous":{"user_path":"/team","period":"minute"}}`, status200)
	c.ok("POST /v1/chat/completions", "/v1/chat/completions", mockChat, status200, userPathHeader, "/customers/acme")
	c.ok("POST /v1/chat/completions", "/v1/chat/completions", mockChat, status200, userPathHeader, "/team/beta")
	c.ok("GET /admin/rate-limits", "/admin/rate-limits", "", status200)
	c.ok("GET /admin/rate-limits/children", "/admin/rate-limits/children?scope=user_path&subject=%2Fcustomers&period=hour&limit=10", "", status200)
	c.fails("GET /admin/rate-limits/children", "/admin/rate-limits/children?user_path=%2Fteam&period=minute", "", http.StatusBadRequest)
	c.fails("GET /admin/rate-limits/children", "/admin/rate-limits/children?user_path=%2Fnobody&period=hour", "", http.StatusNotFound)
	c.ok("GET /v1/usage", "/v1/usage", "", status200, userPathHeader, "/customers/acme")
	c.ok("POST /admin/rate-limits/reset-one", "/admin/rate-limits/reset-one", `{"scope":"user_path","subject":"/team","period":"minute"}`, status200)
	c.ok("POST /admin/rate-limits/reset-one", "/admin/rate-limits/reset-one", `{"user_path":"/customers/acme","period":"hour"}`, status200)
	c.ok("POST /admin/rate-limits/reset", "/admin/rate-limits/reset", `{"confirmation":"reset"}`, status200)
	c.ok("DELETE /admin/rate-limits", "/admin/rate-limits", `{"user_path":"/gone","period":"day"}`, status204)
	// Over the /limited rule: 429 with Retry-After.
	c.ok("POST /v1/chat/completions", "/v1/chat/completions", `{"model":"mock-chat","messages":[{"role":"user","content":"once"}]}`,
		status200, userPathHeader, "/limited")
	c.fails("POST /v1/chat/completions", "/v1/chat/completions", `{"model":"mock-chat","messages":[{"role":"user","content":"twice"}]}`,
		http.StatusTooManyRequests, userPathHeader, "/limited")
	c.fails("POST /v1/messages", "/v1/messages", `{"model":"mock-chat","max_tokens":8,"messages":[{"role":"user","content":"twice"}]}`,
		http.StatusTooManyRequests, userPathHeader, "/limited")
}

// checkBudgets writes, reads, resets and deletes budgets, a per_child
// template and a custom period among them, and the period anchors.
func checkBudgets(c *conformance) {
	c.ok("PUT /admin/budgets/{user_path}/{period}", "/admin/budgets/%2Fteam/daily", `{"amount":10}`, status200)
	c.ok("PUT /admin/budgets/{user_path}/{period}", "/admin/budgets/%2Fcustomers/monthly", `{"amount":5,"per_child":true}`, status200)
	c.ok("PUT /admin/budgets/{user_path}/{period}", "/admin/budgets/%2Fteam/3600", `{"amount":1}`, status200)
	c.ok("PUT /admin/budgets/{user_path}/{period}", "/admin/budgets/%2Fgone/weekly", `{"amount":2}`, status200)
	c.ok("POST /v1/chat/completions", "/v1/chat/completions", mockChat, status200, userPathHeader, "/team/alpha")
	c.ok("POST /v1/chat/completions", "/v1/chat/completions", mockChat, status200, userPathHeader, "/customers/acme")
	c.ok("GET /admin/budgets", "/admin/budgets", "", status200)
	c.ok("GET /admin/budgets/{user_path}/{period}/children", "/admin/budgets/%2Fcustomers/monthly/children?limit=10", "", status200)
	c.fails("GET /admin/budgets/{user_path}/{period}/children", "/admin/budgets/%2Fteam/daily/children", "", http.StatusBadRequest)
	c.fails("GET /admin/budgets/{user_path}/{period}/children", "/admin/budgets/%2Fnobody/daily/children", "", http.StatusNotFound)
	c.ok("POST /admin/budgets/reset-one", "/admin/budgets/reset-one", `{"user_path":"/customers/acme","period":"monthly"}`, status200)
	c.ok("GET /admin/budgets/settings", "/admin/budgets/settings", "", status200)
	c.ok("PUT /admin/budgets/settings", "/admin/budgets/settings", `{"daily_reset_hour":0,"weekly_reset_weekday":1,"monthly_reset_day":1}`, status200)
	c.ok("POST /admin/budgets/reset-one", "/admin/budgets/reset-one", `{"user_path":"/team","period":"daily"}`, status200)
	c.ok("POST /admin/budgets/reset-one", "/admin/budgets/reset-one", `{"user_path":"/team","period_seconds":3600}`, status200)
	c.ok("POST /admin/budgets/reset", "/admin/budgets/reset", `{"confirmation":"reset"}`, status200)
	c.ok("DELETE /admin/budgets/{user_path}/{period}", "/admin/budgets/%2Fgone/weekly", "", status204)
	c.ok("GET /v1/usage", "/v1/usage", "", status200, userPathHeader, "/team/alpha")
}

// checkRouting writes, uses, reads and deletes virtual models, an access
// policy and a failover route, and reads and purges the response cache.
func checkRouting(c *conformance) {
	c.ok("PUT /admin/virtual-models", "/admin/virtual-models",
		`{"source":"fast","description":"an alias","strategy":"round_robin","targets":[{"provider":"demo","model":"mock-chat","weight":2},{"provider":"demo","model":"mock-reasoner"}],"user_paths":["/team"],"session_affinity":true,"slowdown":0}`,
		status200)
	c.ok("PUT /admin/virtual-models", "/admin/virtual-models", `{"source":"demo/mock-reasoner","enabled":false}`, status200)
	c.ok("PUT /admin/virtual-models", "/admin/virtual-models", `{"source":"doomed","targets":[{"provider":"demo","model":"mock-chat"}]}`, status200)
	c.ok("PUT /admin/virtual-models", "/admin/virtual-models", `{"source":"renamed","old_source":"doomed","targets":[{"provider":"demo","model":"mock-chat"}]}`, status200)
	c.ok("POST /v1/chat/completions", "/v1/chat/completions", `{"model":"fast","messages":[{"role":"user","content":"via alias"}]}`, status200,
		userPathHeader, "/team/alpha", "X-Session-Id", "sess-alias")
	c.ok("GET /admin/virtual-models", "/admin/virtual-models", "", status200)
	c.ok("DELETE /admin/virtual-models/{source}", "/admin/virtual-models/renamed", "", status204)

	c.ok("PUT /admin/failover", "/admin/failover", `{"primary_model":"demo/mock-chat","targets":["demo/mock-embedding"]}`, status200)
	c.ok("PUT /admin/failover", "/admin/failover", `{"primary_model":"doomed","targets":["demo/mock-chat"]}`, status200)
	c.ok("GET /admin/failover", "/admin/failover", "", status200)
	c.ok("DELETE /admin/failover/{primary_model}", "/admin/failover/doomed", "", status204)

	c.ok("GET /admin/models", "/admin/models", "", status200)
	c.ok("GET /admin/models", "/admin/models?category=text_generation", "", status200)

	c.ok("GET /admin/cache", "/admin/cache", "", status200)
	c.ok("POST /admin/cache/purge", "/admin/cache/purge", `{"model":"mock-chat","user_path":"/team/alpha"}`, status200)
	c.ok("POST /admin/cache/purge", "/admin/cache/purge", `{"confirmation":"purge"}`, status200)
}

// checkPricing writes, lists and deletes a price override and runs a
// usage recalculation, reading its status.
func checkPricing(c *conformance) {
	t := c.t
	c.ok("PUT /admin/pricing", "/admin/pricing",
		`{"provider":"demo","model":"mock-chat","pricing":{"input_per_mtok":1,"output_per_mtok":2,"tiers":[{"up_to_tokens":1000,"input_per_mtok":1},{"input_per_mtok":2}]}}`, status200)
	c.fails("PUT /admin/pricing", "/admin/pricing", `{"provider":"demo","model":"mock-chat","pricing":{"currency":"EUR"}}`, http.StatusBadRequest)
	c.ok("GET /admin/pricing", "/admin/pricing", "", status200)
	c.ok("DELETE /admin/pricing", "/admin/pricing", `{"provider":"demo","model":"mock-chat"}`, status204)
	c.fails("DELETE /admin/pricing", "/admin/pricing", `{"provider":"demo","model":"mock-chat"}`, http.StatusNotFound)
	today := time.Now().UTC().Format(time.DateOnly)
	res := c.ok("POST /admin/usage/recalculate", "/admin/usage/recalculate",
		`{"start_date":"`+today+`","end_date":"`+today+`","provider":"demo","user_path":"/team"}`, status202)
	id, _ := res.JSON(t)["id"].(string)
	c.fails("POST /admin/usage/recalculate", "/admin/usage/recalculate", `{"start_date":"yesterday","end_date":"`+today+`"}`, http.StatusBadRequest)
	c.ok("GET /admin/usage/recalculate/{id}", "/admin/usage/recalculate/"+id, "", status200)
	c.fails("GET /admin/usage/recalculate/{id}", "/admin/usage/recalculate/recalc_none", "", http.StatusNotFound)
}

// checkBatches uploads a batch input file, submits, lists, reads and
// cancels a batch.
func checkBatches(c *conformance) {
	t := c.t
	form, ct := formBody(t, map[string]string{"purpose": "batch"}, "file", "input.jsonl", batchInput(2, "/v1/chat/completions", "mock-chat"))
	res := c.ok("POST /v1/files", "/v1/files", form, status200, "Content-Type", ct)
	fileID, _ := res.JSON(t)["id"].(string)
	c.ok("GET /v1/files/{id}", "/v1/files/"+fileID, "", status200)
	c.ok("GET /v1/files/{id}/content", "/v1/files/"+fileID+"/content", "", status200)
	c.ok("GET /v1/files", "/v1/files?limit=1&order=asc", "", status200)
	c.fails("GET /v1/files", "/v1/files?order=sideways", "", http.StatusBadRequest)
	res = c.ok("POST /v1/files", "/v1/files", form, status200, "Content-Type", ct)
	spareID, _ := res.JSON(t)["id"].(string)
	c.ok("DELETE /v1/files/{id}", "/v1/files/"+spareID, "", status200)
	c.fails("DELETE /v1/files/{id}", "/v1/files/"+spareID, "", http.StatusNotFound)
	res = c.ok("POST /v1/batches", "/v1/batches",
		`{"input_file_id":"`+fileID+`","endpoint":"/v1/chat/completions","completion_window":"24h"}`, status200)
	batchID, _ := res.JSON(t)["id"].(string)
	c.ok("GET /v1/batches", "/v1/batches", "", status200)
	c.ok("GET /v1/batches", "/v1/batches?limit=1&after="+url.QueryEscape(batchID), "", status200)
	c.fails("GET /v1/batches", "/v1/batches?limit=0", "", http.StatusBadRequest)
	c.fails("POST /v1/files", "/v1/files", `{"purpose":"batch"}`, http.StatusUnsupportedMediaType)
	c.fails("POST /v1/batches", "/v1/batches", `{"input_file_id":"`+fileID+`"}`, http.StatusBadRequest)
	c.fails("POST /v1/batches", "/v1/batches", `{}`, http.StatusUnsupportedMediaType, "Content-Type", "text/plain")
	c.ok("GET /v1/batches/{id}", "/v1/batches/"+batchID, "", status200)
	// The batch may have finished already: then cancelling it is refused.
	c.ok("POST /v1/batches/{id}/cancel", "/v1/batches/"+batchID+"/cancel", "", []int{http.StatusOK, http.StatusConflict})
}

// checkMessageBatches submits, lists, reads, cancels and deletes
// Anthropic message batches and reads their results, and has each of
// those refused.
func checkMessageBatches(c *conformance) {
	t := c.t
	body := `{"requests":[{"custom_id":"a","params":{"model":"mock-chat","max_tokens":16,"messages":[{"role":"user","content":"one"}]}},` +
		`{"custom_id":"b","params":{"model":"mock-chat","max_tokens":16,"messages":[{"role":"user","content":"two"}]}}]}`
	res := c.ok("POST /v1/messages/batches", "/v1/messages/batches", body, status200)
	id, _ := res.JSON(t)["id"].(string)
	c.fails("POST /v1/messages/batches", "/v1/messages/batches", `{"requests":[]}`, http.StatusBadRequest)
	c.fails("POST /v1/messages/batches", "/v1/messages/batches", `{}`, http.StatusUnsupportedMediaType, "Content-Type", "text/plain")
	c.ok("GET /v1/messages/batches", "/v1/messages/batches", "", status200)
	c.ok("GET /v1/messages/batches", "/v1/messages/batches?limit=1&after_id="+url.QueryEscape(id), "", status200)
	c.fails("GET /v1/messages/batches", "/v1/messages/batches?limit=0", "", http.StatusBadRequest)
	c.ok("GET /v1/messages/batches/{id}", "/v1/messages/batches/"+id, "", status200)
	c.fails("GET /v1/messages/batches/{id}", "/v1/messages/batches/msgbatch_nope", "", http.StatusNotFound)
	poll(t, 10*time.Second, "the message batch ended", func() bool {
		return request(t, "GET", c.g.URL+"/v1/messages/batches/"+id, "", bearer(masterKey)...).JSON(t)["processing_status"] == "ended"
	})
	c.ok("GET /v1/messages/batches/{id}/results", "/v1/messages/batches/"+id+"/results", "", status200)
	c.fails("GET /v1/messages/batches/{id}/results", "/v1/messages/batches/msgbatch_nope/results", "", http.StatusNotFound)
	c.fails("POST /v1/messages/batches/{id}/cancel", "/v1/messages/batches/"+id+"/cancel", "", http.StatusConflict)
	// A batch of many requests is still running when it is cancelled.
	var many strings.Builder
	many.WriteString(`{"requests":[`)
	for i := 0; i < 300; i++ {
		if i > 0 {
			many.WriteByte(',')
		}
		fmt.Fprintf(&many, `{"custom_id":"r%d","params":{"model":"mock-chat","max_tokens":16,"messages":[{"role":"user","content":"x"}]}}`, i)
	}
	many.WriteString(`]}`)
	res = c.ok("POST /v1/messages/batches", "/v1/messages/batches", many.String(), status200)
	running, _ := res.JSON(t)["id"].(string)
	c.fails("DELETE /v1/messages/batches/{id}", "/v1/messages/batches/"+running, "", http.StatusConflict)
	c.fails("GET /v1/messages/batches/{id}/results", "/v1/messages/batches/"+running+"/results", "", http.StatusConflict)
	c.ok("POST /v1/messages/batches/{id}/cancel", "/v1/messages/batches/"+running+"/cancel", "", status200)
	c.ok("DELETE /v1/messages/batches/{id}", "/v1/messages/batches/"+id, "", status200)
	c.fails("DELETE /v1/messages/batches/{id}", "/v1/messages/batches/"+id, "", http.StatusNotFound)
}

// checkRecordReads reads the audit log, its stats, a conversation and the
// usage views.
func checkRecordReads(c *conformance) {
	t := c.t
	res := c.ok("GET /admin/audit/log", "/admin/audit/log?limit=200", "", status200)
	entries, _ := res.JSON(t)["entries"].([]any)
	if len(entries) == 0 {
		t.Fatalf("no audit entries: %s", res.Body)
	}
	c.ok("GET /admin/audit/log", "/admin/audit/log?limit=5&offset=1&status=2xx&days=7&search=chat", "", status200)
	c.ok("GET /admin/audit/log", "/admin/audit/log?session_id=sess-conformance", "", status200)
	var anchor string
	for _, e := range entries {
		e := e.(map[string]any)
		id := e["id"].(string)
		c.ok("GET /admin/audit/log/{id}", "/admin/audit/log/"+id, "", status200)
		if e["session_id"] == "sess-conformance" {
			anchor = id
		}
	}
	if anchor == "" {
		t.Fatalf("no entry of the session: %s", res.Body)
	}
	c.ok("GET /admin/audit/conversation", "/admin/audit/conversation?log_id="+anchor, "", status200)
	c.ok("GET /admin/audit/conversation", "/admin/audit/conversation?log_id="+anchor+"&limit=1", "", status200)
	c.ok("GET /admin/audit/conversation", "/admin/audit/conversation?log_id="+anchor+"&max_bytes=1&before="+anchor, "", status200)
	c.ok("GET /admin/audit/log", "/admin/audit/log?key_id=k&error_code=c&status=4xx,5xx&model_contains=gpt", "", status200)
	c.ok("GET /admin/audit/stats", "/admin/audit/stats?days=1", "", status200)
	c.ok("GET /admin/audit/stats", "/admin/audit/stats", "", status200)

	today := time.Now().UTC().Format(time.DateOnly)
	c.ok("GET /admin/usage/summary", "/admin/usage/summary", "", status200)
	c.ok("GET /admin/usage/summary", "/admin/usage/summary?start_date="+today+"&end_date="+today, "", status200)
	c.ok("GET /admin/usage/summary", "/admin/usage/summary?user_path=/team&key_id=k&model=m&provider=p", "", status200)
	c.ok("GET /admin/usage/daily", "/admin/usage/daily?user_path=/team&key_id=k&model=m&provider=p", "", status200)
	c.ok("GET /admin/usage/sessions", "/admin/usage/sessions?model=m", "", status200)
	for _, interval := range []string{"daily", "weekly", "monthly", "yearly"} {
		c.ok("GET /admin/usage/daily", "/admin/usage/daily?interval="+interval, "", status200)
	}
	res = c.ok("GET /admin/usage/sessions", "/admin/usage/sessions?limit=1", "", status200)
	if cursor, _ := res.JSON(t)["next_cursor"].(string); cursor != "" {
		c.ok("GET /admin/usage/sessions", "/admin/usage/sessions?limit=1&cursor="+url.QueryEscape(cursor), "", status200)
	}
	c.ok("GET /admin/usage/sessions", "/admin/usage/sessions?user_path=/team", "", status200)
	for _, by := range []string{"user_path", "key", "model", "provider", "endpoint"} {
		c.ok("GET /admin/usage/breakdown", "/admin/usage/breakdown?by="+by, "", status200)
	}
	res = c.ok("GET /admin/usage/breakdown", "/admin/usage/breakdown?by=user_path&depth=1&limit=1&days=7&user_path=/team", "", status200)
	if next, _ := res.JSON(t)["next"].(string); next != "" {
		c.ok("GET /admin/usage/breakdown", "/admin/usage/breakdown?by=user_path&depth=1&limit=1&days=7&user_path=/team&after="+url.QueryEscape(next), "", status200)
	}
	c.ok("GET /admin/usage/breakdown", "/admin/usage/breakdown?by=key&key_id=none&model=m&provider=p", "", status200)
	c.skip("a text/event-stream that does not end; its 400 is checked in checkRefusals", "GET /admin/live/logs")
}

// checkGatewayReads reads the listings, self usage, health, runtime
// configuration and the document itself.
func checkGatewayReads(c *conformance) {
	c.ok("GET /v1/models", "/v1/models", "", status200)
	c.ok("GET /v1/models/{path}", "/v1/models/mock-chat", "", status200)
	c.ok("GET /v1/models/{path}", "/v1/models/demo%2Fmock-chat", "", status200)
	c.ok("GET /v1/usage", "/v1/usage", "", status200)
	c.ok("GET /health", "/health", "", status200)
	c.ok("GET /admin/runtime/config", "/admin/runtime/config", "", status200)
	c.ok("GET /admin/openapi.json", "/admin/openapi.json", "", status200)
}

// checkLegacy runs the admin checks again on the legacy alias, whose
// answers carry Deprecation, Sunset and Link, and reads the moved
// runtime configuration at its old path.
func checkLegacy(c *conformance) {
	c.legacy = true
	defer func() { c.legacy = false }()
	checkAuthKeys(c)
	checkLimits(c)
	checkBudgets(c)
	checkSessionLimits(c)
	checkRouting(c)
	checkPricing(c)
	checkRecordReads(c)
	checkGatewayReads(c)
	c.ok("GET /admin/api/v1/dashboard/config", "/admin/api/v1/dashboard/config", "", status200)
	c.fails("GET /admin/auth-keys", "/admin/auth-keys", "", http.StatusUnauthorized, "Authorization", "")
}

// checkRefusals validates error answers: no or a wrong key, a key
// without dashboard access (plain), unknown ids, bad parameters and
// bodies, refused origins and media types, and a provider's refusals.
func checkRefusals(c *conformance, plain managedKey) {
	noKey := []string{"Authorization", ""}
	c.fails("GET /admin/auth-keys", "/admin/auth-keys", "", http.StatusUnauthorized, noKey...)
	c.fails("GET /admin/auth-keys", "/admin/auth-keys", "", http.StatusUnauthorized, bearer("sk_mg_wrong")...)
	c.fails("GET /admin/auth-keys", "/admin/auth-keys", "", http.StatusForbidden, bearer(plain.Secret)...)
	c.fails("POST /v1/chat/completions", "/v1/chat/completions", mockChat, http.StatusUnauthorized, noKey...)
	c.fails("POST /v1/messages", "/v1/messages", `{"model":"mock-chat","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}`,
		http.StatusUnauthorized, noKey...)
	c.fails("GET /v1/usage", "/v1/usage", "", http.StatusUnauthorized, noKey...)

	c.fails("GET /admin/auth-keys/{id}", "/admin/auth-keys/key_doesnotexist", "", http.StatusNotFound)
	c.fails("PATCH /admin/auth-keys/{id}", "/admin/auth-keys/key_doesnotexist", `{"name":"x"}`, http.StatusNotFound)
	c.fails("DELETE /admin/auth-keys/{id}", "/admin/auth-keys/key_doesnotexist", "", http.StatusNotFound)
	c.fails("GET /admin/audit/log/{id}", "/admin/audit/log/01J0000000000000000000000X", "", http.StatusNotFound)
	c.fails("GET /admin/audit/conversation", "/admin/audit/conversation?log_id=01J0000000000000000000000X", "", http.StatusNotFound)
	c.fails("GET /v1/models/{path}", "/v1/models/no-such-model", "", http.StatusNotFound)
	c.fails("GET /v1/batches/{id}", "/v1/batches/batch_doesnotexist", "", http.StatusNotFound)
	c.fails("POST /v1/chat/completions", "/v1/chat/completions", `{"model":"no-such-model","messages":[{"role":"user","content":"hi"}]}`,
		http.StatusNotFound)
	c.fails("DELETE /admin/virtual-models/{source}", "/admin/virtual-models/no-such-alias", "", http.StatusNotFound)
	c.fails("DELETE /admin/failover/{primary_model}", "/admin/failover/no-such-route", "", http.StatusNotFound)
	c.fails("DELETE /admin/budgets/{user_path}/{period}", "/admin/budgets/%2Fnobody/daily", "", http.StatusNotFound)

	c.fails("GET /admin/usage/summary", "/admin/usage/summary?days=abc", "", http.StatusBadRequest)
	c.fails("GET /admin/usage/breakdown", "/admin/usage/breakdown?by=team", "", http.StatusBadRequest)
	c.fails("GET /admin/audit/stats", "/admin/audit/stats?start_date=2026-13-40", "", http.StatusBadRequest)
	c.fails("GET /admin/models", "/admin/models?category=bogus", "", http.StatusBadRequest)
	c.fails("GET /admin/audit/conversation", "/admin/audit/conversation", "", http.StatusBadRequest)
	c.fails("GET /admin/live/logs", "/admin/live/logs?cursor=abc", "", http.StatusBadRequest)
	c.fails("POST /admin/auth-keys", "/admin/auth-keys", `{"name":""}`, http.StatusBadRequest)
	c.fails("PUT /admin/rate-limits", "/admin/rate-limits", `{"user_path":"/x","period":"fortnight","max_requests":1}`, http.StatusBadRequest)
	c.fails("POST /admin/rate-limits/reset", "/admin/rate-limits/reset", `{}`, http.StatusBadRequest)
	c.fails("POST /admin/cache/purge", "/admin/cache/purge", `{}`, http.StatusBadRequest)
	c.fails("POST /v1/chat/completions", "/v1/chat/completions", `{"messages":[]}`, http.StatusBadRequest)
	c.fails("GET /v1/realtime", "/v1/realtime?model=mock-chat", "", http.StatusUpgradeRequired)
	c.fails("GET /v1/realtime", "/v1/realtime", "", http.StatusBadRequest,
		"Connection", "Upgrade", "Upgrade", "websocket", "Sec-WebSocket-Version", "13", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	c.fails("GET /v1/realtime", "/v1/realtime?model=mock-chat", "", http.StatusForbidden,
		"Connection", "Upgrade", "Upgrade", "websocket", "Sec-WebSocket-Version", "13", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==",
		"Origin", "http://evil.example")

	// Refusals every model call shares: a disabled model, a page of
	// another site, a body that is not JSON.
	chat := `{"model":"demo/mock-reasoner","messages":[{"role":"user","content":"hi"}]}`
	c.fails("POST /v1/chat/completions", "/v1/chat/completions", chat, http.StatusForbidden)
	for op, body := range map[string]string{
		"POST /v1/chat/completions":      mockChat,
		"POST /v1/responses":             `{"model":"mock-chat","input":"hi"}`,
		"POST /v1/messages":              `{"model":"mock-chat","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}`,
		"POST /v1/messages/count_tokens": `{"model":"mock-chat","messages":[{"role":"user","content":"hi"}]}`,
		"POST /v1/embeddings":            `{"model":"mock-embedding","input":"hi"}`,
		"POST /v1/audio/speech":          `{"model":"mock-tts","input":"hi","voice":"alloy"}`,
		"POST /v1/audio/transcriptions":  `{"model":"mock-transcribe"}`,
	} {
		path := strings.TrimPrefix(op, "POST ")
		c.fails(op, path, body, http.StatusForbidden, "Origin", "http://evil.example")
		c.fails(op, path, body, http.StatusUnsupportedMediaType, "Content-Type", "text/plain")
	}
	c.fails("POST /p/{provider}/{path}", "/p/demo/models", "{}", http.StatusForbidden, "Origin", "http://evil.example")

	// A provider's refusal or failure is answered with its status.
	for _, status := range []int{400, 409, 422, 500, 503, 529} {
		body := fmt.Sprintf(`{"model":"flaky/flaky-model","messages":[{"role":"user","content":"fail %d"}]}`, status)
		c.fails("POST /v1/chat/completions", "/v1/chat/completions", body, status)
	}

	// A path parameter is one segment, so the passthrough path is one.
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
		c.fails(m+" /p/{provider}/{path}", "/p/nosuchprovider/models", "", http.StatusNotFound)
	}
}
