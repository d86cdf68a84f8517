package limits

import "context"

// RuleStore keeps the manual rules (those written through the admin API)
// so that they survive restarts. Rules seeded from configuration are never
// stored. Implementations must be safe for concurrent use; the Engine
// calls them with its admin lock held, never on the request path.
type RuleStore interface {
	// LoadRules returns every stored rule. A record that cannot be read
	// is left out and described in skipped (one error each, naming the
	// record), so one damaged record hides no other; err is for a store
	// that cannot be read at all.
	LoadRules() (rules []Rule, skipped []error, err error)
	// ReplaceRule stores put (when not nil) under put.Key() and removes
	// the rule keyed del (when not nil) in one atomic step, and returns
	// once that is durable. Removing a rule that is not stored is not an
	// error.
	ReplaceRule(put *Rule, del *Key) error
}

// Snapshot is the persisted state of one window counter: the request and
// token counts of its current and previous fixed window.
type Snapshot struct {
	// Gen is the generation of the data: a number from one engine-wide
	// increasing sequence. A snapshot whose generation is below the reset
	// marker of its rule (or below the reset-all floor) is void.
	Gen uint64
	// Window is the index of the current fixed window: Unix time divided
	// by the window length.
	Window int64
	// Requests and Tokens are counted in the current window.
	Requests, Tokens int64
	// PrevRequests and PrevTokens were counted in the window before it.
	PrevRequests, PrevTokens int64
}

// CounterID names one window counter: a rule's own counter (Child empty)
// or the partition of one direct child of a per_child template.
type CounterID struct {
	// Rule is the normalized key of the rule; its period is a window
	// (minute, hour, day or custom), never concurrent.
	Rule Key
	// Child is the child segment ("alice" under template "/customers"),
	// empty for the rule's own counter.
	Child string
}

// CounterRecord is one stored snapshot and the counter it belongs to.
type CounterRecord struct {
	CounterID
	Snapshot
}

// StoredCounters is what a CounterStore holds at load.
type StoredCounters struct {
	// Records are the readable snapshots, void or not: the Engine decides
	// which still count and deletes the others.
	Records []CounterRecord
	// Markers holds each rule's reset generation: the rule's snapshots of
	// older generations are void.
	Markers map[Key]uint64
	// Floor is the reset-all generation: every snapshot older than it is
	// void.
	Floor uint64
}

// CounterStore keeps snapshots of the window counters so that they survive
// restarts and config reloads. Concurrency gauges are never stored.
//
// Resets must never be undone by a snapshot taken before them but written
// after them; the Engine guarantees that with generations, and needs from
// the store only what the methods below promise: markers are durable when
// MarkReset or MarkResetAll returns, and queued snapshots may land later,
// in any order. Implementations must be safe for concurrent use.
type CounterStore interface {
	// LoadCounters returns every stored snapshot, marker and the floor.
	// Records that cannot be read at all are dropped by the store.
	LoadCounters() (StoredCounters, error)
	// QueueSnapshot hands rec to the store without blocking and reports
	// whether it was accepted; it is written later (Flush waits for it).
	QueueSnapshot(rec CounterRecord) bool
	// QueueDelete removes the snapshot of id without blocking, like
	// QueueSnapshot.
	QueueDelete(id CounterID) bool
	// DeleteCounters removes the snapshots of ids and returns once that is
	// durable.
	DeleteCounters(ids []CounterID) error
	// MarkReset records, for each rule, that its snapshots older than gen
	// are void, deletes its stored snapshots, and returns once that is
	// durable. A marker never goes down: a lower gen leaves it as it is.
	MarkReset(rules []Key, gen uint64) error
	// MarkResetAll raises the floor to gen (never lowers it), deletes
	// every stored snapshot, and returns once that is durable.
	MarkResetAll(gen uint64) error
	// Flush returns once every snapshot queued before it is durable, or
	// when ctx ends.
	Flush(ctx context.Context) error
}
