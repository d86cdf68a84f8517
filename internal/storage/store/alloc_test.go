//go:build !race

package store

import (
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestEnqueueDoesNotAllocate checks that the accept path and the drop path
// of Enqueue allocate nothing. The writer is parked in its commit hook, so
// it neither drains the queue nor allocates while the test measures.
func TestEnqueueDoesNotAllocate(t *testing.T) {
	entered := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	s, err := open(Options{Path: filepath.Join(t.TempDir(), "store.db"), QueueSize: 1 << 12, MaxBatch: 1,
		FlushInterval: time.Millisecond}, hooks{commit: func() {
		once.Do(func() { close(entered) })
		<-release
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { close(release); _ = s.Close() }()
	w := Write{Bucket: "a", Key: []byte("key"), Value: []byte("value")}
	s.Enqueue(w)
	select {
	case <-entered: // the writer holds one write and waits; the queue is ours
	case <-time.After(10 * time.Second):
		t.Fatal("writer never reached its commit")
	}
	if n := testing.AllocsPerRun(1000, func() { s.Enqueue(w) }); n != 0 {
		t.Errorf("Enqueue (accepted) allocates %.1f per call", n)
	}
	for s.Enqueue(w) { // fill the queue
	}
	if n := testing.AllocsPerRun(1000, func() {
		if s.Enqueue(w) {
			t.Error("full queue accepted a write")
		}
	}); n != 0 {
		t.Errorf("Enqueue (dropped) allocates %.1f per call", n)
	}
}
