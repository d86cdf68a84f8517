package proxy

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// wsPair returns both ends of one WebSocket connection: the end that
// accepted and the end that dialled.
func wsPair(t *testing.T) (accepted, dialled *websocket.Conn) {
	t.Helper()
	got := make(chan *websocket.Conn, 1)
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		got <- c
		<-done
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	d, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return <-got, d
}

// denyAll is a BudgetChecker whose budgets are all spent.
type denyAll struct{}

func (denyAll) Admits(string) bool { return false }

// startRelay relays between a test client and a test upstream and returns
// them with the channel that receives run's result.
func startRelay(t *testing.T, limits RealtimeLimits, budgets BudgetChecker, info *reqinfo.Info) (client, upstream *websocket.Conn, result chan string) {
	t.Helper()
	gwClient, client := wsPair(t)
	upstream, gwUpstream := wsPair(t)
	rl := &relay{info: info, client: gwClient, upstream: gwUpstream, budgets: budgets, limits: limits}
	result = make(chan string, 1)
	go func() { result <- rl.run() }()
	return client, upstream, result
}

// closedWith reads from c until it is closed and returns the close error.
func closedWith(t *testing.T, c *websocket.Conn) websocket.CloseError {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		_, _, err := c.Read(ctx)
		if err == nil {
			continue
		}
		var ce websocket.CloseError
		if !errors.As(err, &ce) {
			t.Fatalf("read ended without a close frame: %v", err)
		}
		return ce
	}
}

func TestRealtimeIdleTimeoutClosesNormally(t *testing.T) {
	client, upstream, result := startRelay(t, RealtimeLimits{Idle: 150 * time.Millisecond, Max: time.Minute}, nil, reqinfo.New())
	start := time.Now()
	ce := closedWith(t, client)
	if ce.Code != websocket.StatusNormalClosure || ce.Reason != reasonIdle {
		t.Fatalf("client closed with %v %q", ce.Code, ce.Reason)
	}
	if ce := closedWith(t, upstream); ce.Code != websocket.StatusNormalClosure {
		t.Fatalf("upstream closed with %v", ce.Code)
	}
	if r := <-result; r != reasonIdle || time.Since(start) < 150*time.Millisecond {
		t.Fatalf("run returned %q after %v", r, time.Since(start))
	}
}

func TestRealtimeActivityKeepsSessionUntilMaxDuration(t *testing.T) {
	client, upstream, result := startRelay(t, RealtimeLimits{Idle: 200 * time.Millisecond, Max: 700 * time.Millisecond}, nil, reqinfo.New())
	ctx := context.Background()
	go func() { // the upstream echoes
		for {
			typ, msg, err := upstream.Read(ctx)
			if err != nil {
				return
			}
			if upstream.Write(ctx, typ, msg) != nil {
				return
			}
		}
	}()
	start := time.Now()
	stop := make(chan struct{})
	go func() { // traffic every 50 ms keeps the session from idling
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				if client.Write(ctx, websocket.MessageText, []byte(`{"type":"ping"}`)) != nil {
					return
				}
			}
		}
	}()
	ce := closedWith(t, client)
	close(stop)
	if ce.Code != websocket.StatusPolicyViolation || ce.Reason != reasonMax {
		t.Fatalf("client closed with %v %q", ce.Code, ce.Reason)
	}
	if d := time.Since(start); d < 650*time.Millisecond {
		t.Fatalf("ended after %v, before the maximum duration", d)
	}
	if r := <-result; r != reasonMax {
		t.Fatalf("run returned %q", r)
	}
}

func TestRealtimeResponseDoneUsageAndBudget(t *testing.T) {
	info := reqinfo.New()
	client, upstream, result := startRelay(t, RealtimeLimits{}, denyAll{}, info)
	ctx := context.Background()
	done := `{"type":"response.done","response":{"usage":{"total_tokens":30,"input_tokens":20,"output_tokens":10,"input_token_details":{"cached_tokens":4}}}}`
	if err := upstream.Write(ctx, websocket.MessageText, []byte(done)); err != nil {
		t.Fatal(err)
	}
	upClosed := make(chan websocket.StatusCode, 1)
	go func() { // the upstream answers the closing handshake
		for {
			if _, _, err := upstream.Read(ctx); err != nil {
				upClosed <- websocket.CloseStatus(err)
				return
			}
		}
	}()
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, msg, err := client.Read(rctx); err != nil || string(msg) != done {
		t.Fatalf("relayed %q, %v", msg, err)
	}
	if ce := closedWith(t, client); ce.Code != websocket.StatusPolicyViolation || ce.Reason != reasonBudget {
		t.Fatalf("client closed with %v %q", ce.Code, ce.Reason)
	}
	if r := <-result; r != reasonBudget {
		t.Fatalf("run returned %q", r)
	}
	if code := <-upClosed; code != websocket.StatusPolicyViolation {
		t.Fatalf("upstream closed with %v", code)
	}
	u, ok := info.Usage()
	if !ok || u.TotalTokens != 30 || u.InputTokens != 20 || u.OutputTokens != 10 || u.CachedInputTokens != 4 {
		t.Fatalf("usage %+v %v", u, ok)
	}
}

func TestRealtimeClientCloseReachesUpstream(t *testing.T) {
	client, upstream, result := startRelay(t, RealtimeLimits{}, nil, reqinfo.New())
	if err := client.Close(websocket.StatusCode(4000), "done"); err != nil {
		t.Fatal(err)
	}
	if ce := closedWith(t, upstream); ce.Code != 4000 || ce.Reason != "done" {
		t.Fatalf("upstream closed with %v %q", ce.Code, ce.Reason)
	}
	if r := <-result; r != "" {
		t.Fatalf("run returned %q", r)
	}
}

func TestUpstreamProtocolsDropCredentials(t *testing.T) {
	r := httptest.NewRequest("GET", "/v1/realtime", nil)
	r.Header.Add("Sec-WebSocket-Protocol", "realtime, openai-insecure-api-key.sk-secret")
	r.Header.Add("Sec-WebSocket-Protocol", "openai-beta.realtime-v1")
	got := upstreamProtocols(r)
	if strings.Join(got, ",") != "realtime,openai-beta.realtime-v1" {
		t.Fatalf("forwarded %v", got)
	}
}

// TestRealtimeUpstreamCloseReachesClient: the upstream's close code and
// reason reach the client, with provider credentials removed.
func TestRealtimeUpstreamCloseReachesClient(t *testing.T) {
	gwClient, client := wsPair(t)
	upstream, gwUpstream := wsPair(t)
	u := NewUpstreams(nil, []string{"sk-secret-upstream"})
	rl := &relay{info: reqinfo.New(), client: gwClient, upstream: gwUpstream, redact: u.redact}
	result := make(chan string, 1)
	go func() { result <- rl.run() }()
	if err := upstream.Close(websocket.StatusCode(4001), "bye sk-secret-upstream"); err != nil {
		t.Fatal(err)
	}
	if ce := closedWith(t, client); ce.Code != 4001 || ce.Reason != "bye [redacted]" {
		t.Fatalf("client closed with %v %q", ce.Code, ce.Reason)
	}
	if r := <-result; r != "" {
		t.Fatalf("run returned %q", r)
	}
}
