package audit

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestParseCursor(t *testing.T) {
	if c, ok, err := ParseCursor(url.Values{"cursor": {"7"}}, ""); c != 7 || !ok || err != nil {
		t.Fatalf("query cursor: %d %v %v", c, ok, err)
	}
	if c, ok, _ := ParseCursor(url.Values{"cursor": {"7"}}, "9"); c != 9 || !ok {
		t.Fatal("Last-Event-ID must win: a reconnecting browser keeps the old URL")
	}
	if _, ok, err := ParseCursor(url.Values{}, ""); ok || err != nil {
		t.Fatal("no cursor")
	}
	if _, _, err := ParseCursor(url.Values{"cursor": {"-1"}}, ""); err == nil {
		t.Fatal("bad cursor accepted")
	}
}

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	id    uint64
	event string
	data  string
}

// readEvents parses events from r onto a channel until r ends.
func readEvents(r io.Reader) <-chan sseEvent {
	ch := make(chan sseEvent, 64)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.event != "" {
					ch <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				ev.id, _ = strconv.ParseUint(line[4:], 10, 64)
			case strings.HasPrefix(line, "event: "):
				ev.event = line[7:]
			case strings.HasPrefix(line, "data: "):
				ev.data += line[6:]
			}
		}
	}()
	return ch
}

// stream runs h.Stream into a pipe and returns the parsed events, a
// cancel func and the Stream result.
func stream(h *Hub, cursor uint64, has bool, hb time.Duration) (<-chan sseEvent, context.CancelFunc, <-chan error) {
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		err := h.Stream(ctx, pw, nil, cursor, has, hb)
		pw.Close()
		done <- err
	}()
	return readEvents(pr), cancel, done
}

func next(t *testing.T, ch <-chan sseEvent) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("stream ended")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
	}
	return sseEvent{}
}

func TestStreamReconnectReplaysMissedEventsAndResetsStaleCursors(t *testing.T) {
	h := NewHub(16)
	// Cursor 0 on an empty hub: everything from the first event on.
	evs, cancel, done := stream(h, 0, true, time.Hour)
	publish(h, 3)
	var last uint64
	for i := uint64(1); i <= 3; i++ {
		ev := next(t, evs)
		if ev.id != i || ev.event != EventAudit || !strings.Contains(ev.data, `"phase":"start"`) {
			t.Fatalf("event %d = %+v", i, ev)
		}
		last = ev.id
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// While the client is away, three more requests flow.
	publish(h, 2)
	u := UsageRecord{Model: "gpt"}
	h.PublishUsage(&u)
	evs, cancel, done = stream(h, last, true, time.Hour)
	for i := uint64(4); i <= 6; i++ {
		ev := next(t, evs)
		if ev.id != i {
			t.Fatalf("replayed id %d, want %d", ev.id, i)
		}
		if i == 6 && (ev.event != EventUsage || !strings.Contains(ev.data, `"model":"gpt"`)) {
			t.Fatalf("usage event = %+v", ev)
		}
	}
	publish(h, 1)
	if ev := next(t, evs); ev.id != 7 {
		t.Fatalf("live event after replay: %+v", ev)
	}
	cancel()
	<-done

	// A cursor that fell out of the buffer, or one from before a restart.
	publish(h, 40)
	for _, cursor := range []uint64{2, 1000} {
		last := h.Last()
		evs, cancel, done := stream(h, cursor, true, time.Hour)
		ev := next(t, evs)
		if ev.event != EventReset || ev.id != last || !strings.Contains(ev.data, `"last":`+strconv.FormatUint(last, 10)) {
			t.Fatalf("cursor %d: first event %+v, want reset at %d", cursor, ev, last)
		}
		publish(h, 1)
		if ev := next(t, evs); ev.event != EventAudit || ev.id != h.Last() {
			t.Fatalf("after reset: %+v", ev)
		}
		cancel()
		<-done
	}
}

func TestStreamSendsHeartbeats(t *testing.T) {
	h := NewHub(4)
	publish(h, 2)
	evs, cancel, done := stream(h, 2, true, 20*time.Millisecond)
	defer func() { cancel(); <-done }()
	ev := next(t, evs)
	if ev.event != EventHeartbeat || ev.id != 2 || !strings.Contains(ev.data, `"time"`) {
		t.Fatalf("heartbeat = %+v", ev)
	}
}

// blockedWriter never returns from Write until released.
type blockedWriter struct{ release chan struct{} }

func (w blockedWriter) Write(p []byte) (int, error) { <-w.release; return len(p), nil }

func TestStreamDropsASlowClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := NewHub(4)
		w := blockedWriter{release: make(chan struct{})}
		done := make(chan error, 1)
		go func() { done <- h.Stream(context.Background(), w, nil, 0, false, time.Hour) }()
		synctest.Wait() // the client is stuck in its first write
		publish(h, 100) // publishers carry on regardless
		close(w.release)
		select {
		case err := <-done:
			if !errors.Is(err, ErrSlowSubscriber) {
				t.Fatalf("Stream = %v, want ErrSlowSubscriber", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("slow client kept")
		}
	})
}
