package audit

import (
	"context"
	"sync"
	"testing"
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

// startedSince reports whether a commit started at or after t.
func (c *countingFlusher) startedSince(t time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.starts {
		if !s.Before(t) {
			return true
		}
	}
	return false
}

func TestSettleCommitsAfterEachReadBegins(t *testing.T) {
	var s settler
	f := &countingFlusher{}
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				began := time.Now()
				s.settle(f)
				if !f.startedSince(began) {
					t.Error("a read returned before a commit that started after it began")
				}
			}
		}()
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
}

func TestSettleWithoutAFlusher(t *testing.T) {
	var s settler
	s.settle(nil)
	s.settle(struct{}{})
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
