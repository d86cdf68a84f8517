package pgstore

import (
	"testing"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// TestRecordQueueKeepsOrderAcrossChunks pushes and pops across chunk
// boundaries, as the writer does, and checks order, sizes and length.
func TestRecordQueueKeepsOrderAcrossChunks(t *testing.T) {
	var q recordQueue
	next, want := int64(0), int64(0)
	push := func(n int) {
		for range n {
			next++
			q.push(queued{u: &audit.UsageRecord{}, size: next})
		}
	}
	pop := func(n int) {
		got := q.peek(n, 1<<62)
		if len(got) != min(n, q.len()) {
			t.Fatalf("peek(%d) gave %d of %d", n, len(got), q.len())
		}
		var sum int64
		for _, r := range got {
			want++
			if r.size != want {
				t.Fatalf("record %d came as %d", want, r.size)
			}
			sum += r.size
		}
		if s := q.pop(len(got)); s != sum {
			t.Fatalf("pop size %d, want %d", s, sum)
		}
	}
	push(10)
	pop(3)
	push(chunkLen * 2)
	pop(chunkLen + 7)
	pop(1)
	push(chunkLen - 1)
	pop(5 * chunkLen)
	if q.len() != 0 || want != next {
		t.Fatalf("len %d after popping everything (%d of %d)", q.len(), want, next)
	}
	push(3)
	pop(3)
	if q.len() != 0 {
		t.Fatal("not empty")
	}
}

// TestRecordQueuePeekBoundsBytes: a batch stops before the record that
// would take it past the byte bound, but always holds at least one.
func TestRecordQueuePeekBoundsBytes(t *testing.T) {
	var q recordQueue
	for _, size := range []int64{100, 5, 5, 5, 50} {
		q.push(queued{size: size})
	}
	if got := q.peek(10, 10); len(got) != 1 || got[0].size != 100 {
		t.Fatalf("oversized first record: %+v", got)
	}
	q.pop(1)
	if got := q.peek(10, 12); len(got) != 2 {
		t.Fatalf("byte bound: %d records", len(got))
	}
	if got := q.peek(2, 1000); len(got) != 2 {
		t.Fatalf("count bound: %d records", len(got))
	}
}
