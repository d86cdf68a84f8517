package pgstore

import (
	"context"
	"time"

	"go.uber.org/zap"
)

// spoolLogEvery spaces the spool's log lines while PostgreSQL is down.
const spoolLogEvery = time.Minute

// spoolBatch writes batch to the spool and returns how many of its
// records are done: all of them once spooled (a record that cannot be
// encoded is given up, counted as the database would count it), none on
// a spool error.
func (a *Audit) spoolBatch(batch []queued) (int, error) {
	values := make([][]byte, 0, len(batch))
	for _, q := range batch {
		v, err := encodeSpooled(q)
		if err != nil {
			a.rejected.Add(1)
			a.drops.Add(a.log, q.kind(), "encoding", err)
			continue
		}
		values = append(values, v)
	}
	if len(values) > 0 {
		if err := a.opt.Spool.Put(values); err != nil {
			a.log.Error("audit writer: PostgreSQL is unreachable and the local spool refused the records; they stay queued in memory",
				zap.Int("records", len(values)), zap.Error(err))
			return 0, err
		}
		n := a.spooled.Add(int64(len(values)))
		a.logSpool("audit writer: PostgreSQL is unreachable; records are kept in the local spool and written when it answers", n)
		wake(a.spoolKick)
	}
	return len(batch), nil
}

// logSpool logs msg with the spool's size at most once per spoolLogEvery.
func (a *Audit) logSpool(msg string, n int64) {
	now := time.Now().UnixNano()
	last := a.lastSpoolLog.Load()
	if now-last < int64(spoolLogEvery) || !a.lastSpoolLog.CompareAndSwap(last, now) {
		return
	}
	a.log.Warn(msg, zap.Int64("spooled", n))
}

// startDrainer counts what the spool holds from an earlier run and
// starts the goroutine that writes it to the database.
func (a *Audit) startDrainer() {
	a.spoolKick = make(chan struct{}, 1)
	a.drained = make(chan struct{})
	n, err := a.opt.Spool.Len()
	if err != nil {
		a.log.Error("audit writer: reading the local spool", zap.Error(err))
	}
	a.spooled.Store(int64(n))
	if n > 0 {
		a.log.Info("audit writer: writing the records spooled while PostgreSQL was unreachable", zap.Int("spooled", n))
	}
	ctx, cancel := context.WithCancel(context.Background())
	a.stopDrain = cancel
	go a.drain(ctx)
}

// drain writes the spooled records to the database, oldest first, one
// batch per transaction, and removes each batch from the spool once it is
// committed. Rows already stored (a batch written whose removal a crash
// prevented) are skipped with their aggregates, so each record counts
// once. While the database is unreachable it retries with backoff.
func (a *Audit) drain(ctx context.Context) {
	defer close(a.drained)
	backoff := time.Duration(0)
	for {
		if a.spooled.Load() <= 0 || backoff > 0 {
			wait := time.Hour
			if backoff > 0 {
				wait = backoff
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-a.spoolKick:
				t.Stop()
				if backoff > 0 {
					continue // a new failure of the writer: keep backing off
				}
			case <-t.C:
				backoff = 0
			}
			if a.spooled.Load() <= 0 {
				continue
			}
		}
		moved, err := a.drainBatch(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			backoff = min(max(2*backoff, 100*time.Millisecond), a.opt.MaxBackoff)
			continue
		}
		if moved == 0 {
			a.spooled.Store(0) // the spool is empty whatever the count said
			continue
		}
		if left := a.spooled.Add(-int64(moved)); left <= 0 {
			a.log.Info("audit writer: the records spooled while PostgreSQL was unreachable are written")
		}
	}
}

// drainBatch writes the oldest batch of the spool and removes what is
// done: committed, given up by the database, or unreadable (counted as
// "corrupt_spool"). It returns how many records left the spool.
func (a *Audit) drainBatch(ctx context.Context) (int, error) {
	keys, values, err := a.opt.Spool.Oldest(a.opt.Batch)
	if err != nil || len(keys) == 0 {
		return 0, err
	}
	batch := make([]queued, 0, len(values))
	var written, gone [][]byte
	for i, v := range values {
		q, err := decodeSpooled(v)
		if err != nil {
			a.rejected.Add(1)
			a.drops.Add(a.log, "spooled", "corrupt_spool", err)
			gone = append(gone, keys[i])
			continue
		}
		batch = append(batch, q)
		written = append(written, keys[i])
	}
	done, werr := a.writeTimed(ctx, batch)
	gone = append(gone, written[:done]...)
	if len(gone) > 0 {
		if err := a.opt.Spool.Remove(gone); err != nil {
			// Written but still spooled: the next attempt skips the rows
			// already stored.
			return 0, err
		}
	}
	return len(gone), werr
}

// wake signals c without blocking.
func wake(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
