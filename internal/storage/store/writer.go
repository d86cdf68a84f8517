package store

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
	"go.uber.org/zap"
)

// writer is the state owned by the single writer goroutine.
type writer struct {
	s     *Store
	batch []Write
	// batchBytes sums Write.Size over batch.
	batchBytes int64
	buckets    map[string]*bbolt.Bucket // per-transaction cache
	interval   time.Duration
	maxBatch   int
	reported   uint64 // Stats.Dropped at the last drop warning
	// lastRetryLog is when a failed commit was last logged.
	lastRetryLog time.Time
	// lastRelease is when releaseMapped last ran.
	lastRelease time.Time
	// settled counts the writes of the pending batch committed or
	// dropped so far (see settle); dropped counts those dropped, the
	// first for firstDrop.
	settled, dropped int
	firstDrop        error
	// rejects are the writes the last transaction refused individually.
	rejects []rejected
}

// newWriter prepares the writer for s; run starts it.
func newWriter(s *Store) *writer {
	return &writer{
		s:        s,
		batch:    make([]Write, 0, min(s.opts.MaxBatch, DefaultMaxBatch)),
		buckets:  make(map[string]*bbolt.Bucket),
		interval: s.opts.FlushInterval,
		maxBatch: s.opts.MaxBatch,
	}
}

// run is the writer goroutine. It sleeps until the FlushInterval ticker
// fires or it is kicked (enough writes or bytes waiting, a Flush marker,
// Close), then drains the queue, committing every MaxBatch writes or
// MaxBatchBytes, at each Flush marker and once the queue is empty. The
// one batch that may wait is one that shrank as its writes were taken
// (see holdsLittle), and only until the next tick, so no write stays
// uncommitted longer than FlushInterval while the writer keeps up. It
// returns after committing everything once the queue is closed.
//
// Sleeping instead of waiting on each write keeps Enqueue cheap: it only
// appends under a lock and wakes the writer once enough is waiting.
func (w *writer) run() {
	defer close(w.s.done)
	tick := time.NewTicker(w.interval)
	defer tick.Stop()
	for {
		due := false
		select {
		case <-tick.C:
			due = true
		case <-w.s.kick:
		}
		open := w.drain()
		if due || !open || !w.holdsLittle() {
			w.commit()
		}
		if !open {
			return
		}
		w.reportDrops()
		w.releaseMapped()
	}
}

// holdsLittle reports whether the pending batch may wait for the next
// tick: woken early because the queue held MaxBatchBytes, the writer
// found that the batch holds less once its writes were taken (see
// Write.Take), so committing now would only cut a small batch. A batch
// as long as the queue length that wakes the writer is committed, so a
// small queue keeps draining. A batch never waits past the next tick.
func (w *writer) holdsLittle() bool {
	return len(w.batch) < w.s.kickAt && w.batchBytes < w.s.opts.MaxBatchBytes/2
}

// reportDrops logs a warning (at most once per second) if Enqueue dropped
// writes since the last warning. It runs after every wake-up and every
// committed batch, so a writer that never gets to sleep still reports.
func (w *writer) reportDrops() {
	n := w.s.ctr.dropped.Load()
	if n != w.reported && w.s.warnDropped("queue full", n) {
		w.reported = n
	}
}

// drain moves queued writes into batches until the queue is empty,
// committing each full batch and answering Flush markers. It takes the
// whole queue at once, so the lock is held for a swap, not for the work,
// and hands each block back for reuse as soon as it is done with it. It
// returns false once the store is closing and the queue is empty.
func (w *writer) drain() bool {
	s := w.s
	for {
		s.qmu.Lock()
		head, closing := s.q.take(), s.closing.Load()
		s.qmu.Unlock()
		if head == nil {
			return !closing
		}
		for b := head; b != nil; {
			for i := range b.ops[:b.n] {
				// Taking a write may pack and compress its values
				// (Write.Take): yield as the batch's loops do.
				Yield(i)
				w.take(&b.ops[i])
			}
			next := b.next
			s.qmu.Lock()
			s.q.recycle(b)
			s.qmu.Unlock()
			b = next
		}
	}
}

// take moves one queued op into the batch, committing a full batch, or
// answers a Flush marker with the commit of what came before it.
func (w *writer) take(o *op) {
	if o.flush != nil {
		o.flush <- w.commit()
		return
	}
	w.s.queued.Add(-1)
	size := int64(o.w.Size)
	if o.w.Take != nil {
		held := int64(o.w.Take())
		w.s.queuedBytes.Add(held - size)
		size = held
	}
	w.batch = append(w.batch, o.w)
	w.batchBytes += size
	if len(w.batch) >= w.maxBatch || w.batchBytes >= w.s.opts.MaxBatchBytes {
		w.commit()
	}
}

// Commit retry policy: a batch whose transaction fails is kept and retried,
// first after the flush interval, then after twice as long each time, up to
// maxRetryWait. Once Close has started a batch gets closeRetries more tries
// before it is given up, so Close cannot hang on a broken disk.
const (
	maxRetryWait = 5 * time.Second
	closeRetries = 3
)

// commit writes the pending batch and resets it, in one transaction
// when nothing goes wrong. A write bbolt (or its Apply func) rejects
// individually is skipped, dropped and counted (Drops). When the
// transaction itself fails because of a record (RecordReason: a key too
// large for bbolt that a batch hook built from one record, say), the
// batch is split (see settle) until that record is found: it alone is
// dropped and counted, the others commit. Any other failure keeps what is
// not yet committed and retries it (see maxRetryWait) while new writes
// wait in the queue; only a failure that can never succeed (the database
// is closed or read-only) or one that outlasts the retries allowed after
// Close drops the rest, counted as failed. It returns an error when any
// write of the batch was not committed.
func (w *writer) commit() error {
	n := len(w.batch)
	if n == 0 {
		return nil
	}
	w.settled, w.dropped, w.firstDrop = 0, 0, nil
	wait := min(w.interval, maxRetryWait)
	for try, closingTries := 1, 0; ; try++ {
		err := w.settle(w.settled, n)
		if err == nil {
			break
		}
		if w.s.closed() {
			closingTries++
		}
		left := n - w.settled
		if permanent(err) || closingTries > closeRetries {
			w.reset()
			w.s.ctr.failed.Add(uint64(left))
			w.s.log.Error("batch commit failed; writes dropped",
				zap.Int("writes", left), zap.Int("tries", try), zap.Error(err))
			return fmt.Errorf("store: commit batch of %d writes to %s: %w", left, w.s.path, err)
		}
		w.s.ctr.retries.Add(1)
		w.warnRetry(left, try, err)
		time.Sleep(wait)
		wait = min(2*wait, maxRetryWait)
		w.reportDrops()
	}
	dropped, first := w.dropped, w.firstDrop
	w.reset()
	w.reportDrops()
	if dropped > 0 {
		return fmt.Errorf("store: %d of %d writes dropped: %w", dropped, n, first)
	}
	return nil
}

// settle commits batch[lo:hi] in one transaction. When that transaction
// fails because of a record (RecordReason), it settles each half in
// turn, in queue order, so that the records at fault are found in a few
// transactions (about 2·log2(n) per bad record) and dropped alone while
// every other write commits. Each write stays whole within one
// transaction, with what the batch hooks derive from it: a batch is a
// unit of work, not of atomicity. It returns the first error that is not
// a record's; batch[:settled] is then done, and the rest is retried.
func (w *writer) settle(lo, hi int) error {
	err := w.tryCommit(w.batch[lo:hi])
	if err == nil {
		w.s.ctr.batches.Add(1)
		for _, r := range w.rejects {
			reason, ok := RecordReason(r.err)
			if !ok {
				reason = "rejected"
			}
			w.drop(&w.batch[lo+r.i], reason, r.err)
		}
		w.s.ctr.committed.Add(uint64(hi - lo - len(w.rejects)))
		w.settled = hi
		return nil
	}
	reason, ok := RecordReason(err)
	if !ok {
		return err
	}
	if hi-lo == 1 {
		w.drop(&w.batch[lo], reason, err)
		w.settled = hi
		return nil
	}
	mid := lo + (hi-lo)/2
	if err := w.settle(lo, mid); err != nil {
		return err
	}
	return w.settle(mid, hi)
}

// drop gives up wr for good: it is counted as failed and in Drops, and
// logged (at most once a second).
func (w *writer) drop(wr *Write, reason string, err error) {
	w.s.ctr.failed.Add(1)
	w.s.drops.Add(w.s.log, kindOf(wr), reason, err)
	if w.dropped == 0 {
		w.firstDrop = err
	}
	w.dropped++
}

// rejected is a write of a transaction's batch that bbolt or its Apply
// func refused on its own: its index in the batch and the error.
type rejected struct {
	i   int
	err error
}

// tryCommit runs one transaction over batch, the batch hooks included.
// Writes refused individually are skipped and listed in w.rejects; the
// error is the transaction's own.
func (w *writer) tryCommit(batch []Write) error {
	if w.s.hooks.commit != nil {
		w.s.hooks.commit()
	}
	hooks := w.s.batchHooksList()
	start := time.Now()
	err := w.s.db.Update(func(tx *bbolt.Tx) error {
		clear(w.buckets)
		clear(w.rejects)
		w.rejects = w.rejects[:0]
		for _, h := range hooks {
			h.BeginBatch()
		}
		for i := range batch {
			Yield(i)
			if err := w.apply(tx, &batch[i]); err != nil {
				w.rejects = append(w.rejects, rejected{i, err})
			}
		}
		for _, h := range hooks {
			if err := h.EndBatch(tx); err != nil {
				return err
			}
		}
		if w.s.hooks.tx != nil {
			return w.s.hooks.tx(tx)
		}
		return nil
	})
	clear(w.buckets)
	if err == nil && w.s.opts.OnCommit != nil {
		w.s.opts.OnCommit(time.Since(start), len(batch))
	}
	return err
}

// reset ends the pending batch, committed or given up: it empties it,
// dropping references to callers' slices, takes its bytes off the
// queue's budget and tells the batch hooks it is over.
func (w *writer) reset() {
	clear(w.batch)
	w.batch = w.batch[:0]
	if w.batchBytes != 0 {
		w.s.queuedBytes.Add(-w.batchBytes)
		w.batchBytes = 0
	}
	for _, h := range w.s.batchHooksList() {
		h.BatchDone()
	}
}

// permanent reports whether a transaction error can never go away by
// retrying.
func permanent(err error) bool {
	return errors.Is(err, berrors.ErrDatabaseNotOpen) ||
		errors.Is(err, berrors.ErrDatabaseReadOnly) ||
		errors.Is(err, berrors.ErrTxClosed)
}

// warnRetry logs a failed commit that will be retried, at most once per
// second.
func (w *writer) warnRetry(n, try int, err error) {
	now := time.Now()
	if now.Sub(w.lastRetryLog) < time.Second {
		return
	}
	w.lastRetryLog = now
	w.s.log.Error("batch commit failed; retrying",
		zap.Int("writes", n), zap.Int("try", try), zap.Error(err))
}

// errEmptyBucket rejects writes without a bucket name.
var errEmptyBucket = errors.New("empty bucket name")

// apply performs one write inside tx.
func (w *writer) apply(tx *bbolt.Tx, wr *Write) error {
	if wr.Apply != nil {
		return wr.Apply(tx)
	}
	if wr.Bucket == "" {
		return errEmptyBucket
	}
	b, ok := w.buckets[wr.Bucket]
	if !ok {
		if wr.Value == nil {
			// Deleting from a bucket that does not exist is a no-op; do
			// not create it.
			b = tx.Bucket([]byte(wr.Bucket))
			if b == nil {
				return nil
			}
		} else {
			var err error
			if b, err = tx.CreateBucketIfNotExists([]byte(wr.Bucket)); err != nil {
				return fmt.Errorf("bucket %q: %w", wr.Bucket, err)
			}
		}
		w.buckets[wr.Bucket] = b
	}
	if wr.Value == nil {
		return b.Delete(wr.Key)
	}
	return b.Put(wr.Key, wr.Value)
}

// YieldEvery is how many records the writer handles between two yields
// of its processor (see Yield).
const YieldEvery = 64

// Yield lets other goroutines run in the middle of a long batch: called
// with the index of each record a loop of the writer handles, it yields
// the processor every YieldEvery records. The writer shares the
// processors with the requests it records; without yielding, a batch of
// thousands of records would keep a request that became ready meanwhile
// waiting for up to the scheduler's time slice (10 ms) on a gateway with
// one processor.
func Yield(i int) {
	if i%YieldEvery == YieldEvery-1 {
		runtime.Gosched()
	}
}
