package audit

import "sync/atomic"

// Recorder is the write side of the audit log: it publishes request
// previews to live viewers at once and hands entries and usage records to
// storage without waiting. A record the storage cannot take (its queue is
// full) is counted, never waited for; the storage's writer logs drops at
// most once a second. It is safe for concurrent use.
type Recorder struct {
	entries EntryStorage // nil: audit logging off
	usage   UsageStorage // nil: usage tracking off
	hub     *Hub         // nil: no live stream

	droppedEntries atomic.Uint64
	droppedUsage   atomic.Uint64
}

// NewRecorder returns a Recorder writing entries to entries and usage
// records to usage and publishing to hub; any of them may be nil to turn
// that part off.
func NewRecorder(entries EntryStorage, usage UsageStorage, hub *Hub) *Recorder {
	return &Recorder{entries: entries, usage: usage, hub: hub}
}

// Start announces a request to live viewers. It gives e an id (from its
// Timestamp) if it has none, so that Finish records it under the same id.
func (r *Recorder) Start(e *Entry) {
	if e.ID.IsZero() {
		e.ID = NewID(e.Timestamp)
	}
	if r.hub != nil && r.entries != nil {
		p := PreviewOf(e, PhaseStart)
		r.hub.PublishAudit(&p)
	}
}

// Finish records a finished request: its entry, and its usage record when
// u is not nil. Live viewers see both at once; storage gets them through
// its queue. Missing ids are filled in: e's from its Timestamp, u's from
// its Timestamp, u.RequestID from e. Neither e nor u may be changed
// afterwards.
func (r *Recorder) Finish(e *Entry, u *UsageRecord) {
	if e.ID.IsZero() {
		e.ID = NewID(e.Timestamp)
	}
	if r.entries != nil {
		if r.hub != nil {
			p := PreviewOf(e, PhaseComplete)
			r.hub.PublishAudit(&p)
		}
		if !r.entries.AppendEntry(e) {
			r.droppedEntries.Add(1)
		}
	}
	if u == nil || r.usage == nil {
		return
	}
	if u.ID.IsZero() {
		u.ID = NewID(u.Timestamp)
	}
	if u.RequestID.IsZero() {
		u.RequestID = e.ID
	}
	if r.hub != nil {
		r.hub.PublishUsage(u)
	}
	if !r.usage.AppendUsage(u) {
		r.droppedUsage.Add(1)
	}
}

// Dropped returns how many entries and usage records storage refused
// since the Recorder was made: the audit drop counter.
func (r *Recorder) Dropped() (entries, usage uint64) {
	return r.droppedEntries.Load(), r.droppedUsage.Load()
}
