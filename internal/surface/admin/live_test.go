package admin

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/platform/config"
)

// sseEvent is one parsed server-sent event.
type sseEvent struct{ id, event, data string }

// sseClient reads the events of one live stream.
type sseClient struct {
	t      *testing.T
	resp   *http.Response
	rd     *bufio.Reader
	cancel context.CancelFunc
}

// openLive connects to the live stream of srv with the query q and, when
// lastID is not "", a Last-Event-ID header; it waits until the server has
// subscribed (its first event or comment).
func openLive(t *testing.T, srv *httptest.Server, q, lastID string) *sseClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/admin/live/logs"+q, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	c := &sseClient{t: t, resp: resp, rd: bufio.NewReader(resp.Body), cancel: cancel}
	t.Cleanup(c.close)
	return c
}

func (c *sseClient) close() {
	c.cancel()
	_ = c.resp.Body.Close()
}

// next returns the next event (comments and the connect line skipped).
func (c *sseClient) next() sseEvent {
	c.t.Helper()
	var ev sseEvent
	for {
		line, err := c.rd.ReadString('\n')
		if err != nil {
			c.t.Fatalf("reading the stream: %v", err)
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "":
			if ev.event != "" {
				return ev
			}
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "id: "):
			ev.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			ev.event = line[7:]
		case strings.HasPrefix(line, "data: "):
			ev.data += line[6:]
		}
	}
}

// waitConnected reads up to the connect comment, sent once subscribed.
func (c *sseClient) waitConnected() {
	c.t.Helper()
	for {
		line, err := c.rd.ReadString('\n')
		if err != nil {
			c.t.Fatalf("reading the stream: %v", err)
		}
		if strings.HasPrefix(line, ": connected") {
			_, _ = c.rd.ReadString('\n')
			return
		}
	}
}

// liveServer serves a handler with live logs on over hub.
func liveServer(t *testing.T, hub *audit.Hub, heartbeat time.Duration) *httptest.Server {
	t.Helper()
	h, _ := newTestHandler(t, func(c *config.Config, o *Options) {
		c.Admin.LiveLogsEnabled = config.Ptr(true)
		o.Live, o.LiveHeartbeat = hub, heartbeat
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func publish(hub *audit.Hub, path string) {
	hub.PublishAudit(&audit.AuditPreview{Phase: audit.PhaseStart, Method: "POST", Path: path})
}

func TestLiveLogsOff(t *testing.T) {
	h, _ := newTestHandler(t, func(_ *config.Config, o *Options) { o.Live = audit.NewHub(8) })
	do(h, "GET", "/admin/live/logs", "").expectErr(t, 404, "not_found_error", "live_logs_disabled")
}

func TestLiveLogsBadCursor(t *testing.T) {
	h, _ := newTestHandler(t, func(c *config.Config, _ *Options) { c.Admin.LiveLogsEnabled = config.Ptr(true) })
	do(h, "GET", "/admin/live/logs?cursor=abc", "").expectErr(t, 400, "invalid_request_error", "invalid_value")
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/admin/live/logs", nil)
	req.Header.Set("Last-Event-ID", "-3")
	h.ServeHTTP(rec, req)
	if rec.Code != 400 {
		t.Fatalf("bad Last-Event-ID: %d", rec.Code)
	}
}

// TestLiveLogsReplay: a client reads events, disconnects, reconnects with
// its last id and receives exactly the events it missed; with a cursor
// that has left the buffer it receives reset.
func TestLiveLogsReplay(t *testing.T) {
	hub := audit.NewHub(4)
	srv := liveServer(t, hub, time.Hour)
	c := openLive(t, srv, "", "")
	if ct, cc := c.resp.Header.Get("Content-Type"), c.resp.Header.Get("Cache-Control"); ct != "text/event-stream" || cc != "no-store, no-transform" {
		t.Fatalf("headers %q %q", ct, cc)
	}
	c.waitConnected()
	publish(hub, "/v1/a")
	hub.PublishUsage(&audit.UsageRecord{Model: "gpt-4o", UserPath: "/team/a"})
	if ev := c.next(); ev.id != "1" || ev.event != "audit" || !strings.Contains(ev.data, `"path":"/v1/a"`) {
		t.Fatalf("first event %+v", ev)
	}
	if ev := c.next(); ev.id != "2" || ev.event != "usage" || !strings.Contains(ev.data, `"model":"gpt-4o"`) {
		t.Fatalf("second event %+v", ev)
	}
	c.close()
	publish(hub, "/v1/missed-3")
	publish(hub, "/v1/missed-4")

	c = openLive(t, srv, "", "2")
	for _, want := range []string{"3", "4"} {
		if ev := c.next(); ev.id != want || !strings.Contains(ev.data, "/v1/missed-"+want) {
			t.Fatalf("replayed %+v, want id %s", ev, want)
		}
	}
	publish(hub, "/v1/live-5")
	if ev := c.next(); ev.id != "5" {
		t.Fatalf("after replay %+v", ev)
	}
	c.close()

	// Event 1 has left the four-event buffer: cursor 0 (nothing seen)
	// resets, as does a cursor ahead of the hub (a restart). The reset
	// carries the latest id.
	for _, q := range []string{"?cursor=0", "?cursor=99"} {
		last := strconv.FormatUint(hub.Last(), 10)
		c = openLive(t, srv, q, "")
		if ev := c.next(); ev.event != "reset" || ev.id != last {
			t.Fatalf("%s: %+v", q, ev)
		}
		publish(hub, "/v1/after-reset")
		if ev := c.next(); ev.event != "audit" || !strings.Contains(ev.data, "after-reset") {
			t.Fatalf("%s: after reset %+v", q, ev)
		}
		c.close()
	}
	// ?cursor= works as Last-Event-ID does; the header wins.
	last := hub.Last()
	publish(hub, "/v1/by-query")
	c = openLive(t, srv, "?cursor="+strconv.FormatUint(last, 10), "")
	if ev := c.next(); !strings.Contains(ev.data, "by-query") {
		t.Fatalf("query cursor %+v", ev)
	}
	c.close()
	c = openLive(t, srv, "?cursor=abc", strconv.FormatUint(last, 10))
	if ev := c.next(); !strings.Contains(ev.data, "by-query") {
		t.Fatalf("header cursor %+v", ev)
	}
}

func TestLiveLogsHeartbeat(t *testing.T) {
	srv := liveServer(t, nil, 20*time.Millisecond) // nothing records: heartbeats only
	c := openLive(t, srv, "", "")
	if ev := c.next(); ev.event != "heartbeat" || ev.id != "0" || !strings.Contains(ev.data, `"time"`) {
		t.Fatalf("heartbeat %+v", ev)
	}
}

// TestLiveLogsSlowClient: a client that does not read while events keep
// coming falls a whole buffer behind and is disconnected: its stream ends
// short of the events published, and publishing never waited for it.
func TestLiveLogsSlowClient(t *testing.T) {
	hub := audit.NewHub(16)
	srv := liveServer(t, hub, time.Hour)
	c := openLive(t, srv, "", "")
	c.waitConnected()
	const n, size = 500, 64 << 10
	path := "/v1/" + strings.Repeat("x", size)
	start := time.Now()
	for range n {
		publish(hub, path)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("publishing waited for the client: %v", d)
	}
	got, err := io.Copy(io.Discard, c.rd)
	if err != nil {
		t.Fatalf("the stream did not end cleanly: %v", err)
	}
	if got >= n*size {
		t.Fatalf("read %d bytes: the slow client received everything", got)
	}
}

// TestLiveLogsOutlivesWriteTimeout: the stream clears the server's write
// deadline, so it keeps delivering after the write timeout has passed.
func TestLiveLogsOutlivesWriteTimeout(t *testing.T) {
	hub := audit.NewHub(8)
	h, _ := newTestHandler(t, func(c *config.Config, o *Options) {
		c.Admin.LiveLogsEnabled = config.Ptr(true)
		o.Live, o.LiveHeartbeat = hub, time.Hour
	})
	srv := httptest.NewUnstartedServer(h)
	srv.Config.WriteTimeout = 100 * time.Millisecond
	srv.Start()
	t.Cleanup(srv.Close)
	c := openLive(t, srv, "", "")
	c.waitConnected()
	time.Sleep(300 * time.Millisecond)
	publish(hub, "/v1/late")
	if ev := c.next(); !strings.Contains(ev.data, "/v1/late") {
		t.Fatalf("after the write timeout %+v", ev)
	}
}

// TestLiveLogsEndWhenTheServerShutsDown: an open live stream does not hold
// the server's shutdown (a config reload or a stop): it ends, and the
// client reconnects to what serves next.
func TestLiveLogsEndWhenTheServerShutsDown(t *testing.T) {
	hub := audit.NewHub(8)
	srv := liveServer(t, hub, time.Hour)
	c := openLive(t, srv, "", "")
	c.waitConnected()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Config.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown waited for the live stream: %v", err)
	}
	if _, err := c.rd.ReadString('\n'); err == nil {
		t.Fatal("the stream is still open after the shutdown")
	}
}
