//go:build !race

package store

import (
	"testing"

	"go.etcd.io/bbolt"
)

// TestEnqueueDoesNotAllocate checks that the accept path and the drop path
// of Enqueue allocate nothing. The writer is held off with an open write
// transaction so its own allocations do not show up.
func TestEnqueueDoesNotAllocate(t *testing.T) {
	s := openT(t, Options{QueueSize: 1 << 12, MaxBatch: 1}) // writer blocks in its first commit
	w := Write{Bucket: "a", Key: []byte("key"), Value: []byte("value")}
	err := s.Update(func(*bbolt.Tx) error {
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
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
