package store

import (
	"context"

	"go.etcd.io/bbolt"
	"go.uber.org/zap"
)

// Write is one queued mutation: a put or delete of one key of a top-level
// bucket, or, when Apply is set, any change made by a function inside the
// writer's transaction.
//
// Key and Value are not copied by Enqueue: the caller must not modify them
// after handing them over. The bucket is created on first Put.
type Write struct {
	// Bucket is the top-level bucket name; must not be empty unless Apply
	// is set.
	Bucket string
	// Key must be non-empty and at most bbolt.MaxKeySize bytes.
	Key []byte
	// Value is stored under Key. nil deletes Key; an empty non-nil slice
	// stores an empty value.
	Value []byte
	// Apply, when non-nil, replaces the put or delete: the writer calls it
	// inside the batch's read-write transaction, in queue order, so it sees
	// every earlier write of the batch and may read, modify and write any
	// bucket (aggregates maintained as records arrive). Bucket, Key and
	// Value are then ignored.
	//
	// An error counts the write as rejected (Stats.Failed) while the rest
	// of the batch still commits, so Apply must check its input before it
	// writes anything. Apply may run more than once: when a batch's commit
	// fails it is retried in a fresh transaction, so Apply must derive
	// everything from tx and the values it captured, and must not change
	// them.
	Apply func(tx *bbolt.Tx) error
	// Size is how many bytes of memory the write holds until it is
	// committed (its value, or what Apply will write), for the queue's
	// byte budget (Options.MaxBatchBytes); 0 when negligible.
	Size int
	// Take, when non-nil, is called once, on the writer goroutine and
	// outside any transaction, when the writer moves the write from the
	// queue into its batch. A write holding large values may there turn
	// them into the smaller form it will store (compressed, packed with
	// the batch's others) and let go of the originals. Take returns the
	// bytes the batch holds for the write from then on, instead of Size:
	// what it added less what it released, which may be negative when
	// packing it shrank what earlier writes of the batch hold. Take
	// cannot fail: a write that cannot be stored is refused by Apply.
	Take func() int
	// Kind names what the write records ("entry", "usage"), for the
	// count of writes dropped because the store refuses them (Drops).
	// Empty means the bucket's name, or "other" for an Apply write.
	Kind string
}

// Enqueue queues w for the writer and reports whether it was accepted. It
// never blocks: when the queue is full or the store is closed it returns
// false, counts the write in Stats.Dropped and logs a warning at most once
// per second.
func (s *Store) Enqueue(w Write) bool {
	s.qmu.Lock()
	if s.closing.Load() {
		s.qmu.Unlock()
		s.dropped(true)
		return false
	}
	if s.queued.Load() >= int64(s.opts.QueueSize) {
		s.qmu.Unlock()
		s.dropped(false)
		return false
	}
	s.queued.Add(1)
	// Counted before the writer can see it, so Committed can never
	// overtake Enqueued.
	s.ctr.enqueued.Add(1)
	kick := s.q.push(op{w: w}) >= s.kickAt || (w.Size > 0 && s.queuedBytes.Add(int64(w.Size)) >= s.opts.MaxBatchBytes)
	s.qmu.Unlock()
	if kick {
		s.wake()
	}
	return true
}

// wake kicks the writer without blocking; a pending kick is enough.
func (s *Store) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// dropped counts a rejected write. Queue-full drops are reported by the
// writer (see writer.reportDrops) so that this path stays a single atomic
// add even when every call is dropping; drops after Close are logged here.
func (s *Store) dropped(closed bool) {
	n := s.ctr.dropped.Add(1)
	if closed {
		s.warnDropped("store closed", n)
	}
}

// warnDropped logs a drop warning unless one was logged less than a second
// ago.
func (s *Store) warnDropped(reason string, total uint64) bool {
	if !s.lastWarn.allow() {
		return false
	}
	s.log.Warn("dropping writes",
		zap.String("reason", reason),
		zap.Uint64("dropped_total", total),
		zap.Int("queue_size", s.opts.QueueSize))
	return true
}

// Flush waits until every write accepted by Enqueue before the call has been
// committed (or has failed), or ctx is done. It puts a marker in the write
// queue, so ordering with concurrent Enqueue calls is preserved; a marker is
// never refused for a full queue. It returns an error if the batch
// the marker closed failed to commit or had writes rejected (failures of
// earlier batches show only in Stats.Failed), ctx.Err() if ctx ended first,
// and nil once the store has finished closing (Close commits everything
// queued).
func (s *Store) Flush(ctx context.Context) error {
	s.qmu.Lock()
	if s.closing.Load() {
		s.qmu.Unlock()
		select {
		case <-s.done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	res := make(chan error, 1)
	s.q.push(op{flush: res})
	s.qmu.Unlock()
	s.wake()
	select {
	case err := <-res:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// blockOps is how many queue elements one opBlock holds (about 11 KiB).
const blockOps = 128

// keepBlocks is how many emptied blocks the queue keeps for reuse: enough
// for the writes of a busy flush interval, while a burst's extra blocks are
// left to the garbage collector.
const keepBlocks = 32

// opBlock is a fixed run of queued ops, linked into an opList.
type opBlock struct {
	ops  [blockOps]op
	n    int
	next *opBlock
}

// opList is the write queue: a list of blocks that grows a block at a time
// and is taken whole by the writer, so memory follows the writes actually
// waiting (a channel would hold a buffer for all QueueSize of them for the
// store's life) and nothing is copied as it grows. Its methods need the
// caller to hold Store.qmu.
type opList struct {
	head, tail *opBlock
	// n counts the ops in the list.
	n int
	// free is a stack of emptied blocks; nfree its length.
	free  *opBlock
	nfree int
}

// push appends o and returns the list's new length.
func (l *opList) push(o op) int {
	t := l.tail
	if t == nil || t.n == blockOps {
		b := l.free
		if b != nil {
			l.free, b.next = b.next, nil
			l.nfree--
		} else {
			b = new(opBlock)
		}
		if t == nil {
			l.head = b
		} else {
			t.next = b
		}
		l.tail, t = b, b
	}
	t.ops[t.n] = o
	t.n++
	l.n++
	return l.n
}

// take empties the list and returns its first block; the others follow
// through next.
func (l *opList) take() *opBlock {
	h := l.head
	l.head, l.tail, l.n = nil, nil, 0
	return h
}

// recycle empties b (dropping references to callers' slices) and keeps
// it for push unless keepBlocks are kept already.
func (l *opList) recycle(b *opBlock) {
	clear(b.ops[:b.n])
	b.n, b.next = 0, nil
	if l.nfree < keepBlocks {
		b.next, l.free = l.free, b
		l.nfree++
	}
}
