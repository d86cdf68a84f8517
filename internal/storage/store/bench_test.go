package store

import (
	"context"
	"encoding/binary"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkEnqueue measures the cost of one accepted Enqueue while the
// writer drains concurrently with real fsync. The timer is stopped while the
// benchmark flushes every half queue, so no iteration hits the drop path.
func BenchmarkEnqueue(b *testing.B) {
	const queue = 1 << 16
	s, err := Open(Options{Path: filepath.Join(b.TempDir(), "enq.db"), QueueSize: queue})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	w := Write{Bucket: "bench", Key: []byte("0123456789abcdef"), Value: make([]byte, 64)}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%(queue/2) == queue/2-1 {
			b.StopTimer()
			if err := s.Flush(ctx); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		if !s.Enqueue(w) {
			b.Fatal("Enqueue dropped")
		}
	}
	b.StopTimer()
	if d := s.Stats().Dropped; d != 0 {
		b.Fatalf("%d dropped", d)
	}
}

// BenchmarkEnqueueParallel measures Enqueue under contention from
// GOMAXPROCS goroutines. The writer cannot keep up, so part of the calls take
// the (cheaper) drop path; the fraction is reported as dropped/op.
func BenchmarkEnqueueParallel(b *testing.B) {
	s, err := Open(Options{Path: filepath.Join(b.TempDir(), "enqp.db"), NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	w := Write{Bucket: "bench", Key: []byte("0123456789abcdef"), Value: make([]byte, 64)}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			s.Enqueue(w)
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(s.Stats().Dropped)/float64(b.N), "dropped/op")
}

// BenchmarkSustainedWrite1KiB pushes b.N 1 KiB records with distinct,
// time-ordered 16-byte keys through the writer with real fsync, retrying
// after a short sleep when the queue is full, and flushes at the end, so
// records/s is sustained committed throughput. Use -benchtime of a few
// seconds or more: at 1s b.N is close to QueueSize and the figure is
// dominated by the final Flush.
func BenchmarkSustainedWrite1KiB(b *testing.B) {
	s, err := Open(Options{Path: filepath.Join(b.TempDir(), "sustained.db")})
	if err != nil {
		b.Fatal(err)
	}
	value := make([]byte, 1024)
	for i := range value {
		value[i] = byte(i)
	}
	// Keys are not copied by Enqueue, so each record needs its own; carve
	// them out of slabs to keep the producer cheap.
	const slab = 4096
	var keys []byte
	var fullWaits int
	b.SetBytes(int64(len(value)))
	b.ReportAllocs()
	b.ResetTimer()
	base := uint64(time.Now().UnixNano())
	for i := 0; i < b.N; i++ {
		if len(keys) == 0 {
			keys = make([]byte, 16*slab)
		}
		k := keys[:16:16]
		keys = keys[16:]
		binary.BigEndian.PutUint64(k, base+uint64(i)) // time-ordered prefix
		binary.BigEndian.PutUint64(k[8:], uint64(i))
		for !s.Enqueue(Write{Bucket: "audit", Key: k, Value: value}) {
			// Queue full: the writer is the bottleneck. Back off rather
			// than spin, which would steal its CPU on small machines.
			fullWaits++
			time.Sleep(20 * time.Microsecond)
		}
	}
	if err := s.Flush(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	st := s.Stats()
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/secs, "records/s")
	b.ReportMetric(float64(b.N)*float64(len(value))/(1<<20)/secs, "MiB/s")
	b.ReportMetric(float64(st.Batches), "batches")
	b.ReportMetric(float64(fullWaits)/float64(b.N), "full-retries/op")
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	if st.Committed != uint64(b.N) {
		b.Fatalf("committed %d of %d", st.Committed, b.N)
	}
}
