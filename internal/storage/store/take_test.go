package store

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.etcd.io/bbolt"
)

// doneCounter is a BatchHook that counts the batches that ended and
// whether a transaction was open when Take ran.
type doneCounter struct {
	inTx atomic.Bool
	done atomic.Int64
}

func (d *doneCounter) BeginBatch()                 { d.inTx.Store(true) }
func (d *doneCounter) EndBatch(tx *bbolt.Tx) error { d.inTx.Store(false); return nil }
func (d *doneCounter) BatchDone()                  { d.done.Add(1) }

// TestTakeShrinksWhatABatchHolds: a write whose Take shrinks what it
// holds counts its new size in the byte budget, so writes that reach
// MaxBatchBytes in the queue but not once taken wait for the tick instead
// of cutting a commit; writes that still hold the budget once taken are
// committed at once. Take runs once per write, outside any transaction,
// and the byte count goes back to zero once the batch is committed.
func TestTakeShrinksWhatABatchHolds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := openT(t, Options{FlushInterval: time.Hour, MaxBatchBytes: 1000})
		hook := &doneCounter{}
		s.OnBatch(hook)
		var takes, takesInTx atomic.Int64
		// The writer may wake as soon as three writes reach the byte budget;
		// the first Take waits until all six are queued, so the writer takes
		// them all in that wake-up instead of leaving the last two (840 of
		// 1000 bytes) for the hour's tick.
		queued := make(chan struct{})
		write := func(i, held int) Write {
			return Write{Bucket: "t", Key: key(i), Value: val(i), Size: 400, Take: func() int {
				if i == 0 {
					<-queued
				}
				takes.Add(1)
				if hook.inTx.Load() {
					takesInTx.Add(1)
				}
				return held
			}}
		}
		for i := 0; i < 6; i++ {
			if !s.Enqueue(write(i, 10)) {
				t.Fatal("dropped")
			}
		}
		close(queued)
		synctest.Wait() // no bubble time has passed: only the byte budget woke the writer
		if n := takes.Load(); n != 6 {
			t.Fatalf("writes over the byte budget: %d taken, want 6", n)
		}
		time.Sleep(time.Hour - time.Nanosecond) // bubble time: just short of the tick
		synctest.Wait()
		if st := s.Stats(); st.Batches != 0 {
			t.Fatalf("a batch holding 60 of 1000 bytes was committed before the tick: %+v", st)
		}
		if n := s.queuedBytes.Load(); n != 60 {
			t.Fatalf("queued bytes = %d, want 60 (six writes holding 10 each)", n)
		}
		// Writes that still hold 400 once taken cut a commit.
		for i := 6; i < 9; i++ {
			s.Enqueue(write(i, 400))
		}
		synctest.Wait() // still short of the tick
		if st := s.Stats(); st.Batches != 1 || st.Committed != 9 {
			t.Fatalf("writes holding the byte budget not committed: %+v", st)
		}
		if takes.Load() != 9 || takesInTx.Load() != 0 {
			t.Fatalf("Take ran %d times (%d inside a transaction), want 9 and 0", takes.Load(), takesInTx.Load())
		}
		if n := s.queuedBytes.Load(); n != 0 {
			t.Fatalf("queued bytes after commit = %d", n)
		}
		if hook.done.Load() != 1 {
			t.Fatalf("BatchDone ran %d times for 1 batch", hook.done.Load())
		}
		if count(t, s, "t") != 9 {
			t.Fatal("writes not stored")
		}
	})
}

// TestTakeRunsOnceAcrossRetries: a batch whose commit fails is retried
// without taking its writes again, and its hooks hear once that it is
// over, after the commit that succeeded.
func TestTakeRunsOnceAcrossRetries(t *testing.T) {
	fail, calls := failTx(2)
	s, err := open(Options{Path: filepath.Join(t.TempDir(), "take.db"), FlushInterval: time.Millisecond}, hooks{tx: fail})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hook := &doneCounter{}
	s.OnBatch(hook)
	var takes atomic.Int64
	for i := 0; i < 3; i++ {
		s.Enqueue(Write{Bucket: "r", Key: key(i), Value: val(i), Take: func() int { takes.Add(1); return 0 }})
	}
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 3 || takes.Load() != 3 || hook.done.Load() != 1 {
		t.Fatalf("%d transactions, %d takes, %d batches done; want 3, 3, 1", calls.Load(), takes.Load(), hook.done.Load())
	}
}

// TestBatchDoneAfterGivingUp: a batch given up when Close runs out of
// retries is over too.
func TestBatchDoneAfterGivingUp(t *testing.T) {
	fail, _ := failTx(1 << 30)
	s, err := open(Options{Path: filepath.Join(t.TempDir(), "gaveup.db"), FlushInterval: time.Millisecond}, hooks{tx: fail})
	if err != nil {
		t.Fatal(err)
	}
	hook := &doneCounter{}
	s.OnBatch(hook)
	s.Enqueue(Write{Bucket: "n", Key: key(1), Value: val(1)})
	_ = s.Close()
	if hook.done.Load() != 1 || s.Stats().Failed != 1 {
		t.Fatalf("%d batches done, stats %+v; want 1 and 1 failed", hook.done.Load(), s.Stats())
	}
}
