package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/domain/sessions"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
)

func rlEngine(t testing.TB, rules ...limits.Rule) *limits.Engine {
	t.Helper()
	e, err := limits.New(limits.Options{TokensEnforced: true, QuotaTemplates: true})
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

// rlServe runs one request for userPath through limitUserPath with next.
func rlServe(e *limits.Engine, method, path, userPath string, next caddyhttp.HandlerFunc) (*httptest.ResponseRecorder, *reqinfo.Info) {
	info := reqinfo.New()
	info.UserPath = userPath
	req := httptest.NewRequest(method, path, nil)
	req = req.WithContext(reqinfo.With(req.Context(), info))
	rec := httptest.NewRecorder()
	_ = limitUserPath(e, classify(routes.Lookup(method, path)), new(userPathAdmission), rec, req, next)
	return rec, info
}

func ok200(w http.ResponseWriter, _ *http.Request) error {
	w.WriteHeader(200)
	return nil
}

// TestClassify: the rate-limit stage counts each request as its route's
// RateLimit attribute in the route table says, and the table says what the
// rules require.
func TestClassify(t *testing.T) {
	for _, c := range []struct {
		method, path string
		want         routes.Counting
	}{
		{"POST", "/v1/chat/completions", routes.CountRequestAndSlot},
		{"POST", "/v1/embeddings/", routes.CountRequestAndSlot},
		{"POST", "/v1/messages", routes.CountRequestAndSlot},
		{"POST", "/v1/responses", routes.CountRequestAndSlot},
		{"POST", "/v1/audio/speech", routes.CountRequestAndSlot},
		{"POST", "/v1/audio/transcriptions", routes.CountRequestAndSlot},
		{"GET", "/v1/realtime", routes.CountRequestAndSlot},
		{"GET", "/p/elevenlabs/v2/voices", routes.CountRequestAndSlot},
		{"POST", "/v1/batches", routes.CountRequest},
		{"GET", "/v1/batches", routes.CountNone},
		{"GET", "/v1/batches/b1", routes.CountNone},
		{"POST", "/v1/batches/b1/cancel", routes.CountNone},
		{"POST", "/v1/messages/batches", routes.CountRequest},
		{"GET", "/v1/messages/batches", routes.CountNone},
		{"GET", "/v1/messages/batches/b1", routes.CountNone},
		{"GET", "/v1/messages/batches/b1/results", routes.CountNone},
		{"DELETE", "/v1/messages/batches/b1", routes.CountNone},
		{"POST", "/v1/messages/batches/b1/cancel", routes.CountNone},
		{"POST", "/v1/files", routes.CountNone},
		{"POST", "/v1/messages/count_tokens", routes.CountNone},
		{"GET", "/v1/usage", routes.CountNone},
		{"GET", "/v1/models", routes.CountNone},
		{"GET", "/v1/models/gpt-4o", routes.CountNone},
		{"GET", "/v1/chat/completions", routes.CountNone},
		{"HEAD", "/v1/usage", routes.CountNone},
		{"GET", "/health", routes.CountNone},
		{"POST", "/admin/rate-limits/reset", routes.CountNone},
		{"POST", "/other", routes.CountNone},
	} {
		if got := classify(routes.Lookup(c.method, c.path)); got != c.want {
			t.Errorf("%s %s: %s, want %s", c.method, c.path, got, c.want)
		}
	}
	// Every route of the table: classify is its attribute.
	for _, rt := range routes.All() {
		method := rt.Method
		if method == routes.Any {
			method = "PUT"
		}
		path := strings.ReplaceAll(strings.ReplaceAll(rt.Path, "{id}", "x1"), "{provider}", "p1")
		path = strings.ReplaceAll(path, "*", "a/b")
		if got := classify(routes.Lookup(method, path)); got != rt.RateLimit {
			t.Errorf("%s %s: classify %s, table %s", method, path, got, rt.RateLimit)
		}
	}
}

func TestRateLimitRequests(t *testing.T) {
	e := rlEngine(t, limits.Rule{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodMinute, MaxRequests: 3})
	for i := 1; i <= 3; i++ {
		rec, _ := rlServe(e, "POST", "/v1/chat/completions", "/team/a", ok200)
		h := rec.Header()
		if rec.Code != 200 || h.Get("X-Ratelimit-Limit-Requests") != "3" || h.Get("X-Ratelimit-Remaining-Requests") != strconv.Itoa(3-i) ||
			h.Get("X-Ratelimit-Reset-Requests") == "" {
			t.Fatalf("request %d: %d %v", i, rec.Code, h)
		}
	}
	called := false
	rec, _ := rlServe(e, "POST", "/v1/chat/completions", "/team/b", func(http.ResponseWriter, *http.Request) error {
		called = true
		return nil
	})
	if called || rec.Code != 429 {
		t.Fatalf("fourth: %d, next called %v", rec.Code, called)
	}
	ra, _ := strconv.Atoi(rec.Header().Get("Retry-After"))
	if ra < 1 || ra > 120 || rec.Header().Get("X-Ratelimit-Remaining-Requests") != "0" || rec.Header().Get("X-Ratelimit-Limit-Requests") != "3" {
		t.Fatalf("headers %v", rec.Header())
	}
	var body struct {
		Error struct {
			Type, Code, Message string
			StatusCode          int `json:"status_code"`
		}
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Error.Type != "rate_limit_error" ||
		body.Error.Code != "rate_limit_exceeded" || body.Error.StatusCode != 429 {
		t.Fatalf("body %s", rec.Body)
	}
	// Anthropic clients get their envelope.
	rec, _ = rlServe(e, "POST", "/v1/messages", "/team", ok200)
	if rec.Code != 429 || rec.Header().Get("Retry-After") == "" ||
		rec.Body.String() != `{"type":"error","error":{"type":"rate_limit_error","message":"rate limit exceeded: user_path rule on \"/team\" allows 3 requests per minute"}}` {
		t.Fatalf("messages: %d %s", rec.Code, rec.Body)
	}
	// Siblings, uncounted routes and cache hits pass.
	if rec, _ := rlServe(e, "POST", "/v1/chat/completions", "/team-alpha", ok200); rec.Code != 200 || rec.Header().Get("X-Ratelimit-Limit-Requests") != "" {
		t.Fatalf("/team-alpha: %d %v", rec.Code, rec.Header())
	}
	if rec, _ := rlServe(e, "POST", "/v1/messages/count_tokens", "/team", ok200); rec.Code != 200 {
		t.Fatalf("count_tokens: %d", rec.Code)
	}
	info := reqinfo.New()
	info.UserPath, info.CacheHit = "/team", true
	req := httptest.NewRequest("POST", "/v1/chat/completions", nil)
	rec = httptest.NewRecorder()
	_ = limitUserPath(e, routes.CountRequestAndSlot, new(userPathAdmission), rec, req.WithContext(reqinfo.With(req.Context(), info)), caddyhttp.HandlerFunc(ok200))
	if rec.Code != 200 {
		t.Fatalf("cache hit: %d", rec.Code)
	}
	// No engine (rate limiting off): everything passes.
	if rec, _ := rlServe(nil, "POST", "/v1/chat/completions", "/team", ok200); rec.Code != 200 {
		t.Fatalf("off: %d", rec.Code)
	}
}

func inFlight(t *testing.T, e *limits.Engine, subject string) int64 {
	t.Helper()
	for _, st := range e.Rules() {
		if st.Key.Subject == subject && st.Key.Period == limits.PeriodConcurrent {
			return st.Usage.InFlight
		}
	}
	t.Fatalf("no concurrent rule on %s", subject)
	return 0
}

func TestRateLimitSlotsAndTokens(t *testing.T) {
	e := rlEngine(t,
		limits.Rule{Scope: limits.ScopeUserPath, Subject: "/u", Period: limits.PeriodConcurrent, MaxRequests: 1},
		limits.Rule{Scope: limits.ScopeUserPath, Subject: "/u", Period: limits.PeriodHour, MaxTokens: 1000})
	// While one request runs, a second is refused; the slot is released
	// when next returns, and its tokens are charged.
	rec, _ := rlServe(e, "POST", "/v1/chat/completions", "/u", func(w http.ResponseWriter, r *http.Request) error {
		if n := inFlight(t, e, "/u"); n != 1 {
			t.Errorf("in flight %d during the request", n)
		}
		if rec, _ := rlServe(e, "POST", "/v1/chat/completions", "/u", ok200); rec.Code != 429 || rec.Header().Get("Retry-After") != "1" {
			t.Errorf("second concurrent request: %d %v", rec.Code, rec.Header())
		}
		reqinfo.From(r.Context()).SetUsage(catalog.Usage{InputTokens: 300, OutputTokens: 100, TotalTokens: 400})
		return ok200(w, r)
	})
	if rec.Code != 200 || rec.Header().Get("X-Ratelimit-Limit-Tokens") != "1000" {
		t.Fatalf("%d %v", rec.Code, rec.Header())
	}
	if n := inFlight(t, e, "/u"); n != 0 {
		t.Fatalf("in flight %d after the request", n)
	}
	rec, _ = rlServe(e, "POST", "/v1/chat/completions", "/u", ok200)
	if got := rec.Header().Get("X-Ratelimit-Remaining-Tokens"); got != "600" {
		t.Fatalf("remaining tokens %q after 400 used", got)
	}
	// A panic inside next still releases the slot.
	func() {
		defer func() { _ = recover() }()
		rlServe(e, "POST", "/v1/chat/completions", "/u", func(http.ResponseWriter, *http.Request) error { panic("boom") })
	}()
	if n := inFlight(t, e, "/u"); n != 0 {
		t.Fatalf("in flight %d after a panic", n)
	}
	// A batch submission counts one request and takes no slot.
	rec, _ = rlServe(e, "POST", "/v1/batches", "/u", func(w http.ResponseWriter, r *http.Request) error {
		if n := inFlight(t, e, "/u"); n != 0 {
			t.Errorf("batch holds %d slots", n)
		}
		return ok200(w, r)
	})
	if rec.Code != 200 {
		t.Fatalf("batch %d", rec.Code)
	}
}

func TestRateLimitWithoutInfo(t *testing.T) {
	e := rlEngine(t, limits.Rule{Scope: limits.ScopeUserPath, Subject: "/", Period: limits.PeriodMinute, MaxRequests: 1})
	var saw *reqinfo.Info
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		saw = reqinfo.From(r.Context())
		return ok200(w, r)
	})
	rec := httptest.NewRecorder()
	_ = limitUserPath(e, routes.CountRequestAndSlot, new(userPathAdmission), rec, httptest.NewRequest("POST", "/v1/embeddings", nil), next)
	if rec.Code != 200 || saw == nil {
		t.Fatalf("%d, info %v", rec.Code, saw)
	}
	rec = httptest.NewRecorder()
	_ = limitUserPath(e, routes.CountRequestAndSlot, new(userPathAdmission), rec, httptest.NewRequest("POST", "/v1/embeddings", nil), next)
	if rec.Code != 429 {
		t.Fatalf("root path not limited: %d", rec.Code)
	}
}

// headerWriter is a ResponseWriter that keeps one header map across
// requests, as a server's connection reuse would.
type headerWriter struct{ h http.Header }

func (w *headerWriter) Header() http.Header         { return w.h }
func (w *headerWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *headerWriter) WriteHeader(int)             {}

// BenchmarkRateLimitHandler is the allowed path of the whole stage: a
// request for one of 10,000 active child partitions of a per_child
// template, among 100 rules, with the x-ratelimit-* headers set and the
// admission released.
func BenchmarkRateLimitHandler(b *testing.B) {
	const big = 1 << 50
	rules := []limits.Rule{
		{Scope: limits.ScopeUserPath, Subject: "/", Period: limits.PeriodMinute, MaxRequests: big},
		{Scope: limits.ScopeUserPath, Subject: "/customers", Period: limits.PeriodHour, MaxRequests: big, PerChild: true},
		{Scope: limits.ScopeUserPath, Subject: "/customers", Period: limits.PeriodConcurrent, MaxRequests: big},
	}
	for i := 0; len(rules) < 100; i++ {
		rules = append(rules, limits.Rule{Scope: limits.ScopeUserPath, Subject: fmt.Sprintf("/team%d/app", i), Period: limits.PeriodMinute, MaxRequests: big})
	}
	e := rlEngine(b, rules...)
	reqs := make([]*http.Request, 10000)
	for i := range reqs {
		info := reqinfo.New()
		info.UserPath = fmt.Sprintf("/customers/c%d/app", i)
		r := httptest.NewRequest("POST", "/v1/chat/completions", nil)
		reqs[i] = r.WithContext(reqinfo.With(r.Context(), info))
		a, rej := e.AdmitUserPath(info.UserPath)
		if rej != nil {
			b.Fatal(rej)
		}
		a.Done(0)
	}
	w := &headerWriter{h: http.Header{}}
	next := caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { return nil })
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := reqs[i%len(reqs)]
		if err := limitUserPath(e, classify(routes.LookupRequest(r)), new(userPathAdmission), w, r, next); err != nil {
			b.Fatal(err)
		}
	}
}

// answered returns an Info whose request reached a provider.
func answeredInfo() *reqinfo.Info {
	info := reqinfo.New()
	info.AddAttempt(reqinfo.Attempt{Provider: "p", StatusCode: 200})
	return info
}

// writeAnswer writes status, content type and body through a
// sessionWriter and returns it.
func writeAnswer(status int, contentType, body string) *sessionWriter {
	sw := &sessionWriter{ResponseWriter: httptest.NewRecorder()}
	sw.Header().Set("Content-Type", contentType)
	sw.WriteHeader(status)
	_, _ = sw.Write([]byte(body))
	return sw
}

func TestSessionOutcome(t *testing.T) {
	want := `tool:ls {"path":"."}`
	for name, tc := range map[string]struct {
		shape       routes.Shape
		ct, body    string
		wantSig     string
		status      int
		uncalled    bool
		wantUncount bool
	}{
		"chat": {shape: routes.ShapeChat, ct: "application/json", status: 200, wantSig: want,
			body: `{"choices":[{"message":{"tool_calls":[{"id":"a","function":{"name":"ls","arguments":"{ \"path\": \".\" }"}}]}}]}`},
		"chat stream": {shape: routes.ShapeChat, ct: "text/event-stream", status: 200, wantSig: want,
			body: "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"ls\",\"arguments\":\"{\\\"path\\\":\"}}]}}]}\n\n" +
				"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\".\\\"}\"}}]}}]}\n\ndata: [DONE]\n\n"},
		"messages stream": {shape: routes.ShapeMessages, ct: "text/event-stream", status: 200, wantSig: want,
			body: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"content\":[]}}\n\n" +
				"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"ls\",\"input\":{}}}\n\n" +
				"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\":\\\".\\\"}\"}}\n\n" +
				"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
				"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"},
		"responses": {shape: routes.ShapeResponses, ct: "application/json", status: 200, wantSig: want,
			body: `{"output":[{"type":"function_call","name":"ls","arguments":"{\"path\":\".\"}"}]}`},
		"text": {shape: routes.ShapeChat, ct: "application/json", status: 200,
			body: `{"choices":[{"message":{"content":"hello"}}]}`},
		"upstream error": {shape: routes.ShapeChat, ct: "application/json", status: 400,
			wantSig: sessions.ErrorSignature(400, "bad_tool", "no such tool"),
			body:    `{"error":{"type":"invalid_request_error","code":"bad_tool","message":"no such tool"}}`},
		"not called": {shape: routes.ShapeChat, ct: "application/json", status: 429, uncalled: true, wantUncount: true,
			body: `{"error":{"type":"rate_limit_error","message":"x"}}`},
	} {
		t.Run(name, func(t *testing.T) {
			info := reqinfo.New()
			if !tc.uncalled {
				info = answeredInfo()
			}
			o := sessionOutcome(info, writeAnswer(tc.status, tc.ct, tc.body), tc.shape)
			if o.Uncounted != tc.wantUncount || o.Signature != tc.wantSig {
				t.Fatalf("outcome %+v, want signature %q uncounted %v", o, tc.wantSig, tc.wantUncount)
			}
		})
	}
}

func TestSessionOutcomeGatewayError(t *testing.T) {
	info := answeredInfo()
	info.ErrorStatus, info.ErrorCode, info.ErrorMessage = 502, "upstream_error", "the provider failed"
	o := sessionOutcome(info, writeAnswer(200, "text/event-stream", "data: {}\n\n"), routes.ShapeChat)
	if o.Signature != sessions.ErrorSignature(502, "upstream_error", "the provider failed") {
		t.Fatalf("signature %q", o.Signature)
	}
	hit := answeredInfo()
	hit.CacheHit = true
	if o := sessionOutcome(hit, writeAnswer(200, "application/json", "{}"), routes.ShapeChat); !o.Uncounted {
		t.Fatal("a cache hit counts")
	}
}

func TestSessionWriterCapsCapture(t *testing.T) {
	sw := writeAnswer(200, "application/json", string(make([]byte, maxSessionCapture+1)))
	if !sw.over || sw.buf != nil {
		t.Fatal("an answer past the cap is kept")
	}
	if o := sessionOutcome(answeredInfo(), sw, routes.ShapeChat); o.Signature != "" || o.Uncounted {
		t.Fatalf("outcome %+v", o)
	}
	rec := httptest.NewRecorder()
	w := &sessionWriter{ResponseWriter: rec}
	if http.NewResponseController(w).Flush() != nil || !rec.Flushed {
		t.Fatal("flush does not reach the client")
	}
}
