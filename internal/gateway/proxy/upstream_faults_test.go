package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// Provider credentials of the fault rig; no answer may contain them.
const (
	rigOpenAIKey    = "sk-rig-openai-0123456789"
	rigAnthropicKey = "sk-ant-rig-9876543210"
)

// faultRig is a gateway (the proxy service behind a real HTTP server, so
// that aborted responses behave as they do in production) in front of a
// real upstream server whose handler each test sets. Model m1 goes to an
// OpenAI upstream (chat and Responses natively), model claude to an
// Anthropic one; both have a concurrency limit of one and passthrough
// (/p/up/..., /p/an/...) enabled.
type faultRig struct {
	t      *testing.T
	gw     *httptest.Server
	engine *limits.Engine
	errLog *syncBuffer
	logs   *observer.ObservedLogs // the service's log

	// infos receive each request's info once its handler returned
	// (when there is room; see served).
	infos chan *reqinfo.Info

	mu      sync.Mutex
	handler http.HandlerFunc
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newFaultRig(t *testing.T, l UpstreamLimits) *faultRig {
	rig := &faultRig{t: t, errLog: &syncBuffer{}, infos: make(chan *reqinfo.Info, 64)}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rig.mu.Lock()
		h := rig.handler
		rig.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(up.Close)
	oa, err := providers.New(providers.Options{Name: "up", Type: "openai",
		BaseURL: up.URL + "/v1", APIKey: rigOpenAIKey, Client: up.Client()})
	if err != nil {
		t.Fatal(err)
	}
	an, err := providers.New(providers.Options{Name: "an", Type: "anthropic", BaseURL: up.URL + "/v1",
		APIKey: rigAnthropicKey, Client: up.Client()})
	if err != nil {
		t.Fatal(err)
	}
	reg := providers.NewRegistry([]providers.Entry{
		{Provider: oa, Models: []string{"m1"}, Allowlist: true},
		{Provider: an, Models: []string{"claude"}, Allowlist: true},
	}, providers.RegistryOptions{})
	reg.Start(context.Background())
	<-reg.Ready()
	rig.engine = limitsEngine(t,
		limits.Rule{Scope: limits.ScopeProvider, Subject: "up", Period: limits.PeriodConcurrent, MaxRequests: 1},
		limits.Rule{Scope: limits.ScopeProvider, Subject: "an", Period: limits.PeriodConcurrent, MaxRequests: 1})
	core, logs := observer.New(zap.DebugLevel)
	rig.logs = logs
	s := &Service{Registry: reg, MaxBodyBytes: 1 << 20, Limits: rig.engine, Logger: zap.New(core),
		Upstreams:   NewUpstreams(map[string]UpstreamLimits{"up": l, "an": l}, []string{rigOpenAIKey, rigAnthropicKey}),
		Passthrough: Passthrough{Enabled: []string{"up", "an"}}}
	rig.gw = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := reqinfo.New()
		defer func() {
			select {
			case rig.infos <- info:
			default:
			}
		}()
		s.ServeHTTP(w, r.WithContext(reqinfo.With(r.Context(), info)))
	}))
	rig.gw.Config.ErrorLog = log.New(rig.errLog, "", 0)
	rig.gw.Start()
	t.Cleanup(rig.gw.Close)
	return rig
}

// served returns the info of the next request whose handler returns
// after earlier ones were drained: call drain before the request.
func (rig *faultRig) served() *reqinfo.Info {
	rig.t.Helper()
	select {
	case info := <-rig.infos:
		return info
	case <-time.After(5 * time.Second):
		rig.t.Fatal("the request's handler did not return")
		return nil
	}
}

// drain forgets the infos of the requests served so far.
func (rig *faultRig) drain() {
	for {
		select {
		case <-rig.infos:
		default:
			return
		}
	}
}

func (rig *faultRig) upstream(h http.HandlerFunc) {
	rig.mu.Lock()
	rig.handler = h
	rig.mu.Unlock()
}

// rigCall is one client request's outcome.
type rigCall struct {
	status  int
	body    string
	readErr error // set when the response was cut off
	took    time.Duration
}

// call posts body to path. Streams are asked for by the body.
func (rig *faultRig) call(path, body string) rigCall {
	rig.t.Helper()
	start := time.Now()
	req, _ := http.NewRequest(http.MethodPost, rig.gw.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := rig.gw.Client().Do(req)
	if err != nil {
		rig.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return rigCall{status: resp.StatusCode, body: string(b), readErr: err, took: time.Since(start)}
}

// released checks that no concurrency slot is left taken.
func (rig *faultRig) released() {
	rig.t.Helper()
	for _, p := range []string{"up", "an"} {
		if u := ruleUsage(rig.t, rig.engine, limits.ScopeProvider, p, limits.PeriodConcurrent); u.InFlight != 0 {
			rig.t.Errorf("provider %s: %d slots still taken", p, u.InFlight)
		}
	}
}

// clean checks that an answer names no credential and no address.
func (rig *faultRig) clean(c rigCall) {
	rig.t.Helper()
	for _, bad := range []string{rigOpenAIKey, rigAnthropicKey, "127.0.0.1", "dial tcp", "read tcp", "EOF"} {
		if strings.Contains(c.body, bad) {
			rig.t.Errorf("answer contains %q: %s", bad, c.body)
		}
	}
}

// shapes are the three ingress shapes, natively served by the rig.
var shapes = []struct {
	name, path, body, stream string
}{
	{"chat", "/v1/chat/completions", `{"model":"m1","messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m1","stream":true,"messages":[{"role":"user","content":"hi"}]}`},
	{"responses", "/v1/responses", `{"model":"m1","input":"hi"}`, `{"model":"m1","stream":true,"input":"hi"}`},
	{"messages", "/v1/messages", `{"model":"claude","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"claude","max_tokens":8,"stream":true,"messages":[{"role":"user","content":"hi"}]}`},
}

// firstEvent is a harmless first event of each shape's stream.
func firstEvent(shape string) string {
	switch shape {
	case "messages":
		return "event: ping\ndata: {\"type\":\"ping\"}\n\n"
	case "responses":
		return "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{}}\n\n"
	}
	return "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n"
}

// errorEventOf finds the stream's error event and returns its JSON data.
func errorEventOf(t *testing.T, shape, body string) map[string]any {
	t.Helper()
	for _, ev := range strings.Split(body, "\n\n") {
		name, data := "", ""
		for _, line := range strings.Split(ev, "\n") {
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				name = v
			}
			if v, ok := strings.CutPrefix(line, "data: "); ok {
				data = v
			}
		}
		var m map[string]any
		if json.Unmarshal([]byte(data), &m) != nil {
			continue
		}
		switch shape {
		case "chat":
			if e, ok := m["error"].(map[string]any); ok && name == "" {
				return e
			}
		default:
			if m["type"] == "error" && name == "error" {
				return m
			}
		}
	}
	t.Fatalf("%s: no error event in %q", shape, body)
	return nil
}

// hold blocks an upstream handler until the gateway gives up the call.
func hold(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
	}
}

func TestUpstreamSilenceAfterHeadersTimesOut(t *testing.T) {
	rig := newFaultRig(t, UpstreamLimits{ReadIdleTimeout: 60 * time.Millisecond})
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			rig.t = t
			rig.upstream(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(200)
				_, _ = w.Write([]byte(`{"id":`))
				w.(http.Flusher).Flush()
				hold(r)
			})
			c := rig.call(sh.path, sh.body)
			if c.status != 504 || !strings.Contains(c.body, "upstream_timeout") && sh.name != "messages" || c.took > 3*time.Second {
				t.Errorf("status %d after %v: %s", c.status, c.took, c.body)
			}
			if sh.name == "messages" && !strings.Contains(c.body, `{"type":"error","error":{"type":"api_error"`) {
				t.Errorf("not the Anthropic envelope: %s", c.body)
			}
			rig.clean(c)
			rig.released()

			rig.upstream(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write([]byte(firstEvent(sh.name)))
				w.(http.Flusher).Flush()
				hold(r)
			})
			c = rig.call(sh.path, sh.stream)
			if c.status != 200 || c.readErr != nil || !strings.HasPrefix(c.body, firstEvent(sh.name)) || c.took > 3*time.Second {
				t.Fatalf("stream: status %d, %v after %v: %q", c.status, c.readErr, c.took, c.body)
			}
			e := errorEventOf(t, sh.name, c.body)
			switch sh.name {
			case "messages":
				if inner, _ := e["error"].(map[string]any); inner["type"] != "api_error" || !strings.Contains(fmt.Sprint(inner["message"]), "did not answer in time") {
					t.Errorf("error event %v", e)
				}
			default:
				if e["code"] != "upstream_timeout" {
					t.Errorf("error event %v", e)
				}
			}
			if strings.Contains(c.body, "[DONE]") {
				t.Error("a timed-out stream ends with [DONE]")
			}
			rig.clean(c)
			rig.released()
		})
	}
}

func TestUpstreamSlowDripHitsTheTotalCap(t *testing.T) {
	rig := newFaultRig(t, UpstreamLimits{ReadIdleTimeout: time.Second, Timeout: 150 * time.Millisecond})
	rig.upstream(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		for i := 0; i < 500; i++ {
			if _, err := w.Write([]byte(" ")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	})
	c := rig.call(shapes[0].path, shapes[0].body)
	if c.status != 504 || !strings.Contains(c.body, `"code":"upstream_timeout"`) || c.took > 2*time.Second {
		t.Errorf("status %d after %v: %s", c.status, c.took, c.body)
	}
	rig.released()
}

func TestUpstreamBodyCap(t *testing.T) {
	rig := newFaultRig(t, UpstreamLimits{MaxResponseBytes: 4096, MaxEventBytes: 2048})
	for _, declared := range []bool{false, true} {
		rig.upstream(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			if declared {
				w.Header().Set("Content-Length", "100000000")
			}
			chunk := bytes.Repeat([]byte("x"), 1024)
			for i := 0; i < 100000; i++ {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		})
		for _, sh := range shapes {
			c := rig.call(sh.path, sh.body)
			if c.status != 502 || (sh.name != "messages" && !strings.Contains(c.body, `"code":"upstream_response_too_large"`)) ||
				len(c.body) > 1024 {
				t.Errorf("%s declared=%v: status %d: %.300s", sh.name, declared, c.status, c.body)
			}
			rig.clean(c)
		}
	}
	// One event beyond the event cap ends the stream with an error event.
	for _, sh := range shapes {
		rig.upstream(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte(firstEvent(sh.name) + "data: "))
			chunk := bytes.Repeat([]byte("y"), 1024)
			for i := 0; i < 100000; i++ {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		})
		c := rig.call(sh.path, sh.stream)
		if c.status != 200 || c.readErr != nil || strings.Contains(c.body, "yyyy") {
			t.Fatalf("%s stream: %d %v %.300q", sh.name, c.status, c.readErr, c.body)
		}
		e := errorEventOf(t, sh.name, c.body)
		if sh.name != "messages" && e["code"] != "upstream_response_too_large" {
			t.Errorf("%s: error event %v", sh.name, e)
		}
	}
	rig.released()
}

// TestUpstreamBodyNeverHeldWhole: reading stops one byte past the cap of
// an endless answer.
func TestUpstreamBodyNeverHeldWhole(t *testing.T) {
	src := &countingReader{}
	var b upstreamBody
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	b.watch(ctx, cancel, io.NopCloser(src), UpstreamLimits{MaxResponseBytes: 10000}.withDefaults(), false, time.Now())
	_, err := readAllSized(&b, 512)
	if err != errResponseTooLarge || src.n > 10001 {
		t.Fatalf("err %v after %d bytes", err, src.n)
	}
}

// countingReader is an endless source that counts what it gave.
type countingReader struct{ n int }

func (c *countingReader) Read(p []byte) (int, error) {
	c.n += len(p)
	return len(p), nil
}

// TestNativeStreamCutAborts: a native stream that stops inside an event,
// or whose connection is reset, aborts the client's connection instead of
// ending as if complete; the partial event is never sent, nothing is
// logged as a crash, and the slot is released.
func TestNativeStreamCutAborts(t *testing.T) {
	rig := newFaultRig(t, UpstreamLimits{})
	for _, sh := range shapes {
		for _, reset := range []bool{false, true} {
			rig.upstream(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write([]byte(firstEvent(sh.name) + `data: {"partial":"ev`))
				w.(http.Flusher).Flush()
				if reset {
					conn, _, err := http.NewResponseController(w).Hijack()
					if err == nil {
						_ = conn.Close()
					}
				}
			})
			c := rig.call(sh.path, sh.stream)
			if c.status != 200 || c.readErr == nil {
				t.Errorf("%s reset=%v: the client saw a complete stream: %d %q", sh.name, reset, c.status, c.body)
			}
			if c.body != firstEvent(sh.name) {
				t.Errorf("%s reset=%v: client got %q", sh.name, reset, c.body)
			}
			rig.released()
		}
	}
	if strings.Contains(rig.errLog.String(), "panic") {
		t.Errorf("an aborted stream was logged as a crash:\n%s", rig.errLog.String())
	}
}

// TestNativeStreamCleanEndIsKept: a stream that ends between events, or
// after the whole last line of its last event without the blank line
// (as some upstreams end), ends normally, byte for byte.
func TestNativeStreamCleanEndIsKept(t *testing.T) {
	rig := newFaultRig(t, UpstreamLimits{})
	for _, stream := range []string{firstEvent("chat") + "data: [DONE]\n\n", firstEvent("chat") + "data: [DONE]\n"} {
		rig.upstream(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte(stream))
		})
		c := rig.call(shapes[0].path, shapes[0].stream)
		if c.status != 200 || c.readErr != nil || c.body != stream {
			t.Errorf("%d %v %q", c.status, c.readErr, c.body)
		}
	}
}

func TestUpstreamErrorTextIsCleaned(t *testing.T) {
	rig := newFaultRig(t, UpstreamLimits{})
	cases := []struct {
		name        string
		status      int
		ctype, body string
		want        string // in the relayed message
		notIn       []string
	}{
		{"html page", 500, "text/html", "<html><body><h1>nginx internal error at 10.0.0.7</h1></body></html>",
			"Internal Server Error", []string{"<html", "10.0.0.7"}},
		{"plain text", 503, "text/plain", "backend 10.0.0.7:8000 overloaded", "Service Unavailable", []string{"10.0.0.7"}},
		{"openai json quoting the key", 400, "application/json",
			`{"error":{"message":"key ` + rigOpenAIKey + ` may not use temperature","type":"invalid_request_error","param":"` + rigAnthropicKey + `","code":"bad_` + rigOpenAIKey + `"}}`,
			"may not use temperature", []string{rigOpenAIKey, rigAnthropicKey}},
		{"anthropic json", 400, "application/json",
			`{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"}}`, "max_tokens: too large", nil},
		{"json without a message", 502, "application/json", `{"detail":"upstream 10.0.0.7 down"}`, "Bad Gateway", []string{"10.0.0.7"}},
		{"429 with Retry-After", 429, "application/json", `{"error":{"message":"slow down"}}`, "slow down", nil},
	}
	for _, c := range cases {
		for _, sh := range shapes {
			rig.upstream(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", c.ctype)
				w.Header().Set("Retry-After", "7")
				w.WriteHeader(c.status)
				_, _ = w.Write([]byte(c.body))
			})
			got := rig.call(sh.path, sh.body)
			if got.status != c.status || !strings.Contains(got.body, c.want) {
				t.Errorf("%s %s: %d %s", c.name, sh.name, got.status, got.body)
			}
			for _, bad := range c.notIn {
				if strings.Contains(got.body, bad) {
					t.Errorf("%s %s: relays %q: %s", c.name, sh.name, bad, got.body)
				}
			}
			rig.clean(got)
		}
	}
	rig.released()
}

func TestTransportFailuresHideAddresses(t *testing.T) {
	rig := newFaultRig(t, UpstreamLimits{})
	// The upstream accepts the connection and closes it unanswered.
	rig.upstream(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	})
	for _, sh := range shapes {
		c := rig.call(sh.path, sh.body)
		if c.status != 502 || (sh.name != "messages" && !strings.Contains(c.body, `"code":"upstream_read_failed"`)) {
			t.Errorf("%s closed: %d %s", sh.name, c.status, c.body)
		}
		rig.clean(c)
	}
	// The upstream sends headers and half the declared body, then resets.
	rig.upstream(func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"id\":")
		_ = buf.Flush()
		_ = conn.Close()
	})
	for _, sh := range shapes {
		c := rig.call(sh.path, sh.body)
		if c.status != 502 || (sh.name != "messages" && !strings.Contains(c.body, `"code":"upstream_read_failed"`)) {
			t.Errorf("%s truncated: %d %s", sh.name, c.status, c.body)
		}
		rig.clean(c)
	}
	rig.released()
}

func TestUnreachableUpstreamHidesAddress(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	p, err := providers.New(providers.Options{Name: "down", Type: "openai", BaseURL: url + "/v1",
		APIKey: rigOpenAIKey, Client: &http.Client{}})
	if err != nil {
		t.Fatal(err)
	}
	reg := providers.NewRegistry([]providers.Entry{{Provider: p, Models: []string{"m1"}, Allowlist: true}}, providers.RegistryOptions{})
	s := &Service{Registry: reg, MaxBodyBytes: 1 << 20}
	rec, info := serve(s, "POST", "/v1/chat/completions", `{"model":"m1","messages":[]}`)
	e := errorOf(t, rec)
	if rec.Code != 502 || e["code"] != "upstream_unreachable" || e["message"] != "provider down is unreachable" {
		t.Errorf("%d %v", rec.Code, e)
	}
	if strings.Contains(rec.Body.String(), "127.0.0.1") || strings.Contains(rec.Body.String(), "refused") {
		t.Errorf("address in answer: %s", rec.Body.String())
	}
	// The attempt is recorded in the gateway's words, as the client is
	// answered: the detail goes to the log only.
	if a := info.Attempts(); len(a) != 1 || a[0].Err != "provider down is unreachable" || a[0].ErrType != "provider_error" ||
		a[0].ErrCode != "upstream_unreachable" || a[0].ProviderType != "openai" || strings.Contains(a[0].Err, "127.0.0.1") {
		t.Errorf("attempt %+v", a)
	}
}

// TestClientGoneBeforeUpstreamAnswers: a client that leaves before the
// upstream's headers is not recorded as the upstream's failure.
func TestClientGoneBeforeUpstreamAnswers(t *testing.T) {
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)
	p, err := providers.New(providers.Options{Name: "slow", Type: "openai", BaseURL: slow.URL + "/v1",
		APIKey: rigOpenAIKey, Client: &http.Client{}})
	if err != nil {
		t.Fatal(err)
	}
	reg := providers.NewRegistry([]providers.Entry{{Provider: p, Models: []string{"m1"}, Allowlist: true}}, providers.RegistryOptions{})
	s := &Service{Registry: reg, MaxBodyBytes: 1 << 20}
	ctx, cancel := context.WithCancel(context.Background())
	info := reqinfo.New()
	req := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"model":"m1","messages":[]}`))
	req.Header["Content-Type"] = jsonContentType
	req = req.WithContext(reqinfo.With(ctx, info))
	time.AfterFunc(50*time.Millisecond, cancel)
	s.ServeHTTP(httptest.NewRecorder(), req)
	if a := info.Attempts(); len(a) != 1 || a[0].Err != clientGone || a[0].ErrType != "" || a[0].ErrCode != "" {
		t.Errorf("attempt %+v", a)
	}
}

// TestAnswerReadFailureAttempt: an upstream that answers 200 and then
// breaks its body off, or sends one too large, leaves an attempt with the
// gateway error it amounts to: type, code and the fixed message.
func TestAnswerReadFailureAttempt(t *testing.T) {
	for _, tc := range []struct {
		name, code string
		limits     UpstreamLimits
		answer     func(w http.ResponseWriter)
	}{
		{"cut short", "upstream_read_failed", UpstreamLimits{}, func(w http.ResponseWriter) {
			w.Header().Set("Content-Length", "1000")
			_, _ = w.Write([]byte(`{"id":"x","object":`))
		}},
		{"too large", "upstream_response_too_large", UpstreamLimits{MaxResponseBytes: 64}, func(w http.ResponseWriter) {
			_, _ = w.Write(bytes.Repeat([]byte("x"), 1000))
		}},
	} {
		up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			tc.answer(w)
		}))
		p, err := providers.New(providers.Options{Name: "up", Type: "openai", BaseURL: up.URL + "/v1", APIKey: rigOpenAIKey, Client: up.Client()})
		if err != nil {
			t.Fatal(err)
		}
		reg := providers.NewRegistry([]providers.Entry{{Provider: p, Models: []string{"m1"}, Allowlist: true}}, providers.RegistryOptions{})
		s := &Service{Registry: reg, MaxBodyBytes: 1 << 20, Upstreams: NewUpstreams(map[string]UpstreamLimits{"up": tc.limits}, nil)}
		rec, info := serve(s, "POST", "/v1/chat/completions", `{"model":"m1","messages":[]}`)
		up.Close()
		e := errorOf(t, rec)
		a := info.Attempts()
		if rec.Code != 502 || e["code"] != tc.code || len(a) != 1 || a[0].StatusCode != 200 ||
			a[0].ErrCode != tc.code || a[0].ErrType != "provider_error" || a[0].Err != e["message"] {
			t.Errorf("%s: %d %v; attempts %+v", tc.name, rec.Code, e, a)
		}
	}
}
