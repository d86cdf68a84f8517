package store

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// Drop is how many records of one kind were dropped for one reason.
type Drop struct {
	// Kind names the record: "entry", "usage", or what another domain
	// calls its writes (Write.Kind; by default the bucket).
	Kind string
	// Reason is the slug of why (see RecordReason).
	Reason string
	// Count is how many records were dropped.
	Count uint64
}

// dropKey is the identity of one Drop row.
type dropKey struct{ kind, reason string }

// DropCounter counts records given up for good, by kind and reason, and
// logs them at most once a second so that a flood of bad records cannot
// flood the log. The zero value is ready; it is safe for concurrent use.
// Drops are rare (a record the storage refuses), so a mutex and a map are
// cheap enough.
type DropCounter struct {
	mu      sync.Mutex
	counts  map[dropKey]uint64
	total   uint64
	lastLog logThrottle
}

// Add counts one record of kind dropped because of err, whose reason is
// reason, and logs it on log unless a drop was logged less than a second
// ago (the line carries the total dropped so far).
func (c *DropCounter) Add(log *zap.Logger, kind, reason string, err error) {
	c.mu.Lock()
	if c.counts == nil {
		c.counts = map[dropKey]uint64{}
	}
	c.counts[dropKey{kind, reason}]++
	c.total++
	total := c.total
	c.mu.Unlock()
	if log != nil && c.lastLog.allow() {
		log.Error("record dropped: the storage refuses it and retrying cannot help",
			zap.String("kind", kind), zap.String("reason", reason),
			zap.Uint64("dropped_total", total), zap.Error(err))
	}
}

// Snapshot returns the counts, by kind then reason.
func (c *DropCounter) Snapshot() []Drop {
	c.mu.Lock()
	out := make([]Drop, 0, len(c.counts))
	for k, n := range c.counts {
		out = append(out, Drop{Kind: k.kind, Reason: k.reason, Count: n})
	}
	c.mu.Unlock()
	slices.SortFunc(out, func(a, b Drop) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Reason, b.Reason))
	})
	return out
}

// Drops returns how many writes the store gave up for good because of
// the write itself (see RecordReason), by kind and reason: writes the
// writer dropped from a batch, and records a domain refused before
// queueing them (DropRecord). Writes refused by a full queue are counted
// in Stats.Dropped, not here.
func (s *Store) Drops() []Drop { return s.drops.Snapshot() }

// DropRecord counts a record of kind that a domain refused to queue
// because it can never be stored (it does not encode, a key made from it
// is too long), under the reason RecordReason gives err ("invalid" when
// it gives none), and logs it at most once a second.
func (s *Store) DropRecord(kind string, err error) {
	reason, ok := RecordReason(err)
	if !ok {
		reason = "invalid"
	}
	s.drops.Add(s.log, kind, reason, err)
}

// logThrottle lets a repeated log line through at most once a second. The
// zero value is ready; it is safe for concurrent use.
type logThrottle struct {
	last atomic.Int64 // unix nanos of the last line let through
}

// allow reports whether a line may be logged now, and if so counts it as
// logged.
func (t *logThrottle) allow() bool {
	now := time.Now().UnixNano()
	last := t.last.Load()
	return now-last >= int64(time.Second) && t.last.CompareAndSwap(last, now)
}

// kindOf is the drop counter's kind of w: Write.Kind, else its bucket,
// else "other".
func kindOf(w *Write) string {
	switch {
	case w.Kind != "":
		return w.Kind
	case w.Bucket != "":
		return w.Bucket
	}
	return "other"
}
