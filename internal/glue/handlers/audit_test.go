package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/glue/caddymodule"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
)

// memAudit keeps appended entries and usage records in memory; the read
// methods are not used by the audit stage.
type memAudit struct {
	audit.EntryStorage
	audit.UsageStorage
	mu      sync.Mutex
	entries []*audit.Entry
	usage   []*audit.UsageRecord
}

func (m *memAudit) AppendEntry(e *audit.Entry) bool {
	m.mu.Lock()
	m.entries = append(m.entries, e)
	m.mu.Unlock()
	return true
}

func (m *memAudit) AppendUsage(u *audit.UsageRecord) bool {
	m.mu.Lock()
	m.usage = append(m.usage, u)
	m.mu.Unlock()
	return true
}

// testAuditing is the audit stage's settings as the defaults make them:
// bodies, headers and secret masking on. MODELGATE_BENCH_REDACT=off turns
// masking off, to compare BenchmarkAuditStage with and without it.
func testAuditing(m *memAudit, maxBody int) *caddymodule.Auditing {
	return &caddymodule.Auditing{
		Recorder: audit.NewRecorder(m, m, nil), Redactor: audit.NewRedactor([]string{"sk-provider-secret-1"}),
		Sessions: audit.NewResponseSessions(16), Entries: true, Usage: true, Bodies: true, Headers: true,
		RedactSecrets: os.Getenv("MODELGATE_BENCH_REDACT") != "off", MaxBodyBytes: maxBody, Features: audit.WorkflowFeatures{Audit: true, Usage: true},
	}
}

// auditRoute runs serve for r, an admitted request to the audited route
// rt, recorded with au: the audit stage as it runs for a request the
// route serves.
func auditRoute(au *caddymodule.Auditing, rt *routes.Route, w http.ResponseWriter, r *http.Request, serve func(http.ResponseWriter, *http.Request) error) error {
	return auditServe(au, nil, rt, w, r, serve, true)
}

func chatRoute(t testing.TB) *routes.Route {
	rt, ok := routes.Lookup("POST", "/v1/chat/completions")
	if !ok || !rt.Audited {
		t.Fatal("chat route not audited")
	}
	return rt
}

// TestAuditStageRecordsAnsweredRequest: the next stage gets the whole
// body; the entry carries what the stages recorded, the answer, redacted
// headers and the detected session; the usage record its tokens.
func TestAuditStageRecordsAnsweredRequest(t *testing.T) {
	m := &memAudit{}
	au := testAuditing(m, 1<<20)
	body := `{"model":"openai/gpt-4o-mini","temperature":0.2,"max_tokens":9,"messages":[{"role":"user","content":"hi"}]}`
	r := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-Session-Id", "s1")
	r.Header.Set("X-Leak", "Bearer sk-provider-secret-1")
	info := reqinfo.New()
	info.AuthMethod, info.KeyHash, info.UserPath = reqinfo.AuthMasterKey, strings.Repeat("ab", 32), "/team"
	r = r.WithContext(reqinfo.With(r.Context(), info))
	w := httptest.NewRecorder()
	err := auditRoute(au, chatRoute(t), w, r, func(w http.ResponseWriter, r *http.Request) error {
		got, _ := io.ReadAll(r.Body)
		if string(got) != body {
			t.Errorf("next stage read %q", got)
		}
		if reqinfo.From(r.Context()).SessionID != "s1" {
			t.Error("session not detected before the next stage")
		}
		info.RequestedModel, info.ResolvedModel, info.ProviderName, info.ProviderType = "openai/gpt-4o-mini", "gpt-4o-mini", "openai", "openai"
		info.AddAttempt(reqinfo.Attempt{Provider: "openai", Model: "gpt-4o-mini", StatusCode: 200, StartedAt: time.Now(), Duration: time.Millisecond})
		info.SetUsage(catalog.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15})
		w.Header().Set("Content-Type", "application/json")
		w.(http.Flusher).Flush()
		_, _ = io.WriteString(w, `{"id":"c1","object":"chat.completion"}`)
		return nil
	})
	if err != nil || len(m.entries) != 1 || len(m.usage) != 1 {
		t.Fatalf("err %v, %d entries, %d usage records", err, len(m.entries), len(m.usage))
	}
	e, u := m.entries[0], m.usage[0]
	d := e.Data
	if e.StatusCode != 200 || e.SessionID != "s1" || e.UserPath != "/team" || e.AuthMethod != "master_key" ||
		e.ResolvedModel != "gpt-4o-mini" || e.Usage.TotalTokens != 15 || d.APIKeyHash != strings.Repeat("ab", 8) ||
		*d.Temperature != 0.2 || *d.MaxTokens != 9 || !e.ConversationPayload || len(d.Attempts) != 1 {
		t.Fatalf("entry %+v data %+v", e, d)
	}
	if string(d.ResponseBody) != `{"id":"c1","object":"chat.completion"}` || string(d.RequestBody) != body {
		t.Errorf("bodies %s / %s", d.RequestBody, d.ResponseBody)
	}
	if d.RequestHeaders["x-leak"] != audit.Redacted || d.ResponseHeaders["content-type"] != "application/json" {
		t.Errorf("headers %v / %v", d.RequestHeaders, d.ResponseHeaders)
	}
	if u.RequestID != e.ID || u.InputTokens != 10 || u.TotalCost == nil || u.SessionID != "s1" || u.Endpoint != "/v1/chat/completions" {
		t.Errorf("usage record %+v", u)
	}
}

// TestAuditSessionOfBodyTooBigToRecord: a model request body over the
// record's cap but within the gateway's request cap is not recorded, yet
// gives its session id, and the next stage takes it read and scanned.
func TestAuditSessionOfBodyTooBigToRecord(t *testing.T) {
	m := &memAudit{}
	au := testAuditing(m, 64)
	au.ReadBodyBytes = 1 << 20
	big := `{"model":"m","metadata":{"session_id":"big-session"},"messages":[{"role":"user","content":"` + strings.Repeat("x", 200) + `"}]}`
	r := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(big))
	r = r.WithContext(reqinfo.With(r.Context(), reqinfo.New()))
	_ = auditRoute(au, chatRoute(t), httptest.NewRecorder(), r, func(w http.ResponseWriter, r *http.Request) error {
		if b := reqinfo.From(r.Context()).Body(); b == nil || string(b.Bytes) != big {
			t.Error("the body read whole is not shared with the next stage")
		}
		if got, _ := io.ReadAll(r.Body); string(got) != big {
			t.Errorf("next stage read %d bytes, want %d", len(got), len(big))
		}
		w.WriteHeader(200)
		return nil
	})
	e := m.entries[0]
	if e.SessionID != "big-session" || !e.Data.RequestBodyTooBigToHandle || e.Data.RequestBody != nil {
		t.Fatalf("session %q, too big %v, body %s", e.SessionID, e.Data.RequestBodyTooBigToHandle, e.Data.RequestBody)
	}

	// A request refused before it is served (a wrong key), one of
	// unknown length and one the route does not take are read no
	// further than what is recorded.
	for _, c := range []struct {
		name, method string
		length       int64
		served       bool
	}{{"refused", "POST", int64(len(big)), false}, {"chunked", "POST", -1, true}} {
		r := httptest.NewRequest(c.method, "/v1/chat/completions", strings.NewReader(big))
		r.ContentLength = c.length
		r = r.WithContext(reqinfo.With(r.Context(), reqinfo.New()))
		_ = auditServe(au, nil, chatRoute(t), httptest.NewRecorder(), r, func(w http.ResponseWriter, r *http.Request) error {
			if reqinfo.From(r.Context()).Body() != nil {
				t.Errorf("%s: the body was read whole", c.name)
			}
			if got, _ := io.ReadAll(r.Body); string(got) != big {
				t.Errorf("%s: next stage read %d bytes, want %d", c.name, len(got), len(big))
			}
			return nil
		}, c.served)
	}
}

// TestAuditStageBoundsAndOutcomes: bodies over the cap are marked, not
// kept, yet reach the next stage whole; a gateway error is recorded from
// the written error; a client gone away is 499 client_disconnected.
func TestAuditStageBoundsAndOutcomes(t *testing.T) {
	m := &memAudit{}
	au := testAuditing(m, 64)
	big := `{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("x", 200) + `"}]}`
	r := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(big))
	w := httptest.NewRecorder()
	_ = auditRoute(au, chatRoute(t), w, r, func(w http.ResponseWriter, r *http.Request) error {
		got, _ := io.ReadAll(r.Body)
		if string(got) != big {
			t.Errorf("next stage read %d bytes, want %d", len(got), len(big))
		}
		info := reqinfo.From(r.Context())
		info.ErrorType, info.ErrorCode, info.ErrorMessage = "rate_limit_error", "rate_limit_exceeded", "slow down"
		w.WriteHeader(429)
		_, _ = w.Write(bytes.Repeat([]byte("y"), 100))
		return nil
	})
	e := m.entries[0]
	if e.StatusCode != 429 || e.ErrorType != "rate_limit_error" || e.Data.ErrorCode != "rate_limit_exceeded" ||
		!e.Data.RequestBodyTooBigToHandle || !e.Data.ResponseBodyTooBigToHandle || e.Data.RequestBody != nil ||
		e.Data.ResponseBody != nil || len(m.usage) != 0 {
		t.Fatalf("entry %+v data %+v usage %d", e, e.Data, len(m.usage))
	}

	// stream writes a stream's first event and leaves with the client
	// gone: with the stream still open (closed reports whether the last
	// part was handed over before the client left). The flush after it
	// comes too late either way: a client that leaves on the closing
	// event may be gone before that flush, with the whole answer.
	stream := func(closed bool) *audit.Entry {
		ctx, cancel := context.WithCancel(context.Background())
		r := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"model":"m"}`)).WithContext(ctx)
		_ = auditRoute(au, chatRoute(t), httptest.NewRecorder(), r, func(w http.ResponseWriter, r *http.Request) error {
			info := reqinfo.From(r.Context())
			info.AnswerOpen = true
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "data: {\"object\":\"chat.completion.chunk\",\"choices\":[]}\n\n")
			if closed {
				_, _ = io.WriteString(w, "data: [DONE]\n\n")
				info.AnswerOpen = false
			}
			cancel()
			_ = http.NewResponseController(w).Flush()
			return nil
		})
		return m.entries[len(m.entries)-1]
	}
	e = stream(false)
	if e.StatusCode != StatusClientClosed || e.Data.ErrorCode != CodeClientDisconnected {
		t.Fatalf("disconnect: %d %q", e.StatusCode, e.Data.ErrorCode)
	}
	var body map[string]any
	if json.Unmarshal(e.Data.ResponseBody, &body) != nil || body["object"] != "chat.completion" {
		t.Errorf("partial stream recorded as %s", e.Data.ResponseBody)
	}
	// A client that closes the connection once it has the stream's last
	// event (as Codex does) got the whole answer.
	if e = stream(true); e.StatusCode != http.StatusOK || e.Data.ErrorCode != "" || e.ErrorType != "" {
		t.Fatalf("left after the last event: %d %q %q", e.StatusCode, e.ErrorType, e.Data.ErrorCode)
	}

	// Nothing written when the client left: 499.
	ctx, cancel := context.WithCancel(context.Background())
	r = httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"model":"m"}`)).WithContext(ctx)
	_ = auditRoute(au, chatRoute(t), httptest.NewRecorder(), r, func(w http.ResponseWriter, r *http.Request) error {
		cancel()
		return nil
	})
	// The error type is one of the gateway's: the client's side.
	if e = m.entries[len(m.entries)-1]; e.StatusCode != StatusClientClosed || e.ErrorType != "invalid_request_error" {
		t.Fatalf("left before any answer: %d %q", e.StatusCode, e.ErrorType)
	}
}

// BenchmarkAuditStage is the audit stage around a chat request and a
// 1 KiB answer, bodies and headers logged: what it adds per request, for
// 1 KiB and 64 KiB request bodies. The next stage reads the body the way
// the proxy does: the shared one when the stage read it, else its own.
func BenchmarkAuditStage(b *testing.B) {
	for _, size := range []int{1 << 10, 64 << 10} {
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			body := `{"model":"openai/gpt-4o-mini","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"` +
				strings.Repeat("a ", (size-120)/2) + `"}]}`
			answer := []byte(`{"id":"c1","object":"chat.completion","choices":[{"message":{"content":"` + strings.Repeat("b", 950) + `"}}]}`)
			b.SetBytes(int64(len(body)))
			benchAuditStage(b, body, func(w http.ResponseWriter, r *http.Request) error {
				readBodyAsProxy(r)
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(answer)
				return nil
			})
		})
	}
}

// benchAuditStage runs chat requests with body through the audit stage
// (bodies and headers recorded) around serve.
func benchAuditStage(b *testing.B, body string, serve func(http.ResponseWriter, *http.Request) error) {
	rt := chatRoute(b)
	m := &memAudit{}
	au := testAuditing(m, 1<<20)
	hdr := http.Header{"Content-Type": {"application/json"}, "User-Agent": {"bench"}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(body))
		r.Header = hdr
		r = r.WithContext(reqinfo.With(r.Context(), reqinfo.New()))
		_ = auditRoute(au, rt, httptest.NewRecorder(), r, serve)
		if len(m.entries) > 1024 {
			m.entries, m.usage = m.entries[:0], m.usage[:0]
		}
	}
}

// BenchmarkAuditStageStream is the audit stage around a streamed chat
// answer of 40 events written one at a time, as the proxy relays them:
// capturing the stream and adding it up to its final object.
func BenchmarkAuditStageStream(b *testing.B) {
	body := `{"model":"openai/gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"` + strings.Repeat("a ", 450) + `"}]}`
	var events [][]byte
	for i := 0; i < 40; i++ {
		events = append(events, []byte(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"word`+
			strconv.Itoa(i)+` "},"logprobs":null,"finish_reason":null}]}`+"\n\n"))
	}
	events = append(events, []byte(`data: {"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":450,"completion_tokens":40,"total_tokens":490}}`+"\n\n"),
		[]byte("data: [DONE]\n\n"))
	benchAuditStage(b, body, func(w http.ResponseWriter, r *http.Request) error {
		readBodyAsProxy(r)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range events {
			_, _ = w.Write(ev)
		}
		return nil
	})
}

// BenchmarkAuditStageBaseline is the same request without the stage: the
// difference to BenchmarkAuditStage is the stage's cost.
func BenchmarkAuditStageBaseline(b *testing.B) {
	body := `{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"` + strings.Repeat("a", 950) + `"}]}`
	answer := []byte(`{"id":"c1","object":"chat.completion","choices":[{"message":{"content":"` + strings.Repeat("b", 950) + `"}}]}`)
	hdr := http.Header{"Content-Type": {"application/json"}, "User-Agent": {"bench"}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(body))
		r.Header = hdr
		r = r.WithContext(reqinfo.With(r.Context(), reqinfo.New()))
		w := httptest.NewRecorder()
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}
}

// failingBody yields head, then fails.
type failingBody struct{ head []byte }

func (b *failingBody) Read(p []byte) (int, error) {
	if len(b.head) > 0 {
		n := copy(p, b.head)
		b.head = b.head[n:]
		return n, nil
	}
	return 0, errors.New("connection reset")
}

func (b *failingBody) Close() error { return nil }

// TestBodyCutShortIsNotShared: a body whose read fails part way is not
// handed to later stages as the request's body; they read it again and
// meet the error themselves.
func TestBodyCutShortIsNotShared(t *testing.T) {
	m := &memAudit{}
	au := testAuditing(m, 1<<20)
	r := httptest.NewRequest("POST", "/v1/chat/completions", nil)
	r.Body = &failingBody{head: []byte(`{"model":"m","messages":[`)}
	r.Header.Set("Content-Type", "application/json")
	r = r.WithContext(reqinfo.With(r.Context(), reqinfo.New()))
	_ = auditRoute(au, chatRoute(t), httptest.NewRecorder(), r, func(w http.ResponseWriter, r *http.Request) error {
		if reqinfo.From(r.Context()).Body() != nil {
			t.Error("a body cut short was shared")
		}
		got, err := io.ReadAll(r.Body)
		if string(got) != `{"model":"m","messages":[` || err == nil {
			t.Errorf("next stage read %q, %v", got, err)
		}
		w.WriteHeader(400)
		return nil
	})
}
