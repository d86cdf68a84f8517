package audit

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// publish publishes n audit previews numbered from the hub's next seq.
func publish(h *Hub, n int) {
	for i := 0; i < n; i++ {
		p := AuditPreview{Phase: PhaseStart, Path: "/v1/chat/completions"}
		h.PublishAudit(&p)
	}
}

// seqs returns the sequence numbers of evs.
func seqs(evs []LiveEvent) []uint64 {
	out := make([]uint64, len(evs))
	for i, e := range evs {
		out[i] = e.Seq
	}
	return out
}

func wantSeqs(t *testing.T, got []LiveEvent, from, to uint64) {
	t.Helper()
	if len(got) != int(to-from+1) {
		t.Fatalf("got seqs %v, want %d..%d", seqs(got), from, to)
	}
	for i, e := range got {
		if e.Seq != from+uint64(i) {
			t.Fatalf("got seqs %v, want %d..%d", seqs(got), from, to)
		}
	}
}

func TestHubReplaysExactlyTheMissedEvents(t *testing.T) {
	h := NewHub(8)
	if h.Last() != 0 {
		t.Fatal("fresh hub has events")
	}
	live, reset := h.Subscribe(0, false)
	if reset {
		t.Fatal("no cursor, yet reset")
	}
	publish(h, 5)
	u := UsageRecord{Model: "m"}
	h.PublishUsage(&u)
	<-live.Ready()
	evs, err := live.Read(nil)
	if err != nil {
		t.Fatal(err)
	}
	wantSeqs(t, evs, 1, 6)
	if evs[5].Kind != EventUsage || evs[5].Usage.Model != "m" || evs[0].Kind != EventAudit {
		t.Fatalf("kinds %+v", evs)
	}
	// A client that saw up to 3 reconnects: it gets 4..6, no more, no less.
	re, reset := h.Subscribe(3, true)
	if reset {
		t.Fatal("cursor inside the buffer reset")
	}
	<-re.Ready()
	evs, _ = re.Read(nil)
	wantSeqs(t, evs, 4, 6)
	// Up to date: nothing to replay, then live events.
	cur, reset := h.Subscribe(6, true)
	if reset {
		t.Fatal("current cursor reset")
	}
	if evs, _ := cur.Read(nil); len(evs) != 0 {
		t.Fatalf("replayed %v", seqs(evs))
	}
	publish(h, 1)
	<-cur.Ready()
	evs, _ = cur.Read(nil)
	wantSeqs(t, evs, 7, 7)
	// Cursor 0 on a hub that still holds event 1 replays everything.
	all, reset := h.Subscribe(0, true)
	if reset {
		t.Fatal("cursor 0 with event 1 buffered reset")
	}
	evs, _ = all.Read(nil)
	wantSeqs(t, evs, 1, 7)
}

func TestHubResetsStaleAndFutureCursors(t *testing.T) {
	h := NewHub(4)
	publish(h, 10) // events 7..10 are buffered
	for _, c := range []struct {
		cursor uint64
		reset  bool
	}{{0, true}, {5, true}, {6, false}, {9, false}, {10, false}, {11, true}, {500, true}} {
		s, reset := h.Subscribe(c.cursor, true)
		if reset != c.reset {
			t.Fatalf("cursor %d: reset %v, want %v", c.cursor, reset, c.reset)
		}
		evs, err := s.Read(nil)
		if err != nil {
			t.Fatal(err)
		}
		if reset && len(evs) != 0 {
			t.Fatalf("cursor %d: reset yet replayed %v", c.cursor, seqs(evs))
		}
		if !reset {
			wantSeqs(t, evs, c.cursor+1, 10)
		}
		s.Close()
	}
}

func TestSlowSubscriberIsDroppedNotWaitedFor(t *testing.T) {
	h := NewHub(4)
	slow, _ := h.Subscribe(0, false)
	done := make(chan struct{})
	go func() {
		publish(h, 1000) // never blocks although nobody reads
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a slow subscriber blocked the publisher")
	}
	if _, err := slow.Read(nil); !errors.Is(err, ErrSlowSubscriber) {
		t.Fatalf("Read after falling behind: %v", err)
	}
	if _, err := slow.Read(nil); !errors.Is(err, ErrSlowSubscriber) {
		t.Fatal("dropped subscription came back")
	}
	h.mu.Lock()
	n := len(h.subs)
	h.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d subscriptions left", n)
	}
}

func TestHubConcurrentPublishersKeepSequencesContiguous(t *testing.T) {
	h := NewHub(1 << 14)
	sub, _ := h.Subscribe(0, false)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); publish(h, 2000) }()
	}
	var got []LiveEvent
	stop := make(chan struct{})
	go func() { wg.Wait(); close(stop) }()
	for len(got) < 8000 {
		select {
		case <-sub.Ready():
		case <-stop:
		}
		var err error
		if got, err = sub.Read(got); err != nil {
			t.Fatal(err)
		}
	}
	wantSeqs(t, got, 1, 8000)
}

func TestPreviewOfCarriesNoBodies(t *testing.T) {
	e := &Entry{ID: NewID(time.Now()), Path: "/v1/messages", StatusCode: 200, UserPath: "/a",
		Usage: UsageOf(tokensFor(7)), Data: &Data{RequestBody: []byte(`{"secret":"body"}`)}}
	ev := LiveEvent{Kind: EventAudit, Audit: PreviewOf(e, PhaseComplete)}
	b, err := ev.Data()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"phase":"complete"`, `"status_code":200`, `"user_path":"/a"`, `"input_tokens":7`, `"id":"` + e.ID.String()} {
		if !contains(b, want) {
			t.Fatalf("preview %s lacks %s", b, want)
		}
	}
	if contains(b, "secret") {
		t.Fatalf("preview carries a body: %s", b)
	}
}

func BenchmarkHubPublish(b *testing.B) {
	h := NewHub(0)
	for range 2 { // two live viewers
		s, _ := h.Subscribe(0, false)
		defer s.Close()
	}
	e := &Entry{ID: NewID(time.Now()), Method: "POST", Path: "/v1/chat/completions", UserPath: "/team", ProviderName: "openai"}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p := PreviewOf(e, PhaseComplete)
			h.PublishAudit(&p)
		}
	})
}

func BenchmarkHubPublishForwarding(b *testing.B) {
	h := NewHub(0)
	o := NewLiveOutbox(0)
	h.Forward(o)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go o.Run(ctx, 256, func([]LiveEvent) error { return nil })
	s, _ := h.Subscribe(0, false)
	defer s.Close()
	e := &Entry{ID: NewID(time.Now()), Method: "POST", Path: "/v1/chat/completions", UserPath: "/team", ProviderName: "openai"}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p := PreviewOf(e, PhaseComplete)
			h.PublishAudit(&p)
		}
	})
}
