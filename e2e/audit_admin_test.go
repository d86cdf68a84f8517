package e2e

// The admin reads of the record through the running gateway: audit log,
// entry, stats, conversation, usage, sessions, GET /v1/usage and the live
// log stream.
//
// Until the audit stage records traffic on its own, these tests seed the
// record through the app's store (boltstore.Audit, the storage the
// recorder writes to) and publish to the app's live hub; the traffic they
// send through the mock provider only checks that reading never disturbs
// serving.

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/storage/store/boltstore"
)

// seedRecord writes one completed request (entry and usage record) at t
// into the running gateway's store and returns the entry.
func seedRecord(t *testing.T, at time.Time, status int, userPath, session string, cost float64) *audit.Entry {
	t.Helper()
	st := activeApp(t).Store()
	b := boltstore.NewAudit(st)
	u := catalog.Usage{InputTokens: 12, OutputTokens: 8, TotalTokens: 20}
	e := &audit.Entry{ID: audit.NewID(at), RequestID: "req-seed", Timestamp: at, Method: "POST", Path: "/v1/chat/completions",
		StatusCode: status, DurationNs: int64(50 * time.Millisecond), AuthMethod: "master_key", UserPath: userPath, SessionID: session,
		Provider: "mock", ProviderName: "demo", RequestedModel: "mock-model", ResolvedModel: "mock-model", Usage: audit.UsageOf(u),
		Data: &audit.Data{RequestBody: json.RawMessage(`{"model":"mock-model","messages":[{"role":"user","content":"seeded"}]}`)}}
	r := &audit.UsageRecord{ID: audit.NewID(at), RequestID: e.ID, Timestamp: at, UserPath: userPath, SessionID: session,
		ProviderName: "demo", ProviderType: "mock", Model: "mock-model", Endpoint: e.Path, Usage: u, TotalCost: &cost}
	if !b.AppendEntry(e) || !b.AppendUsage(r) {
		t.Fatal("the store refused a record")
	}
	if err := st.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestAuditAdminReads(t *testing.T) {
	clearEnv(t)
	g := startGateway(t, mockBlock("admin {\n legacy_alias on\n}\n"))
	// One real request, recorded by the audit stage under /warmup (the mock
	// answers it with 4 input and 2 output tokens, unpriced); the rest is
	// seeded with known figures.
	if res := chatAs(t, g, "/warmup"); res.Status != 200 {
		t.Fatalf("chat %d %s", res.Status, res.Body)
	}
	if err := activeApp(t).AuditStorage().Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	first := seedRecord(t, now.Add(-2*time.Minute), 200, "/team/a", "sess-1", 0.5)
	second := seedRecord(t, now.Add(-time.Minute), 200, "/team/a", "sess-1", 0.25)
	seedRecord(t, now.Add(-30*time.Second), 502, "/team/b", "", 0)

	for _, prefix := range []string{"/admin", "/admin/api/v1"} {
		res := adminCall(t, g, "GET", prefix+"/audit/log?user_path=/team/a", "")
		if res.Status != 200 || res.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("%s log %d %v %s", prefix, res.Status, res.Header, res.Body)
		}
		m := res.JSON(t)
		ents := m["entries"].([]any)
		if m["total"] != 2.0 || len(ents) != 2 || ents[0].(map[string]any)["id"] != second.ID.String() {
			t.Fatalf("%s log %v", prefix, m)
		}
	}
	if m := adminCall(t, g, "GET", "/admin/audit/log?status=5xx", "").JSON(t); m["total"] != 1.0 {
		t.Fatalf("5xx %v", m)
	}
	adminCall(t, g, "GET", "/admin/audit/log?status=nope", "").ExpectErr(t, 400, "invalid_request_error", "invalid_value")

	if m := adminCall(t, g, "GET", "/admin/audit/log/"+first.ID.String(), "").JSON(t); !strings.Contains(mustJSON(t, m["data"]), "seeded") {
		t.Fatalf("entry %v", m)
	}
	adminCall(t, g, "GET", "/admin/audit/log/"+audit.NewID(now).String(), "").ExpectErr(t, 404, "not_found_error", "audit_entry_not_found")

	m := adminCall(t, g, "GET", "/admin/audit/stats?days=1", "").JSON(t)
	if s := m["summary"].(map[string]any); m["interval"] != "hour" || s["requests"] != 4.0 || s["status_2xx"] != 3.0 || s["status_5xx"] != 1.0 {
		t.Fatalf("stats %v", m)
	}

	m = adminCall(t, g, "GET", "/admin/audit/conversation?log_id="+second.ID.String(), "").JSON(t)
	if ents := m["entries"].([]any); len(ents) != 2 || ents[0].(map[string]any)["id"] != first.ID.String() || m["truncated"] != false {
		t.Fatalf("conversation %v", m)
	}
	adminCall(t, g, "GET", "/admin/audit/conversation", "").ExpectErr(t, 400, "invalid_request_error", "missing_required_parameter")
	adminCall(t, g, "GET", "/admin/audit/conversation?log_id="+audit.NewID(now).String(), "").ExpectErr(t, 404, "not_found_error", "audit_entry_not_found")

	m = adminCall(t, g, "GET", "/admin/usage/summary?days=1", "").JSON(t)
	if m["total_requests"] != 4.0 || m["total_tokens"] != 66.0 || m["total_cost"] != 0.75 {
		t.Fatalf("summary %v", m)
	}
	adminCall(t, g, "GET", "/admin/usage/summary?days=400", "").ExpectErr(t, 400, "invalid_request_error", "invalid_value")
	if res := adminCall(t, g, "GET", "/admin/usage/daily?interval=monthly", ""); !strings.HasPrefix(string(res.Body), `[{"date":"`+now.Format("2006-01")+`","requests":4,`) {
		t.Fatalf("monthly %s", res.Body)
	}
	if res := adminCall(t, g, "GET", "/admin/usage/sessions", ""); !strings.Contains(string(res.Body), `"session_id":"sess-1","user_path":"/team/a"`) {
		t.Fatalf("sessions %s", res.Body)
	}

	// The caller's own usage: /team/a and below, today.
	res := request(t, "GET", g.URL+"/v1/usage", "", append(bearer(masterKey), userPathHeader, "/team/a")...)
	u, _ := res.JSON(t)["usage"].(map[string]any)
	if u == nil || u["today"].(map[string]any)["requests"] != 2.0 || u["last_30_days"].(map[string]any)["cost"] != 0.75 {
		t.Fatalf("/v1/usage %s", res.Body)
	}
}

// TestAuditAdminSwitchesOff: with audit logging and usage tracking off the
// reads answer empty or zeroed, never an error; the live stream is off by
// default.
func TestAuditAdminSwitchesOff(t *testing.T) {
	clearEnv(t)
	t.Setenv("LOGGING_ENABLED", "false")
	t.Setenv("USAGE_ENABLED", "false")
	g := startGateway(t, mockBlock(""))
	seedRecord(t, time.Now().UTC(), 200, "/team/a", "s", 1)
	if res := adminCall(t, g, "GET", "/admin/audit/log", ""); string(res.Body) != `{"entries":[],"total":0,"limit":50,"offset":0}` {
		t.Fatalf("log %d %s", res.Status, res.Body)
	}
	if m := adminCall(t, g, "GET", "/admin/audit/stats", "").JSON(t); m["summary"].(map[string]any)["requests"] != 0.0 {
		t.Fatalf("stats %v", m)
	}
	if m := adminCall(t, g, "GET", "/admin/usage/summary", "").JSON(t); m["total_requests"] != 0.0 {
		t.Fatalf("summary %v", m)
	}
	if res := adminCall(t, g, "GET", "/admin/usage/daily", ""); res.Status != 200 || string(res.Body) != "[]" {
		t.Fatalf("daily %d %s", res.Status, res.Body)
	}
	if res := adminCall(t, g, "GET", "/admin/usage/sessions", ""); string(res.Body) != `{"sessions":[],"next_cursor":null}` {
		t.Fatalf("sessions %s", res.Body)
	}
	// The caller's own usage is zeroed too, not null.
	m := request(t, "GET", g.URL+"/v1/usage", "", bearer(masterKey)...).JSON(t)
	if u, _ := m["usage"].(map[string]any); u == nil || u["today"].(map[string]any)["requests"] != 0.0 ||
		u["last_30_days"].(map[string]any)["total_tokens"] != 0.0 {
		t.Fatalf("/v1/usage %v", m)
	}
	adminCall(t, g, "GET", "/admin/live/logs", "").ExpectErr(t, 404, "not_found_error", "live_logs_disabled")
}

// liveEvent is one server-sent event of the live stream.
type liveEvent struct{ id, event, data string }

// liveConn is an open live stream.
type liveConn struct {
	rd    *bufio.Reader
	close func()
}

// openLiveStream connects to /admin/live/logs with the master key and
// lastID as Last-Event-ID (none when ""), and waits until subscribed.
func openLiveStream(t *testing.T, g *gateway, lastID string) *liveConn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	req, _ := http.NewRequestWithContext(ctx, "GET", g.URL+"/admin/live/logs", nil)
	req.Header.Set("Authorization", "Bearer "+masterKey)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		cancel()
		t.Fatalf("live stream: %d %v", resp.StatusCode, resp.Header)
	}
	c := &liveConn{rd: bufio.NewReader(resp.Body), close: func() { cancel(); _ = resp.Body.Close() }}
	t.Cleanup(c.close)
	return c
}

// next reads the next event; a ": connected" comment counts as an event
// named "connected".
func (c *liveConn) next(t *testing.T) liveEvent {
	t.Helper()
	var ev liveEvent
	for {
		line, err := c.rd.ReadString('\n')
		if err != nil {
			t.Fatalf("live stream: %v", err)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if ev.event != "" {
				return ev
			}
		case line == ": connected":
			ev.event = "connected"
		case strings.HasPrefix(line, "id: "):
			ev.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			ev.event = line[7:]
		case strings.HasPrefix(line, "data: "):
			ev.data += line[6:]
		}
	}
}

// TestLiveLogStream: a client connected through Caddy receives events as
// they are published (nothing buffers them), reconnects with its last id
// and receives exactly the missed events, and with a stale cursor
// receives reset.
func TestLiveLogStream(t *testing.T) {
	g := startMockGateway(t)
	if err := g.reload(t, mockBlock("admin {\n live_logs_enabled true\n}\n")); err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, g.URL)
	hub := activeApp(t).LiveHub()
	if hub == nil {
		t.Fatal("no live hub with audit logging on")
	}
	adminCall(t, g, "GET", "/admin/live/logs?cursor=x", "").ExpectErr(t, 400, "invalid_request_error", "invalid_value")
	pub := func(p string) {
		hub.PublishAudit(&audit.AuditPreview{Phase: audit.PhaseStart, Method: "POST", Path: p})
	}

	c := openLiveStream(t, g, "")
	if ev := c.next(t); ev.event != "connected" {
		t.Fatalf("first %+v", ev)
	}
	pub("/v1/one")
	ev := c.next(t)
	if ev.event != "audit" || !strings.Contains(ev.data, "/v1/one") {
		t.Fatalf("event %+v", ev)
	}
	last := ev.id
	c.close()
	pub("/v1/missed-a")
	pub("/v1/missed-b")
	c = openLiveStream(t, g, last)
	if ev := c.next(t); ev.event != "connected" {
		t.Fatalf("reconnect %+v", ev)
	}
	for _, want := range []string{"missed-a", "missed-b"} {
		if ev := c.next(t); ev.event != "audit" || !strings.Contains(ev.data, want) {
			t.Fatalf("replay %+v, want %s", ev, want)
		}
	}
	c.close()
	// A cursor ahead of the hub (it predates a restart) resets.
	c = openLiveStream(t, g, "999999")
	if ev := c.next(t); ev.event != "reset" {
		t.Fatalf("stale cursor %+v", ev)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
