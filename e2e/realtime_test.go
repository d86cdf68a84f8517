package e2e

// Realtime sessions end to end: GET /v1/realtime upgrades to a WebSocket
// relayed to the provider's realtime endpoint, frames pass both ways, the
// session holds a concurrency slot until it ends (closed or dropped), its
// usage comes from response.done and it leaves one audit entry.

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/tidwall/gjson"
)

// fakeRealtime is an OpenAI-like upstream: a model listing and a realtime
// endpoint that records what it receives and answers response.create with
// response.done (usage 10 in, 5 out).
type fakeRealtime struct {
	srv      *httptest.Server
	mu       sync.Mutex
	got      []string
	closed   chan websocket.StatusCode
	sessions int
}

func newFakeRealtime(t *testing.T) *fakeRealtime {
	f := &fakeRealtime{closed: make(chan websocket.StatusCode, 8)}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"gpt-rt","object":"model","owned_by":"openai"},{"id":"gpt-refused","object":"model","owned_by":"openai"}]}`))
			return
		}
		if r.URL.Path != "/v1/realtime" || r.Header.Get("Authorization") != "Bearer sk-upstream" {
			http.Error(w, `{"error":{"message":"bad path or key","type":"invalid_request_error"}}`, http.StatusUnauthorized)
			return
		}
		if r.URL.Query().Get("model") == "gpt-refused" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`{"error":{"message":"no realtime for you","type":"invalid_request_error"}}`))
			return
		}
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		f.mu.Lock()
		f.sessions++
		f.mu.Unlock()
		ctx := context.Background()
		_ = c.Write(ctx, websocket.MessageText, []byte(`{"type":"session.created","session":{"model":"`+r.URL.Query().Get("model")+`"}}`))
		for {
			typ, msg, err := c.Read(ctx)
			if err != nil {
				f.closed <- websocket.CloseStatus(err)
				return
			}
			f.mu.Lock()
			f.got = append(f.got, string(msg))
			f.mu.Unlock()
			if typ == websocket.MessageBinary {
				_ = c.Write(ctx, websocket.MessageBinary, append([]byte("echo:"), msg...))
				continue
			}
			if gjson.GetBytes(msg, "type").Str == "response.create" {
				_ = c.Write(ctx, websocket.MessageText, []byte(`{"type":"response.done","response":{"id":"resp_1","status":"completed","usage":{"total_tokens":15,"input_tokens":10,"output_tokens":5,"input_token_details":{"cached_tokens":2}}}}`))
			}
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// dialRealtime opens a realtime session through the gateway as userPath.
func dialRealtime(t *testing.T, g *gateway, model, userPath string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	h := http.Header{"Authorization": {"Bearer " + masterKey}}
	if userPath != "" {
		h.Set(userPathHeader, userPath)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return websocket.Dial(ctx, "ws"+strings.TrimPrefix(g.URL, "http")+"/v1/realtime?model="+model,
		&websocket.DialOptions{HTTPHeader: h})
}

// readWSEvent reads one text message and returns its type.
func readWSEvent(t *testing.T, c *websocket.Conn) (string, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, msg, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("reading: %v", err)
	}
	return gjson.GetBytes(msg, "type").Str, msg
}

func TestRealtimeRelay(t *testing.T) {
	clearEnv(t)
	t.Setenv("SET_RATE_LIMIT_TEAM", "concurrent=1")
	up := newFakeRealtime(t)
	g := startGateway(t, mockBlock(providerBlock("oa", "openai", "sk-upstream", up.srv.URL+"/v1")))
	waitListed(t, g, masterKey, "gpt-rt")
	ctx := context.Background()

	c, resp, err := dialRealtime(t, g, "gpt-rt", "/team/a")
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, resp)
	}
	if typ, _ := readWSEvent(t, c); typ != "session.created" {
		t.Fatalf("first event %q", typ)
	}
	// Client to upstream and back, text and binary.
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"type":"response.create"}`)); err != nil {
		t.Fatal(err)
	}
	if typ, msg := readWSEvent(t, c); typ != "response.done" || gjson.GetBytes(msg, "response.usage.total_tokens").Int() != 15 {
		t.Fatalf("relayed %s", msg)
	}
	if err := c.Write(ctx, websocket.MessageBinary, []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	typ, msg, err := c.Read(rctx)
	cancel()
	if err != nil || typ != websocket.MessageBinary || string(msg) != "echo:\x01\x02\x03" {
		t.Fatalf("binary echo: %v %v %q", err, typ, msg)
	}

	// The open session holds the path's only slot.
	res := request(t, "POST", g.URL+"/v1/chat/completions", `{"model":"mock-chat","messages":[{"role":"user","content":"hi"}]}`,
		append(bearer(masterKey), userPathHeader, "/team/b")...)
	res.ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	if r := rateRule(t, g, "user_path", "/team", "concurrent"); r["in_flight"] != 1.0 {
		t.Fatalf("in flight during the session: %v", r["in_flight"])
	}

	// A normal close reaches the upstream and frees the slot.
	if err := c.Close(websocket.StatusNormalClosure, "bye"); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-up.closed:
		if code != websocket.StatusNormalClosure {
			t.Fatalf("upstream saw close %v", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream never saw the close")
	}
	waitSlotsFree(t, g)

	// A client that drops without a close frame frees the slot too.
	c2, _, err := dialRealtime(t, g, "gpt-rt", "/team/c")
	if err != nil {
		t.Fatal(err)
	}
	readWSEvent(t, c2)
	if r := rateRule(t, g, "user_path", "/team", "concurrent"); r["in_flight"] != 1.0 {
		t.Fatalf("in flight during the second session: %v", r["in_flight"])
	}
	_ = c2.CloseNow()
	select {
	case <-up.closed:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream session outlived the dropped client")
	}
	waitSlotsFree(t, g)

	// An upstream refusal is an ordinary HTTP error: nothing upgraded.
	_, resp, err = dialRealtime(t, g, "gpt-refused", "/team/d")
	if err == nil || resp == nil || resp.StatusCode == http.StatusSwitchingProtocols || resp.StatusCode < 400 {
		t.Fatalf("refused upstream: err %v, response %v", err, resp)
	}
	// No such model: 404 before any dial.
	_, resp, err = dialRealtime(t, g, "nope", "")
	if err == nil || resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown model: %v %v", err, resp)
	}
	waitSlotsFree(t, g)

	// One audit entry per session, with its usage from response.done.
	entries, usage := auditRecords(t)
	var sessions int
	for _, es := range entries {
		for _, e := range es {
			if e.Path != "/v1/realtime" || e.Data == nil || e.Data.EventType != "realtime_session" {
				continue
			}
			if e.StatusCode == http.StatusSwitchingProtocols {
				sessions++
				if e.UserPath == "/team/a" {
					if e.Usage.TotalTokens != 15 || e.DurationNs <= 0 || e.ProviderName != "oa" {
						t.Fatalf("first session entry %+v usage %+v", e, e.Usage)
					}
					if n := len(usage[e.ID]); n != 1 || usage[e.ID][0].InputTokens != 10 || usage[e.ID][0].CachedInputTokens != 2 {
						t.Fatalf("first session usage records %v", usage[e.ID])
					}
				}
			}
		}
	}
	if sessions != 2 {
		t.Fatalf("%d realtime session entries with status 101, want 2", sessions)
	}
}

// TestRealtimeMock: the mock provider's realtime endpoint answers offline.
func TestRealtimeMock(t *testing.T) {
	g := startMockGateway(t)
	waitListed(t, g, masterKey, "mock-chat")
	c, resp, err := dialRealtime(t, g, "mock-chat", "")
	if err != nil {
		t.Fatalf("dial: %v %v", err, resp)
	}
	defer c.CloseNow()
	if typ, _ := readWSEvent(t, c); typ != "session.created" {
		t.Fatalf("first event %q", typ)
	}
	ctx := context.Background()
	_ = c.Write(ctx, websocket.MessageText, []byte(`{"type":"conversation.item.create","item":{"type":"message","role":"user","content":[{"type":"input_text","text":"hello there"}]}}`))
	if typ, _ := readWSEvent(t, c); typ != "conversation.item.created" {
		t.Fatalf("ack %q", typ)
	}
	_ = c.Write(ctx, websocket.MessageText, []byte(`{"type":"response.create"}`))
	var text string
	for {
		typ, msg := readWSEvent(t, c)
		if typ == "response.output_text.delta" {
			text += gjson.GetBytes(msg, "delta").Str
		}
		if typ == "response.done" {
			if gjson.GetBytes(msg, "response.usage.total_tokens").Int() <= 0 {
				t.Fatalf("no usage: %s", msg)
			}
			break
		}
	}
	if text != "Echo: hello there" {
		t.Fatalf("text %q", text)
	}
	if err := c.Close(websocket.StatusNormalClosure, ""); err != nil {
		t.Fatal(err)
	}
}

// TestRealtimeHandshakeRefused: a realtime request that cannot be upgraded
// (not a WebSocket request, a wrong version, no key, another site's
// page) gets a gateway error, is audited with its code, and never opens a
// provider session.
func TestRealtimeHandshakeRefused(t *testing.T) {
	clearEnv(t)
	up := newFakeRealtime(t)
	g := startGateway(t, mockBlock(providerBlock("oa", "openai", "sk-upstream", up.srv.URL+"/v1")))
	waitListed(t, g, masterKey, "gpt-rt")
	ws := http.Header{}
	ws.Set("Connection", "Upgrade")
	ws.Set("Upgrade", "websocket")
	ws.Set("Sec-WebSocket-Version", "13")
	ws.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	with := func(k, v string) http.Header {
		h := ws.Clone()
		if v == "" {
			h.Del(k)
		} else {
			h.Set(k, v)
		}
		return h
	}
	for _, tc := range []struct {
		name   string
		h      http.Header
		status int
		code   string
	}{
		{"plain GET", http.Header{}, 426, "websocket_upgrade_required"},
		{"version 8", with("Sec-WebSocket-Version", "8"), 400, "unsupported_websocket_version"},
		{"no key", with("Sec-WebSocket-Key", ""), 400, "invalid_websocket_handshake"},
		{"short key", with("Sec-WebSocket-Key", "c2hvcnQ="), 400, "invalid_websocket_handshake"},
		{"other site", with("Origin", "http://evil.example"), 403, "origin_not_allowed"},
	} {
		req, _ := http.NewRequest("GET", g.URL+"/v1/realtime?model=gpt-rt", nil)
		req.Header = tc.h.Clone()
		req.Header.Set("Authorization", "Bearer "+masterKey)
		resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusSwitchingProtocols {
			resp.Body.Close()
			t.Errorf("%s: upgraded", tc.name)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || gjson.GetBytes(body, "error.code").Str != tc.code ||
			gjson.GetBytes(body, "error.type").Str != "invalid_request_error" {
			t.Errorf("%s: %d %s", tc.name, resp.StatusCode, body)
		}
	}
	up.mu.Lock()
	sessions := up.sessions
	up.mu.Unlock()
	if sessions != 0 {
		t.Fatalf("%d provider sessions opened for refused handshakes", sessions)
	}
	// A same-origin page still connects.
	h := http.Header{"Authorization": {"Bearer " + masterKey}, "Origin": {g.URL}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(g.URL, "http")+"/v1/realtime?model=gpt-rt", &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		t.Fatalf("same-origin dial: %v", err)
	}
	c.CloseNow()
}

// TestRealtimeOnXAI: an xai provider's realtime API (Grok's voice agent,
// OpenAI's realtime events) is relayed as openai's is, with the xai key;
// a provider without one is refused with the providers that have one.
func TestRealtimeOnXAI(t *testing.T) {
	clearEnv(t)
	up := newFakeRealtime(t)
	g := startGateway(t, mockBlock(providerBlock("grok", "xai", "sk-upstream", up.srv.URL+"/v1")+
		"provider plain {\n type groq\n api_key gsk-x\n base_url "+up.srv.URL+"/v1\n models only-chat\n models_mode allowlist\n}\n"))
	waitListed(t, g, masterKey, "gpt-rt")
	c, resp, err := dialRealtime(t, g, "grok/gpt-rt", "")
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, resp)
	}
	defer c.CloseNow()
	if typ, msg := readWSEvent(t, c); typ != "session.created" || gjson.GetBytes(msg, "session.model").Str != "gpt-rt" {
		t.Fatalf("first event %s", msg)
	}
	_, resp, err = dialRealtime(t, g, "plain/only-chat", "")
	if err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("realtime on groq: %v %v", err, resp)
	}
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), "unsupported_endpoint") || !strings.Contains(string(body), "grok (xai)") {
		t.Fatalf("refusal %s", body)
	}
}
