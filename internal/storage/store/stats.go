package store

import "sync/atomic"

// Stats is a snapshot of the writer's counters since Open. All counts are
// numbers of writes except Batches.
type Stats struct {
	// Enqueued counts writes accepted by Enqueue.
	Enqueued uint64
	// Committed counts accepted writes that are durably committed.
	Committed uint64
	// Dropped counts writes rejected by Enqueue because the queue was full
	// or the store was closed.
	Dropped uint64
	// Batches counts transactions committed by the writer.
	Batches uint64
	// Failed counts accepted writes that will never be committed: either
	// bbolt (or the write's Apply func) rejected the write itself (empty
	// key, key or value too large, bucket name clashing with a plain key),
	// or a batch hook refused what it built from the write (see
	// RecordReason), or its batch's commit failed in a way retrying cannot
	// fix (the database is closed or read-only), or kept failing after
	// Close began. Failed writes are logged; those refused for themselves
	// are also counted in Drops.
	Failed uint64
	// Retries counts batch commits that failed and were tried again. A
	// failed commit keeps its batch: the writes are neither lost nor
	// counted as failed while the retries last.
	Retries uint64
}

// counters holds the live counters. Producer-side and writer-side counters
// sit on separate cache lines so the writer does not slow down Enqueue.
type counters struct {
	enqueued atomic.Uint64
	dropped  atomic.Uint64
	_        [48]byte
	// Written only by the writer goroutine.
	committed atomic.Uint64
	batches   atomic.Uint64
	failed    atomic.Uint64
	retries   atomic.Uint64
}

// Stats returns a snapshot of the store's counters. It is safe to call at
// any time, including after Close. Enqueued is incremented before a write
// becomes visible to the writer, so Committed+Failed never exceeds it;
// Enqueued-Committed-Failed is the number of writes still queued.
func (s *Store) Stats() Stats {
	// Load the writer side first so the snapshot never shows more writes
	// finished than accepted.
	c := Stats{
		Committed: s.ctr.committed.Load(),
		Failed:    s.ctr.failed.Load(),
		Batches:   s.ctr.batches.Load(),
		Retries:   s.ctr.retries.Load(),
	}
	c.Enqueued = s.ctr.enqueued.Load()
	c.Dropped = s.ctr.dropped.Load()
	return c
}
