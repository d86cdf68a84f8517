package audit

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// countingFlusher records when each of its commits started.
type countingFlusher struct {
	mu     sync.Mutex
	starts []time.Time
}

func (c *countingFlusher) Flush(context.Context) error {
	c.mu.Lock()
	c.starts = append(c.starts, time.Now())
	c.mu.Unlock()
	time.Sleep(time.Millisecond) // a commit takes a moment
	return nil
}

// started returns how many commits have started.
func (c *countingFlusher) started() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.starts)
}

// TestSettleCommitsAfterEachReadBegins: every read returns only after a
// commit that started after the read began (counted in commits, not
// timed), concurrent reads share commits, and the commits reads force
// are settleGap apart. The settler spaces the moments it takes just
// before each commit; it runs in a synctest bubble, where no time passes
// between that moment and the commit's start, so the test measures what
// the settler guarantees and not how soon a loaded machine runs the
// commit after it.
func TestSettleCommitsAfterEachReadBegins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var s settler
		f := &countingFlusher{}
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				for range 3 {
					before := f.started()
					s.settle(f)
					if f.started() <= before {
						t.Error("a read returned before a commit that started after it began")
					}
				}
			})
		}
		wg.Wait()
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.starts) >= 60 {
			t.Errorf("%d commits for 60 reads: concurrent reads did not share them", len(f.starts))
		}
		for i := 1; i < len(f.starts); i++ {
			if gap := f.starts[i].Sub(f.starts[i-1]); gap < settleGap {
				t.Errorf("commits %d and %d started %v apart, under %v", i-1, i, gap, settleGap)
			}
		}
	})
}

// A storage that queues nothing (not a flusher) returns at once and
// forces no commit.
func TestSettleWithoutAFlusher(t *testing.T) {
	var s settler
	s.settle(nil)
	s.settle(struct{}{})
	if s.next != nil || !s.last.IsZero() {
		t.Fatalf("a storage without Flush forced a commit (last %v, next %v)", s.last, s.next)
	}
}

// idleFlusher is a countingFlusher that reports nothing pending.
type idleFlusher struct{ countingFlusher }

func (*idleFlusher) Pending() bool { return false }

func TestSettleSkipsAStorageWithNothingPending(t *testing.T) {
	var s settler
	f := &idleFlusher{}
	for range 5 {
		s.settle(f)
	}
	if len(f.starts) != 0 {
		t.Fatalf("%d commits with nothing pending", len(f.starts))
	}
}
