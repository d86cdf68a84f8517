package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// flushRecorder records what each flush sent and signals every flush.
type flushRecorder struct {
	h       http.Header
	mu      sync.Mutex
	pending strings.Builder
	flushes []string
	flushed chan struct{}
}

func (f *flushRecorder) Header() http.Header { return f.h }
func (f *flushRecorder) WriteHeader(int)     {}
func (f *flushRecorder) Write(b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pending.Write(b)
}
func (f *flushRecorder) Flush() {
	f.mu.Lock()
	f.flushes = append(f.flushes, f.pending.String())
	f.pending.Reset()
	f.mu.Unlock()
	f.flushed <- struct{}{}
}

// waitFlush returns what the next flush sent.
func (f *flushRecorder) waitFlush(t *testing.T) string {
	t.Helper()
	select {
	case <-f.flushed:
	case <-time.After(5 * time.Second):
		t.Fatal("no flush: an event is held back")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.flushes[len(f.flushes)-1]
}

func TestRelayStreamFlushesEventsTogetherButNeverHoldsOneBack(t *testing.T) {
	pr, pw := io.Pipe()
	resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: pr}
	rec := &flushRecorder{h: http.Header{}, flushed: make(chan struct{}, 16)}
	done := make(chan struct{})
	info := reqinfo.New()
	go func() {
		new(Service).relayStream(rec, httptest.NewRequest("POST", "/v1/chat/completions", nil), resp, &call{info: info})
		close(done)
	}()
	// The upstream sends no event: the headers leave on their own after
	// headerWait.
	if got := rec.waitFlush(t); got != "" {
		t.Fatalf("header flush carried %q", got)
	}
	// Two events that arrive together leave in one write.
	send := func(s string) {
		if _, err := pw.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	send("data: a\n\ndata: b\n\n")
	if got := rec.waitFlush(t); got != "data: a\n\ndata: b\n\n" {
		t.Errorf("flush = %q, want both events", got)
	}
	// A lone event is flushed at once, without waiting for the next.
	send("data: c\n\n")
	if got := rec.waitFlush(t); got != "data: c\n\n" {
		t.Errorf("flush = %q, want event c", got)
	}
	// A partly received event is not flushed until it is whole; the
	// whole one before it is.
	send("data: d\n\ndata: e")
	if got := rec.waitFlush(t); got != "data: d\n\n" {
		t.Errorf("flush = %q, want event d alone", got)
	}
	send("\n\n")
	if got := rec.waitFlush(t); got != "data: e\n\n" {
		t.Errorf("flush = %q, want event e", got)
	}
	pw.Close()
	<-done
	// The stream ended and its last part was sent: the answer is whole.
	if info.AnswerOpen {
		t.Error("the answer is still open after the stream ended")
	}
}

// TestRelayStreamSendsHeadersWithTheFirstEvent: when the upstream's first
// event is there by the time the relay reads, the headers leave with it
// in one flush, not in a flush of their own.
func TestRelayStreamSendsHeadersWithTheFirstEvent(t *testing.T) {
	defer func(w time.Duration) { headerWait = w }(headerWait)
	headerWait = time.Hour
	resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("data: a\n\ndata: [DONE]\n\n"))}
	rec := &flushRecorder{h: http.Header{}, flushed: make(chan struct{}, 16)}
	new(Service).relayStream(rec, httptest.NewRequest("POST", "/v1/chat/completions", nil), resp, &call{info: reqinfo.New(), in: ingressChat})
	if want := "data: a\n\ndata: [DONE]\n\n"; len(rec.flushes) != 1 || rec.flushes[0] != want {
		t.Fatalf("flushes %q, want one of %q", rec.flushes, want)
	}
}

// TestRelayStreamHeaderTimerStopsWithTheRelay: a relay that ends before
// its first write (the client left) leaves no timer to flush a writer
// its handler no longer owns.
func TestRelayStreamHeaderTimerStopsWithTheRelay(t *testing.T) {
	defer func(w time.Duration) { headerWait = w }(headerWait)
	headerWait = 20 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// The upstream's body ends inside an event, and the client is gone:
	// the relay returns without writing.
	resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("data: a"))}
	rec := &flushRecorder{h: http.Header{}, flushed: make(chan struct{}, 16)}
	r := httptest.NewRequest("POST", "/v1/chat/completions", nil).WithContext(ctx)
	new(Service).relayStream(rec, r, resp, &call{info: reqinfo.New(), in: ingressChat})
	time.Sleep(3 * headerWait)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.flushes) != 0 {
		t.Fatalf("flushes %q after the relay returned", rec.flushes)
	}
}

// TestEventWriterKeepsTheHeaderTimerThroughEmptyWrites: upstream events
// that give the client nothing (keep-alives a translation drops) do not
// stop the timer that sends held headers.
func TestEventWriterKeepsTheHeaderTimerThroughEmptyWrites(t *testing.T) {
	defer func(w time.Duration) { headerWait = w }(headerWait)
	headerWait = 20 * time.Millisecond
	rec := &flushRecorder{h: http.Header{}, flushed: make(chan struct{}, 16)}
	events := newEventReader(strings.NewReader(""))
	defer events.Release()
	out := startEventStream(rec, 200, events, reqinfo.New())
	defer out.settle()
	if !out.send(ingressChat, nil) {
		t.Fatal("send reported the client gone")
	}
	if got := rec.waitFlush(t); got != "" {
		t.Fatalf("header flush carried %q", got)
	}
}

// TestRelayStreamSendsHeadersBeforeAnAbort: a stream that breaks before
// its first event still answers with its status before the connection is
// aborted, so that the client sees a broken answer rather than no answer
// (which clients retry).
func TestRelayStreamSendsHeadersBeforeAnAbort(t *testing.T) {
	defer func(w time.Duration) { headerWait = w }(headerWait)
	headerWait = time.Hour
	resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(`data: {"partial`))}
	rec := &flushRecorder{h: http.Header{}, flushed: make(chan struct{}, 16)}
	func() {
		defer func() {
			if r := recover(); r != http.ErrAbortHandler {
				t.Errorf("recovered %v, want http.ErrAbortHandler", r)
			}
		}()
		new(Service).relayStream(rec, httptest.NewRequest("POST", "/v1/chat/completions", nil), resp, &call{info: reqinfo.New(), in: ingressChat, provider: &stubProvider{name: "up"}})
	}()
	if len(rec.flushes) != 1 || rec.flushes[0] != "" {
		t.Fatalf("flushes %q, want the headers alone", rec.flushes)
	}
}

// relayUntilTheClientLeaves relays to a client of ingress in a stream
// whose upstream sends events, then the client leaves before the upstream
// ends its body (the read is cancelled with the client); it returns
// whether the answer was left open.
func relayUntilTheClientLeaves(t *testing.T, in ingress, events ...string) (open bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: pr}
	rec := &flushRecorder{h: http.Header{}, flushed: make(chan struct{}, 16)}
	info := reqinfo.New()
	done := make(chan struct{})
	go func() {
		r := httptest.NewRequest("POST", "/v1/chat/completions", nil).WithContext(ctx)
		new(Service).relayStream(rec, r, resp, &call{info: info, in: in})
		close(done)
	}()
	rec.waitFlush(t)
	for _, ev := range events {
		if _, err := io.WriteString(pw, ev); err != nil {
			t.Fatal(err)
		}
		rec.waitFlush(t)
	}
	cancel()
	pw.CloseWithError(context.Canceled)
	<-done
	return info.AnswerOpen
}

// TestRelayStreamLeftOpenWhenTheClientLeaves: a stream that stops because
// the client went away leaves the answer open, so the audit records the
// disconnect; once its closing event is out, the answer is whole even if
// the client then leaves before the upstream ends its body.
func TestRelayStreamLeftOpenWhenTheClientLeaves(t *testing.T) {
	if !relayUntilTheClientLeaves(t, ingressChat, "data: {\"choices\":[]}\n\n") {
		t.Error("a stream the client left is recorded as whole")
	}
	if relayUntilTheClientLeaves(t, ingressChat, "data: {\"choices\":[]}\n\n", "data: [DONE]\n\n") {
		t.Error("a stream whose closing event was sent is recorded as open")
	}
}

// BenchmarkRelayStreamLoopback relays a 50-event stream whose events are
// all buffered at once (a gateway that fell behind its upstream) to a real
// client over loopback, where each flush is a write system call.
func BenchmarkRelayStreamLoopback(b *testing.B) {
	stream := chatStream()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		new(Service).relayStream(w, r, sseResponse(stream), &call{info: reqinfo.New(), wantUsage: true})
	}))
	defer srv.Close()
	client := srv.Client()
	b.ReportAllocs()
	b.SetBytes(int64(len(stream)))
	for i := 0; i < b.N; i++ {
		resp, err := client.Get(srv.URL)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if n != int64(len(stream)) {
			b.Fatalf("read %d bytes, want %d", n, len(stream))
		}
	}
}

func TestClosesStream(t *testing.T) {
	cases := []struct {
		in   ingress
		b    string
		want bool
	}{
		{ingressChat, "data: [DONE]\n\n", true},
		{ingressChat, "data:[DONE]\n\n", true},
		{ingressChat, "data: {\"choices\":[]}\n\ndata: [DONE]\n\n", true},
		{ingressChat, "data: {\"choices\":[{\"delta\":{\"content\":\"data: [DONE]\"}}]}\n\n", false},
		{ingressChat, "data: {\"choices\":[]}\n\n", false},
		{ingressMessages, "event: message_delta\ndata: {}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n", true},
		{ingressMessages, "event: content_block_delta\ndata: {\"delta\":{\"text\":\"event: message_stop\"}}\n\n", false},
		{ingressResponses, "event: response.completed\ndata: {}\n\n", true},
		{ingressResponses, "event: response.incomplete\ndata: {}\n\n", true},
		{ingressResponses, "event: response.failed\ndata: {}\n\n", true},
		{ingressResponses, "event: response.output_text.delta\ndata: {\"delta\":\"event: response.completed\"}\n\n", false},
		{ingressResponses, "data: [DONE]\n\n", false},
	}
	for _, c := range cases {
		if got := closesStream(c.in, []byte(c.b)); got != c.want {
			t.Errorf("%s %q: %v", c.in.name, c.b, got)
		}
	}
}

// leavingClient is a client that takes every write, and leaves once it
// has been handed an event holding marker: every flush from then on
// fails, as a flush to a closed connection does. With refuse set it is
// gone before that write instead, which then fails.
type leavingClient struct {
	h      http.Header
	marker string
	refuse bool
	gone   bool
}

func (c *leavingClient) Header() http.Header { return c.h }
func (c *leavingClient) WriteHeader(int)     {}
func (c *leavingClient) Write(b []byte) (int, error) {
	if c.gone {
		return 0, io.ErrClosedPipe
	}
	if strings.Contains(string(b), c.marker) {
		c.gone = true
		if c.refuse {
			return 0, io.ErrClosedPipe
		}
	}
	return len(b), nil
}
func (c *leavingClient) FlushError() error {
	if c.gone {
		return io.ErrClosedPipe
	}
	return nil
}

// TestRelayStreamWholeWhenTheClientLeavesBeforeTheLastFlush: a client
// that closes the connection on a closing event large enough for its
// write to send it (SentByWrite) got the whole answer although the flush
// after it fails; a small closing event reaches the client only through
// that flush, so when it fails the answer stays open, as it does when
// the closing event's write is refused.
func TestRelayStreamWholeWhenTheClientLeavesBeforeTheLastFlush(t *testing.T) {
	large := "event: response.completed\ndata: {\"pad\":\"" + strings.Repeat("x", writeBuffer) + "\"}\n\n"
	for _, tc := range []struct {
		in     ingress
		stream string
		marker string
		whole  bool // when the write is taken and the flush fails
	}{
		{ingressChat, "data: {\"choices\":[]}\n\ndata: [DONE]\n\n", "[DONE]", false},
		{ingressResponses, "event: response.created\ndata: {}\n\nevent: response.completed\ndata: {}\n\n", "response.completed", false},
		{ingressResponses, "event: response.created\ndata: {}\n\n" + large, "response.completed", true},
	} {
		for _, refuse := range []bool{false, true} {
			c := &leavingClient{h: http.Header{}, marker: tc.marker, refuse: refuse}
			resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(tc.stream))}
			info := reqinfo.New()
			new(Service).relayStream(c, httptest.NewRequest("POST", "/", nil), resp, &call{info: info, in: tc.in, provider: &stubProvider{name: "up"}})
			if !c.gone {
				t.Fatalf("%s: the closing event never reached the client", tc.marker)
			}
			if want := refuse || !tc.whole; info.AnswerOpen != want {
				t.Errorf("%s (%d bytes), write refused %v: answer open %v, want %v", tc.marker, len(tc.stream), refuse, info.AnswerOpen, want)
			}
		}
	}
}

// TestCopyFlushingStopsWhenAFlushFails: a passthrough answer whose flush
// fails (the client is gone) stops there and stays open, even when the
// upstream's body then ends cleanly.
func TestCopyFlushingStopsWhenAFlushFails(t *testing.T) {
	c := &flushFailer{h: http.Header{}}
	body := io.MultiReader(strings.NewReader("first part"), strings.NewReader("second part"))
	info := reqinfo.New()
	new(Service).copyFlushing(c, httptest.NewRequest("POST", "/", nil), body, &call{info: info, provider: &stubProvider{name: "up"}})
	if !info.AnswerOpen || c.writes != 1 {
		t.Fatalf("answer open %v after %d writes, want open after 1", info.AnswerOpen, c.writes)
	}
}

// flushFailer is a connection whose peer has gone: writes still land in
// the buffers, every flush fails.
type flushFailer struct {
	h      http.Header
	writes int
}

func (c *flushFailer) Header() http.Header         { return c.h }
func (c *flushFailer) WriteHeader(int)             {}
func (c *flushFailer) Write(b []byte) (int, error) { c.writes++; return len(b), nil }
func (c *flushFailer) FlushError() error           { return io.ErrClosedPipe }

// writeCounter counts the writes and flushes a client is handed.
type writeCounter struct {
	h               http.Header
	body            strings.Builder
	writes, flushes int
}

func (c *writeCounter) Header() http.Header { return c.h }
func (c *writeCounter) WriteHeader(int)     {}
func (c *writeCounter) Write(b []byte) (int, error) {
	c.writes++
	return c.body.Write(b)
}
func (c *writeCounter) Flush() { c.flushes++ }

// TestEventsThatArriveTogetherLeaveInOneWrite: events the upstream sent
// together reach the client in one write and one flush, in order and
// whole; events that arrive apart each leave at once.
func TestEventsThatArriveTogetherLeaveInOneWrite(t *testing.T) {
	together := "data: {\"n\":1}\n\ndata: {\"n\":2}\n\ndata: {\"n\":3}\n\ndata: [DONE]\n\n"
	rec := &writeCounter{h: http.Header{}}
	resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(together))}
	new(Service).relayStream(rec, httptest.NewRequest("POST", "/v1/chat/completions", nil), resp, &call{info: reqinfo.New(), in: ingressChat})
	if rec.writes != 1 || rec.flushes != 1 || rec.body.String() != together {
		t.Fatalf("%d writes, %d flushes of %q; want 1, 1 of %q", rec.writes, rec.flushes, rec.body.String(), together)
	}

	// Apart: each read of the upstream returns one event.
	pr, pw := io.Pipe()
	rec = &writeCounter{h: http.Header{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: pr}
		new(Service).relayStream(rec, httptest.NewRequest("POST", "/v1/chat/completions", nil), resp, &call{info: reqinfo.New(), in: ingressChat})
	}()
	for _, ev := range []string{"data: {\"n\":1}\n\n", "data: {\"n\":2}\n\n", "data: [DONE]\n\n"} {
		if _, err := io.WriteString(pw, ev); err != nil {
			t.Fatal(err)
		}
	}
	pw.Close()
	<-done
	if rec.writes != 3 || rec.flushes != 3 {
		t.Fatalf("events apart: %d writes, %d flushes; want 3, 3", rec.writes, rec.flushes)
	}
}
