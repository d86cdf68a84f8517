package pgstore

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/storage/store"
)

// startWriter starts the writer goroutine.
func (a *Audit) startWriter() {
	ctx, cancel := context.WithCancel(context.Background())
	a.stop = cancel
	go a.run(ctx)
}

// pending returns how many records wait and whether a Flush waits for
// them.
func (a *Audit) pending() (n int, urgent bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.queue.len(), len(a.waiters) > 0 || a.closed
}

// run drains the queue until ctx ends.
func (a *Audit) run(ctx context.Context) {
	defer close(a.stopped)
	linger := time.NewTimer(time.Hour)
	linger.Stop()
	backoff := time.Duration(0)
	var lastWarn time.Time
	failing := false
	for {
		n, urgent := a.pending()
		if n == 0 {
			select {
			case <-a.kick:
				continue
			case <-ctx.Done():
				return
			}
		}
		if n < a.opt.Batch && !urgent && backoff == 0 {
			// Let the batch fill for up to FlushInterval from the first
			// record: one transaction for many records.
			linger.Reset(a.opt.FlushInterval)
		wait:
			for {
				select {
				case <-linger.C:
					break wait
				case <-a.kick:
					if n, urgent = a.pending(); n >= a.opt.Batch || urgent {
						linger.Stop()
						break wait
					}
				case <-ctx.Done():
					return
				}
			}
		}
		batch := a.peek()
		done, err := a.writeTimed(ctx, batch)
		if err != nil && ctx.Err() == nil && a.opt.Spool != nil {
			// Unreachable: keep the rest on local disk instead.
			var spooled int
			spooled, err = a.spoolBatch(batch[done:])
			done += spooled
		}
		if done > 0 {
			a.resolve(done)
		}
		if err == nil {
			if failing {
				a.log.Info("audit writer: PostgreSQL is back; writing the queued records")
				failing = false
			}
			backoff = 0
			continue
		}
		if ctx.Err() != nil {
			return
		}
		failing = true
		backoff = min(max(2*backoff, 100*time.Millisecond), a.opt.MaxBackoff)
		if time.Since(lastWarn) >= time.Second {
			lastWarn = time.Now()
			queued, _ := a.pending()
			a.log.Warn("audit writer: cannot write to PostgreSQL; records stay queued and are retried",
				zap.Int("queued", queued), zap.Duration("retry_in", backoff), zap.Error(err))
		}
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
	}
}

// writeTimed is writeOrSplit under opt.WriteTimeout, so that a database
// that hangs counts as unreachable.
func (a *Audit) writeTimed(ctx context.Context, batch []queued) (int, error) {
	wctx, cancel := context.WithTimeout(ctx, a.opt.WriteTimeout)
	defer cancel()
	return a.writeOrSplit(wctx, batch)
}

// peek returns (a copy of) the oldest queued records, a batch at most.
func (a *Audit) peek() []queued {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.queue.peek(a.opt.Batch, a.opt.BatchBytes)
}

// resolve removes the oldest n records from the queue and wakes the Flush
// calls they satisfy.
func (a *Audit) resolve(n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.bytes -= a.queue.pop(n)
	a.resolved += uint64(n)
	kept := a.waiters[:0]
	for _, w := range a.waiters {
		if w.target <= a.resolved {
			close(w.done)
		} else {
			kept = append(kept, w)
		}
	}
	clear(a.waiters[len(kept):])
	a.waiters = kept
}

// writeOrSplit writes batch in one transaction. When the database refuses
// it for a record's sake (recordReason: bad data, never unreachability),
// it writes each half in turn, in order, so that the records refused are
// found in a few transactions and given up alone, counted by kind and
// reason (Drops), while the others are written: one bad record cannot
// hold the queue. It returns how many records of the batch's prefix are
// done (committed or given up); an error means the rest must be retried.
func (a *Audit) writeOrSplit(ctx context.Context, batch []queued) (int, error) {
	start := time.Now()
	err := a.writeBatch(ctx, batch)
	if err == nil {
		if a.opt.OnCommit != nil {
			a.opt.OnCommit(time.Since(start), len(batch))
		}
		return len(batch), nil
	}
	reason, ok := recordReason(err)
	if !ok {
		return 0, err
	}
	if len(batch) == 1 {
		a.rejected.Add(1)
		a.drops.Add(a.log, batch[0].kind(), reason, err)
		return 1, nil
	}
	mid := len(batch) / 2
	done, err := a.writeOrSplit(ctx, batch[:mid])
	if err != nil {
		return done, err
	}
	done, err = a.writeOrSplit(ctx, batch[mid:])
	return mid + done, err
}

// recordReason reports whether err is the database (or the encoder)
// refusing a record, one that no retry can store, and the drop counter's
// reason: "encoding", "data_exception" (class 22: a value out of range, an
// invalid text), "integrity_violation" (23) or "limit_exceeded" (54: an
// index row too large). Every other error, a schema or privilege problem
// (42), a transaction state (25), a connection, resource, shutdown or
// concurrency failure, is not the record's fault: the batch is retried
// whole, never dropped record by record.
func recordReason(err error) (string, bool) {
	if reason, ok := store.RecordReason(err); ok {
		return reason, true
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || len(pe.Code) < 2 {
		return "", false
	}
	switch pe.Code[:2] {
	case "22":
		return "data_exception", true
	case "23":
		return "integrity_violation", true
	case "54":
		return "limit_exceeded", true
	}
	return "", false
}
