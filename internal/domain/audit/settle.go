package audit

import (
	"context"
	"sync"
	"time"
)

// flusher is a storage that queues its writes and can commit what it has
// queued (Flush waits until every write queued before the call is
// committed).
type flusher interface {
	Flush(ctx context.Context) error
}

// pender is a flusher that can tell whether it holds writes not yet
// committed.
type pender interface {
	Pending() bool
}

// settleTimeout bounds how long a read waits for the records still queued
// to be committed before it answers from what is.
const settleTimeout = 2 * time.Second

// settleGap is the shortest time between two commits that reads force:
// reads that come faster share a commit, so a client reading in a loop
// cannot make the writer commit once per read.
const settleGap = 20 * time.Millisecond

// settler commits what a storage still has queued before a read, so that
// the read includes every request answered before it began. The zero
// settler is ready to use.
type settler struct {
	mu   sync.Mutex
	last time.Time     // when the last commit it forced started
	next chan struct{} // closed once the commit that readers now wait for is done
}

// settle commits the records st still has queued, when it queues them (it
// is a flusher) and holds some (it is not a pender with none pending): at
// once, or, within settleGap of the last commit a read
// forced, at the end of the gap, together with every read that comes in
// the meantime. A commit that fails, or takes longer than settleTimeout (a
// stalled disk), does not fail the read: it answers from what is
// committed, and the writer reports its own failures.
func (s *settler) settle(st any) {
	f, ok := st.(flusher)
	if !ok {
		return
	}
	if p, ok := st.(pender); ok && !p.Pending() {
		return // nothing queued: what the read sees is complete
	}
	s.mu.Lock()
	if done := s.next; done != nil {
		// A commit is due that starts after this read began: it
		// includes what this read must see.
		s.mu.Unlock()
		<-done
		return
	}
	done := make(chan struct{})
	s.next = done
	wait := settleGap - time.Since(s.last)
	s.mu.Unlock()
	if wait > 0 {
		time.Sleep(wait)
	}
	s.mu.Lock()
	s.last, s.next = time.Now(), nil
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
	defer cancel()
	_ = f.Flush(ctx)
	close(done)
}
