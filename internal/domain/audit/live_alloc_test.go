//go:build !race

package audit

import (
	"testing"
	"time"
)

// TestPublishDoesNotAllocate guards the hot path: publishing a preview or
// a usage record to a hub with live subscribers allocates nothing.
func TestPublishDoesNotAllocate(t *testing.T) {
	h := NewHub(64)
	s, _ := h.Subscribe(0, false)
	defer s.Close()
	e := &Entry{ID: NewID(time.Now()), Path: "/v1/chat/completions", UserPath: "/team"}
	u := &UsageRecord{ID: NewID(time.Now()), Model: "m"}
	if n := testing.AllocsPerRun(1000, func() {
		p := PreviewOf(e, PhaseStart)
		h.PublishAudit(&p)
		h.PublishUsage(u)
	}); n != 0 {
		t.Fatalf("publishing allocates %.1f per call", n)
	}
}

// TestForwardingPublishDoesNotAllocate: forwarding to an outbox keeps the
// publish path allocation-free.
func TestForwardingPublishDoesNotAllocate(t *testing.T) {
	h := NewHub(64)
	o := NewLiveOutbox(1 << 16)
	h.Forward(o)
	e := &Entry{ID: NewID(time.Now()), Path: "/v1/chat/completions", UserPath: "/team"}
	u := &UsageRecord{ID: NewID(time.Now()), Model: "m"}
	if n := testing.AllocsPerRun(1000, func() {
		p := PreviewOf(e, PhaseStart)
		h.PublishAudit(&p)
		h.PublishUsage(u)
	}); n != 0 {
		t.Fatalf("publishing with forwarding allocates %.1f per call", n)
	}
}
