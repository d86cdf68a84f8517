package audit

import (
	"context"
	"time"
)

// flusher is a storage that queues its writes and can commit what it has
// queued (Flush waits until every write queued before the call is
// committed).
type flusher interface {
	Flush(ctx context.Context) error
}

// settleTimeout bounds how long a read waits for the records still queued
// to be committed before it answers from what is.
const settleTimeout = 2 * time.Second

// settle commits the records st still has queued, when it queues them (it
// is a flusher), so that a read includes every request answered before it
// began. A commit that fails, or takes longer than settleTimeout (a
// stalled disk), does not fail the read: it answers from what is
// committed, and the writer reports its own failures.
func settle(st any) {
	f, ok := st.(flusher)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
	defer cancel()
	_ = f.Flush(ctx)
}
