package audit

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// Live event kinds, the SSE event names of the live stream.
const (
	// EventAudit carries an AuditPreview: a request started or completed.
	EventAudit = "audit"
	// EventUsage carries a usage record.
	EventUsage = "usage"
	// EventHeartbeat is sent periodically on an idle stream.
	EventHeartbeat = "heartbeat"
	// EventReset tells a client that the events it missed are no longer
	// buffered (or its cursor is from before a restart): it must reload
	// from the REST endpoints.
	EventReset = "reset"
)

// Audit preview phases.
const (
	// PhaseStart: the gateway received the request.
	PhaseStart = "start"
	// PhaseComplete: the answer has been written (or the request ended).
	PhaseComplete = "complete"
)

// DefaultLiveBuffer is the number of events a Hub keeps for replay when
// NewHub is given no size.
const DefaultLiveBuffer = 4096

// ErrSlowSubscriber ends a subscription that fell so far behind that the
// events it had not read were overwritten, or that was closed.
var ErrSlowSubscriber = errors.New("audit: live subscriber fell behind the buffer and was dropped")

// AuditPreview is the compact form of an audit entry sent to live
// viewers: no headers, no bodies.
type AuditPreview struct {
	// Phase is PhaseStart or PhaseComplete.
	Phase string `json:"phase"`
	// ID is the entry's id.
	ID ID `json:"id"`
	// RequestID is the request's id.
	RequestID string `json:"request_id"`
	// Timestamp is when the request was received.
	Timestamp time.Time `json:"timestamp"`
	// Method is the request's HTTP method.
	Method string `json:"method"`
	// Path is the request's path.
	Path string `json:"path"`
	// StatusCode is the status sent; 0 at start.
	StatusCode int `json:"status_code"`
	// DurationNs is the request's duration; 0 at start.
	DurationNs int64 `json:"duration_ns"`
	// Stream reports a streamed answer.
	Stream bool `json:"stream"`
	// UserPath is the caller's user path.
	UserPath string `json:"user_path"`
	// SessionID is the detected session.
	SessionID string `json:"session_id"`
	// Provider is the type of the provider that served the request.
	Provider string `json:"provider"`
	// ProviderName is the provider instance that served it.
	ProviderName string `json:"provider_name"`
	// RequestedModel is the model the client asked for.
	RequestedModel string `json:"requested_model"`
	// ResolvedModel is the model the provider was asked for.
	ResolvedModel string `json:"resolved_model"`
	// CacheType is "exact" for a response-cache hit.
	CacheType string `json:"cache_type"`
	// ErrorType is the gateway error type of a failed request.
	ErrorType string `json:"error_type"`
	// AuthMethod is how the caller authenticated.
	AuthMethod string `json:"auth_method"`
	// Usage is the token usage; zero at start.
	Usage catalog.Usage `json:"usage"`
}

// PreviewOf returns the preview of e for a phase.
func PreviewOf(e *Entry, phase string) AuditPreview {
	return AuditPreview{
		Phase: phase, ID: e.ID, RequestID: e.RequestID, Timestamp: e.Timestamp,
		Method: e.Method, Path: e.Path, StatusCode: e.StatusCode, DurationNs: e.DurationNs,
		Stream: e.Stream, UserPath: e.UserPath, SessionID: e.SessionID,
		Provider: e.Provider, ProviderName: e.ProviderName,
		RequestedModel: e.RequestedModel, ResolvedModel: e.ResolvedModel,
		CacheType: e.CacheType, ErrorType: e.ErrorType, AuthMethod: e.AuthMethod,
		Usage: e.Usage.Usage,
	}
}

// LiveEvent is one event of the live stream.
type LiveEvent struct {
	// Seq is the event's sequence number: 1 for the first event a Hub
	// publishes, then contiguous.
	Seq uint64
	// Kind is EventAudit or EventUsage.
	Kind string
	// Audit is the preview of an EventAudit.
	Audit AuditPreview
	// Usage is the record of an EventUsage.
	Usage UsageRecord
}

// Hub fans live events out to subscribers and keeps the latest ones in a
// ring buffer for replay. Publishing never blocks and costs a lock, a copy
// into the ring, a non-blocking wake-up per subscriber and, when the hub
// forwards (see Forward), a non-blocking send to the outbox; a subscriber
// that falls a whole buffer behind is dropped. It is safe for concurrent
// use.
type Hub struct {
	mu   sync.Mutex
	ring []LiveEvent
	next uint64 // sequence number of the next event
	subs []*Subscription
	out  atomic.Pointer[LiveOutbox] // see Forward
}

// NewHub returns a hub that buffers the latest size events
// (DefaultLiveBuffer when size < 1).
func NewHub(size int) *Hub {
	if size < 1 {
		size = DefaultLiveBuffer
	}
	return &Hub{ring: make([]LiveEvent, size), next: 1}
}

// PublishAudit publishes a request preview.
func (h *Hub) PublishAudit(p *AuditPreview) {
	h.mu.Lock()
	ev := h.slot(EventAudit)
	ev.Audit = *p
	ev.Usage = UsageRecord{}
	h.wake()
	h.mu.Unlock()
	if o := h.out.Load(); o != nil {
		o.offer(&LiveEvent{Kind: EventAudit, Audit: *p})
	}
}

// PublishUsage publishes a usage record.
func (h *Hub) PublishUsage(r *UsageRecord) {
	h.mu.Lock()
	ev := h.slot(EventUsage)
	ev.Usage = *r
	ev.Audit = AuditPreview{}
	h.wake()
	h.mu.Unlock()
	if o := h.out.Load(); o != nil {
		o.offer(&LiveEvent{Kind: EventUsage, Usage: *r})
	}
}

// slot claims the next sequence number and returns its ring slot. h.mu is
// held.
func (h *Hub) slot(kind string) *LiveEvent {
	seq := h.next
	h.next++
	ev := &h.ring[seq%uint64(len(h.ring))]
	ev.Seq, ev.Kind = seq, kind
	return ev
}

// wake notifies every subscriber without blocking. h.mu is held.
func (h *Hub) wake() {
	for _, s := range h.subs {
		select {
		case s.ready <- struct{}{}:
		default:
		}
	}
}

// Last returns the sequence number of the latest event, 0 before any.
func (h *Hub) Last() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.next - 1
}

// oldest returns the sequence number of the oldest buffered event. h.mu is
// held.
func (h *Hub) oldest() uint64 {
	if n := uint64(len(h.ring)); h.next > n {
		return h.next - n
	}
	return 1
}

// Subscribe starts a subscription. With a cursor (the sequence number of
// the last event the client received) the subscription first replays
// every later buffered event; when the events after the cursor are no
// longer all buffered, or the cursor is ahead of the latest event (it
// predates a restart), reset is true and the subscription starts with the
// next new event. Without a cursor it starts with the next new event.
func (h *Hub) Subscribe(cursor uint64, hasCursor bool) (s *Subscription, reset bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s = &Subscription{h: h, ready: make(chan struct{}, 1), next: h.next}
	if hasCursor {
		if cursor+1 < h.oldest() || cursor >= h.next {
			reset = true
		} else {
			s.next = cursor + 1
			if s.next < h.next {
				s.ready <- struct{}{}
			}
		}
	}
	h.subs = append(h.subs, s)
	return s, reset
}

// Subscription receives a hub's events in order, none missed.
type Subscription struct {
	h      *Hub
	ready  chan struct{}
	next   uint64 // sequence number of the next event to deliver
	closed bool   // guarded by h.mu
}

// Ready returns a channel that receives when events may be waiting.
func (s *Subscription) Ready() <-chan struct{} { return s.ready }

// Delivered returns the sequence number of the last event returned by
// Read (or the cursor the subscription started from).
func (s *Subscription) Delivered() uint64 {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return s.next - 1
}

// Read appends the events published since the last Read to buf and
// returns it. When some of them were already overwritten (the subscriber
// is too slow) or the subscription was closed it returns
// ErrSlowSubscriber, and the subscription is closed.
func (s *Subscription) Read(buf []LiveEvent) ([]LiveEvent, error) {
	h := s.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if s.closed {
		return buf, ErrSlowSubscriber
	}
	if s.next < h.oldest() {
		s.closeLocked()
		return buf, ErrSlowSubscriber
	}
	for ; s.next < h.next; s.next++ {
		buf = append(buf, h.ring[s.next%uint64(len(h.ring))])
	}
	return buf, nil
}

// Close ends the subscription.
func (s *Subscription) Close() {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	s.closeLocked()
}

// closeLocked removes s from its hub. h.mu is held.
func (s *Subscription) closeLocked() {
	if s.closed {
		return
	}
	s.closed = true
	subs := s.h.subs
	for i, o := range subs {
		if o == s {
			subs[i] = subs[len(subs)-1]
			subs[len(subs)-1] = nil
			s.h.subs = subs[:len(subs)-1]
			break
		}
	}
}
