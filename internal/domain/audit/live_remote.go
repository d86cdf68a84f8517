package audit

import (
	"context"
	"sync/atomic"
)

// DefaultOutboxSize is the number of events a LiveOutbox holds when
// NewLiveOutbox is given no size.
const DefaultOutboxSize = 4096

// LiveOutbox carries the events this process publishes to its Hub to a
// transport that shows them to other processes. Offering an event never
// blocks: when the outbox is full the event is counted and dropped for the
// other processes' live view only (the audit record itself is written as
// usual). One goroutine drains it with Run. It is safe for concurrent use.
type LiveOutbox struct {
	ch      chan LiveEvent
	dropped atomic.Uint64
}

// NewLiveOutbox returns an outbox holding at most size events
// (DefaultOutboxSize when size < 1).
func NewLiveOutbox(size int) *LiveOutbox {
	if size < 1 {
		size = DefaultOutboxSize
	}
	return &LiveOutbox{ch: make(chan LiveEvent, size)}
}

// offer queues ev without blocking, or counts it as dropped.
func (o *LiveOutbox) offer(ev *LiveEvent) {
	select {
	case o.ch <- *ev:
	default:
		o.dropped.Add(1)
	}
}

// Dropped returns how many events were dropped because the outbox was
// full.
func (o *LiveOutbox) Dropped() uint64 { return o.dropped.Load() }

// Run hands queued events to send, in order, in batches of at most
// maxBatch (1 when maxBatch < 1): it waits for an event, then takes every
// event already queued up to the bound. It returns when ctx ends; events
// still queued then are not sent. An error from send drops that batch,
// counted in Dropped, and Run goes on.
func (o *LiveOutbox) Run(ctx context.Context, maxBatch int, send func([]LiveEvent) error) {
	if maxBatch < 1 {
		maxBatch = 1
	}
	batch := make([]LiveEvent, 0, maxBatch)
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-o.ch:
			batch = append(batch[:0], ev)
		}
	fill:
		for len(batch) < maxBatch {
			select {
			case ev := <-o.ch:
				batch = append(batch, ev)
			default:
				break fill
			}
		}
		if err := send(batch); err != nil {
			o.dropped.Add(uint64(len(batch)))
		}
		clear(batch) // drop references to strings of sent events
	}
}

// Forward makes the hub offer every event published through PublishAudit
// and PublishUsage to o from now on; nil stops forwarding. Events inserted
// with PublishRemote are never forwarded, so they do not echo back.
func (h *Hub) Forward(o *LiveOutbox) { h.out.Store(o) }

// PublishRemote inserts an event published by another process under this
// hub's next sequence number, so that viewers of this process see it in
// the order it arrived. Only audit and usage events are inserted; any
// other kind is ignored and reported false. The event's own Seq is
// ignored.
func (h *Hub) PublishRemote(ev *LiveEvent) bool {
	switch ev.Kind {
	case EventAudit, EventUsage:
	default:
		return false
	}
	h.mu.Lock()
	slot := h.slot(ev.Kind)
	if ev.Kind == EventAudit {
		slot.Audit, slot.Usage = ev.Audit, UsageRecord{}
	} else {
		slot.Audit, slot.Usage = AuditPreview{}, ev.Usage
	}
	h.wake()
	h.mu.Unlock()
	return true
}
