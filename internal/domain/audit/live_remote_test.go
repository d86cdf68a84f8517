package audit

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

func TestPublishRemoteTakesTheNextLocalSequence(t *testing.T) {
	h := NewHub(16)
	s, _ := h.Subscribe(0, false)
	defer s.Close()
	publish(h, 2) // seqs 1, 2
	remote := LiveEvent{Seq: 900, Kind: EventAudit, Audit: AuditPreview{Phase: PhaseComplete, Path: "/remote", StatusCode: 200}}
	if !h.PublishRemote(&remote) {
		t.Fatal("an audit event was refused")
	}
	u := LiveEvent{Seq: 901, Kind: EventUsage, Usage: UsageRecord{Model: "m-remote"}}
	if !h.PublishRemote(&u) {
		t.Fatal("a usage event was refused")
	}
	publish(h, 1) // seq 5
	evs, err := s.Read(nil)
	if err != nil {
		t.Fatal(err)
	}
	wantSeqs(t, evs, 1, 5)
	if evs[2].Kind != EventAudit || evs[2].Audit.Path != "/remote" || evs[2].Audit.StatusCode != 200 {
		t.Fatalf("remote audit event is %+v", evs[2])
	}
	if evs[3].Kind != EventUsage || evs[3].Usage.Model != "m-remote" || evs[3].Audit.Path != "" {
		t.Fatalf("remote usage event is %+v", evs[3])
	}
	// A reconnecting viewer replays remote events like local ones.
	r, reset := h.Subscribe(2, true)
	defer r.Close()
	if reset {
		t.Fatal("cursor within the buffer reset")
	}
	evs, _ = r.Read(nil)
	wantSeqs(t, evs, 3, 5)
}

func TestPublishRemoteRefusesOtherKinds(t *testing.T) {
	h := NewHub(4)
	for _, k := range []string{EventHeartbeat, EventReset, "", "bogus"} {
		if h.PublishRemote(&LiveEvent{Kind: k}) {
			t.Errorf("kind %q was inserted", k)
		}
	}
	if h.Last() != 0 {
		t.Fatalf("hub has %d events", h.Last())
	}
}

func TestForwardOffersLocalEventsOnly(t *testing.T) {
	h := NewHub(16)
	o := NewLiveOutbox(8)
	h.Forward(o)
	publish(h, 1)
	h.PublishUsage(&UsageRecord{Model: "m"})
	h.PublishRemote(&LiveEvent{Kind: EventAudit, Audit: AuditPreview{Path: "/echo"}})
	if got := len(o.ch); got != 2 {
		t.Fatalf("outbox holds %d events, want the 2 local ones", got)
	}
	a, u := <-o.ch, <-o.ch
	if a.Kind != EventAudit || a.Audit.Path != "/v1/chat/completions" || u.Kind != EventUsage || u.Usage.Model != "m" {
		t.Fatalf("forwarded %+v and %+v", a, u)
	}
	h.Forward(nil)
	publish(h, 1)
	if len(o.ch) != 0 {
		t.Fatal("forwarding went on after Forward(nil)")
	}
}

func TestFullOutboxDropsAndCountsWithoutBlocking(t *testing.T) {
	h := NewHub(64)
	o := NewLiveOutbox(3)
	h.Forward(o)
	done := make(chan struct{})
	go func() {
		publish(h, 10)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("publishing blocked on a full outbox")
	}
	if o.Dropped() != 7 {
		t.Fatalf("dropped %d, want 7", o.Dropped())
	}
	// The local hub got every event regardless.
	if h.Last() != 10 {
		t.Fatalf("hub has %d events, want 10", h.Last())
	}
}

func TestOutboxRunBatchesInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := NewLiveOutbox(100)
		for i := range 10 {
			o.offer(&LiveEvent{Kind: EventAudit, Audit: AuditPreview{StatusCode: 200 + i}})
		}
		ctx, cancel := context.WithCancel(context.Background())
		var mu sync.Mutex
		var got []int
		var batches []int
		fail := true
		ended := make(chan struct{})
		go func() {
			defer close(ended)
			o.Run(ctx, 4, func(evs []LiveEvent) error {
				mu.Lock()
				defer mu.Unlock()
				if fail { // the first batch fails: counted as dropped
					fail = false
					return errors.New("transport down")
				}
				batches = append(batches, len(evs))
				for _, e := range evs {
					got = append(got, e.Audit.StatusCode)
				}
				return nil
			})
		}()
		synctest.Wait() // Run has sent what was queued and waits for more
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n != 6 {
			t.Fatalf("sent %d events, want 6", n)
		}
		cancel()
		<-ended
		if want := []int{204, 205, 206, 207, 208, 209}; !reflect.DeepEqual(got, want) {
			t.Fatalf("sent %v, want %v", got, want)
		}
		if !reflect.DeepEqual(batches, []int{4, 2}) {
			t.Fatalf("batches %v, want [4 2]", batches)
		}
		if o.Dropped() != 4 {
			t.Fatalf("dropped %d, want the 4 of the failed batch", o.Dropped())
		}
	})
}

func TestLiveBatchRoundTrip(t *testing.T) {
	cost := 0.25
	now := time.Now().UTC().Truncate(time.Millisecond)
	in := []LiveEvent{
		{Seq: 7, Kind: EventAudit, Audit: AuditPreview{Phase: PhaseStart, ID: NewID(now), RequestID: "r1",
			Timestamp: now, Method: "POST", Path: "/v1/chat/completions", UserPath: "/team/a", Stream: true}},
		{Seq: 8, Kind: EventHeartbeat},
		{Seq: 9, Kind: EventUsage, Usage: UsageRecord{ID: NewID(now), Timestamp: now, Model: "gpt",
			Usage: catalog.Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7}, TotalCost: &cost}},
	}
	b, err := EncodeLiveBatch(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := DecodeLiveBatch(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 {
		t.Fatalf("decoded %d events, want 2 (the heartbeat is not carried)", len(out))
	}
	if out[0].Seq != 0 || out[0].Kind != EventAudit || !reflect.DeepEqual(out[0].Audit, in[0].Audit) {
		t.Fatalf("audit event %+v, want %+v", out[0], in[0])
	}
	if out[1].Kind != EventUsage || out[1].Usage.Model != "gpt" || out[1].Usage.TotalTokens != 7 ||
		out[1].Usage.TotalCost == nil || *out[1].Usage.TotalCost != cost || out[1].Usage.ID != in[2].Usage.ID {
		t.Fatalf("usage event %+v", out[1].Usage)
	}
}

func TestDecodeLiveBatchRejectsBadInput(t *testing.T) {
	for _, b := range []string{``, `{`, `{"k":"audit"}`, `[{"k":"audit","a":{"id":"not-an-id"}}]`,
		"[" + strings.Repeat(`{"k":"x"},`, MaxLiveBatch) + `{"k":"x"}]`} {
		if _, err := DecodeLiveBatch([]byte(b)); err == nil {
			t.Errorf("%.40q decoded", b)
		}
	}
	evs, err := DecodeLiveBatch([]byte(`[{"k":"future","z":1},{"k":"audit"},{"k":"usage","u":{"model":"m"}}]`))
	if err != nil || len(evs) != 1 || evs[0].Usage.Model != "m" {
		t.Fatalf("got %+v, %v; want the one usage event", evs, err)
	}
}

// BenchmarkLiveBatchFanout measures one process's cost per event sent to
// the others (encoding) and received from them (decoding and inserting),
// in batches of 256.
func BenchmarkLiveBatchFanout(b *testing.B) {
	e := &Entry{ID: NewID(time.Now()), Method: "POST", Path: "/v1/chat/completions", UserPath: "/team",
		ProviderName: "openai", RequestedModel: "gpt-4o", StatusCode: 200}
	evs := make([]LiveEvent, 256)
	for i := range evs {
		evs[i] = LiveEvent{Kind: EventAudit, Audit: PreviewOf(e, PhaseComplete)}
	}
	h := NewHub(0)
	b.ReportAllocs()
	for b.Loop() {
		msg, err := EncodeLiveBatch(evs)
		if err != nil {
			b.Fatal(err)
		}
		got, err := DecodeLiveBatch(msg)
		if err != nil {
			b.Fatal(err)
		}
		for i := range got {
			h.PublishRemote(&got[i])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
}
