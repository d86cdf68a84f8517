package store

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestOnCommit: the writer reports each committed transaction, with its
// writes, to Options.OnCommit.
func TestOnCommit(t *testing.T) {
	var mu sync.Mutex
	var commits, writes int
	s := openT(t, Options{FlushInterval: time.Hour, NoSync: true, OnCommit: func(d time.Duration, n int) {
		mu.Lock()
		defer mu.Unlock()
		if d < 0 {
			t.Errorf("negative commit time %v", d)
		}
		commits, writes = commits+1, writes+n
	}})
	for i := 0; i < 10; i++ {
		s.Enqueue(Write{Bucket: "c", Key: key(i), Value: val(i)})
	}
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if commits != 1 || writes != 10 {
		t.Errorf("OnCommit saw %d commits of %d writes, want 1 of 10", commits, writes)
	}
}
