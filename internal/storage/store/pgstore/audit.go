package pgstore

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// Defaults of AuditOptions.
const (
	// DefaultAuditQueueSize is the default bound of the write queue, in
	// records (entries plus usage records).
	DefaultAuditQueueSize = 100_000
	// DefaultAuditQueueBytes is the default bound of the write queue, in
	// estimated bytes of the queued records.
	DefaultAuditQueueBytes = 512 << 20
	// DefaultAuditBatch is the default largest number of records written
	// in one transaction.
	DefaultAuditBatch = 1000
	// DefaultAuditBatchBytes is the default largest estimated size of the
	// records written in one transaction.
	DefaultAuditBatchBytes = 32 << 20
	// DefaultAuditFlushInterval is how long the writer waits, by default,
	// for a batch to fill before it writes what it has.
	DefaultAuditFlushInterval = 10 * time.Millisecond
	// DefaultAuditMaxBackoff is the default longest wait between two
	// attempts at a batch while PostgreSQL is unreachable.
	DefaultAuditMaxBackoff = 5 * time.Second
	// DefaultAuditWriteTimeout is the default longest wait for one
	// batch's transaction: a database that hangs (rather than refuses
	// connections) counts as unreachable after it.
	DefaultAuditWriteTimeout = 5 * time.Second
)

// AuditOptions configures an [Audit].
type AuditOptions struct {
	// QueueSize bounds the records (entries plus usage records) waiting
	// for the writer; past it, appends are refused. 0 means
	// DefaultAuditQueueSize.
	QueueSize int
	// QueueBytes bounds the estimated size of the waiting records (bodies
	// included); past it, appends are refused. 0 means
	// DefaultAuditQueueBytes.
	QueueBytes int64
	// Batch is the largest number of records written in one transaction.
	// 0 means DefaultAuditBatch.
	Batch int
	// BatchBytes bounds the estimated size of the records written in one
	// transaction (a record larger than it goes alone). 0 means
	// DefaultAuditBatchBytes.
	BatchBytes int64
	// FlushInterval is how long the writer lets a batch fill before it
	// writes it. 0 means DefaultAuditFlushInterval.
	FlushInterval time.Duration
	// MaxBackoff is the longest wait between two attempts at a batch that
	// failed for want of the database. 0 means DefaultAuditMaxBackoff.
	MaxBackoff time.Duration
	// WriteTimeout bounds one batch's transaction. 0 means
	// DefaultAuditWriteTimeout.
	WriteTimeout time.Duration
	// Spool, when set, keeps on local disk the records of a batch the
	// database could not take (it is unreachable, not refusing the
	// records): they count as stored once spooled, so a stop or a crash
	// while PostgreSQL is down loses none, and a background drainer
	// writes them, exactly once (rows already stored are skipped), when
	// it answers again, also after a restart. Without a Spool such
	// records stay queued in memory.
	Spool Spool
	// Logger receives the writer's warnings; nil logs nothing.
	Logger *zap.Logger
	// OnCommit, when set, is called by the writer after each transaction
	// that committed, with how long it took and how many records it held.
	// It must be quick: the writer waits for it.
	OnCommit func(d time.Duration, records int)
}

// Audit keeps audit entries, usage records and their aggregates in
// PostgreSQL; it implements audit.Storage.
//
// AppendEntry and AppendUsage only put the record in a bounded in-memory
// queue; a writer goroutine, started on the first append, drains it in
// batches, one transaction per batch: the records, and one upsert per
// distinct aggregate row the batch touches. While the database cannot be
// reached the batch is retried with backoff and the records stay queued;
// past the queue's bound, appends are refused (the caller counts them) and
// a warning is logged at most once a second. Reads see what the writer has
// committed. Several processes may write to one database at once.
type Audit struct {
	db  *DB
	opt AuditOptions
	log *zap.Logger

	mu sync.Mutex
	// queue holds the records not yet committed, in append order. The
	// writer works on a prefix of it and removes that prefix once
	// committed.
	queue recordQueue
	bytes int64
	// appended counts records accepted; resolved counts those committed
	// or given up on (refused by the database). Flush waits for resolved
	// to reach appended.
	appended, resolved uint64
	waiters            []flushWaiter
	closed             bool

	start   sync.Once
	kick    chan struct{}
	stop    context.CancelFunc
	stopped chan struct{}

	dropped  atomic.Uint64
	rejected atomic.Uint64
	lastWarn atomic.Int64
	// drops counts the records given up because the database refused
	// them, by kind and reason.
	drops store.DropCounter

	// spooled counts the records in opt.Spool; spoolKick wakes the
	// drainer, which closes drained when it ends.
	spooled      atomic.Int64
	spoolKick    chan struct{}
	stopDrain    context.CancelFunc
	drained      chan struct{}
	lastSpoolLog atomic.Int64
}

var _ audit.Storage = (*Audit)(nil)

// flushWaiter is a Flush call waiting for the records before it.
type flushWaiter struct {
	target uint64
	done   chan struct{}
}

// NewAudit returns the audit storage over db. Its writer starts on the
// first append; Close stops it.
func NewAudit(db *DB, opt AuditOptions) *Audit {
	if opt.QueueSize <= 0 {
		opt.QueueSize = DefaultAuditQueueSize
	}
	if opt.QueueBytes <= 0 {
		opt.QueueBytes = DefaultAuditQueueBytes
	}
	if opt.Batch <= 0 {
		opt.Batch = DefaultAuditBatch
	}
	if opt.BatchBytes <= 0 {
		opt.BatchBytes = DefaultAuditBatchBytes
	}
	if opt.FlushInterval <= 0 {
		opt.FlushInterval = DefaultAuditFlushInterval
	}
	if opt.MaxBackoff <= 0 {
		opt.MaxBackoff = DefaultAuditMaxBackoff
	}
	if opt.WriteTimeout <= 0 {
		opt.WriteTimeout = DefaultAuditWriteTimeout
	}
	log := opt.Logger
	if log == nil {
		log = zap.NewNop()
	}
	a := &Audit{db: db, opt: opt, log: log, kick: make(chan struct{}, 1), stopped: make(chan struct{})}
	if opt.Spool != nil {
		a.startDrainer()
	}
	return a
}

// AuditStats are the writer's counters.
type AuditStats struct {
	// Queued is how many records wait for the writer.
	Queued int
	// Dropped counts appends refused because the queue was full or the
	// storage closed.
	Dropped uint64
	// Rejected counts records refused for having no id, and records the
	// database refused (never for being unreachable), which are given up.
	Rejected uint64
	// Spooled is how many records wait in the local spool for the
	// database to answer again.
	Spooled int64
}

// Stats returns the writer's counters.
func (a *Audit) Stats() AuditStats {
	a.mu.Lock()
	n := a.queue.len()
	a.mu.Unlock()
	return AuditStats{Queued: n, Dropped: a.dropped.Load(), Rejected: a.rejected.Load(), Spooled: a.spooled.Load()}
}

// Drops returns how many records the writer gave up because the database
// (or the encoder) refused them, by kind ("entry", "usage") and reason (see
// recordReason). Appends refused by a full queue are not counted here:
// the caller counts them.
func (a *Audit) Drops() []store.Drop { return a.drops.Snapshot() }

// AppendEntry queues e. It reports false, without blocking, when the
// queue is full, the storage is closed or e has no id.
func (a *Audit) AppendEntry(e *audit.Entry) bool {
	if e.ID.IsZero() {
		a.rejected.Add(1)
		return false
	}
	size := int64(1024)
	if d := e.Data; d != nil {
		size += int64(len(d.RequestBody) + len(d.ResponseBody))
		for _, at := range d.Attempts {
			size += int64(len(at.ResponseBody))
		}
		for _, r := range d.RequestRevisions {
			size += int64(len(r.Body))
		}
	}
	return a.enqueue(queued{e: e, size: size})
}

// AppendUsage queues r. It reports false, without blocking, when the
// queue is full, the storage is closed or r has no id.
func (a *Audit) AppendUsage(r *audit.UsageRecord) bool {
	if r.ID.IsZero() {
		a.rejected.Add(1)
		return false
	}
	return a.enqueue(queued{u: r, size: 512})
}

// enqueue adds q to the queue unless it is full or closed.
func (a *Audit) enqueue(q queued) bool {
	a.mu.Lock()
	n := a.queue.len()
	if a.closed || n >= a.opt.QueueSize || (n > 0 && a.bytes+q.size > a.opt.QueueBytes) {
		closed := a.closed
		a.mu.Unlock()
		a.drop(closed)
		return false
	}
	a.queue.push(q)
	a.bytes += q.size
	a.appended++
	a.mu.Unlock()
	a.start.Do(a.startWriter)
	wake(a.kick)
	return true
}

// drop counts a refused append and logs a warning at most once a second.
func (a *Audit) drop(closed bool) {
	n := a.dropped.Add(1)
	now := time.Now().UnixNano()
	last := a.lastWarn.Load()
	if now-last < int64(time.Second) || !a.lastWarn.CompareAndSwap(last, now) {
		return
	}
	reason := "queue full"
	if closed {
		reason = "storage closed"
	}
	a.log.Warn("dropping audit records", zap.String("reason", reason),
		zap.Uint64("dropped_total", n), zap.Int("queue_size", a.opt.QueueSize))
}

// Pending reports whether records accepted are not yet committed (or
// given up on): while none are, Flush has nothing to wait for.
func (a *Audit) Pending() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.resolved < a.appended
}

// Flush waits until every record accepted before the call is committed
// (or refused by the database, or spooled), or ctx is done. While the
// database is unreachable and there is no Spool it waits for it to come
// back.
func (a *Audit) Flush(ctx context.Context) error {
	a.mu.Lock()
	if a.resolved >= a.appended {
		a.mu.Unlock()
		return nil
	}
	w := flushWaiter{target: a.appended, done: make(chan struct{})}
	a.waiters = append(a.waiters, w)
	a.mu.Unlock()
	wake(a.kick)
	select {
	case <-w.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close refuses further appends, flushes what is queued (see Flush) and
// stops the writer and the drainer (records left in the spool are
// written after the next start). Records still queued when ctx ends are
// lost; the error says how many.
func (a *Audit) Close(ctx context.Context) error {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	err := a.Flush(ctx)
	a.start.Do(func() { close(a.stopped) }) // never started: nothing to stop
	if a.stop != nil {
		a.stop()
	}
	<-a.stopped
	if a.stopDrain != nil {
		a.stopDrain()
		<-a.drained
	}
	if err != nil {
		a.mu.Lock()
		n := a.queue.len()
		a.mu.Unlock()
		if n > 0 {
			a.log.Error("audit records lost on close: the database did not take them in time", zap.Int("records", n))
		}
		return err
	}
	return nil
}
