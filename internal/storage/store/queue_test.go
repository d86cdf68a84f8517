package store

import (
	"strconv"
	"testing"
)

// TestOpListOrderAndReuse checks that the queue hands ops back in the order
// they were pushed across block boundaries, and that emptied blocks are
// reused (at most keepBlocks of them kept) with no reference left to a
// caller's slices.
func TestOpListOrderAndReuse(t *testing.T) {
	var l opList
	const n = blockOps*(keepBlocks+3) + 7
	for i := range n {
		if got := l.push(op{w: Write{Bucket: strconv.Itoa(i), Value: []byte{1}}}); got != i+1 {
			t.Fatalf("push %d: length %d", i, got)
		}
	}
	head := l.take()
	if l.n != 0 || l.head != nil || l.tail != nil {
		t.Fatalf("take left %d ops", l.n)
	}
	i := 0
	for b := head; b != nil; {
		for j := range b.ops[:b.n] {
			if got := b.ops[j].w.Bucket; got != strconv.Itoa(i) {
				t.Fatalf("op %d is %q", i, got)
			}
			i++
		}
		next := b.next
		l.recycle(b)
		if b.n != 0 || b.ops[0].w.Value != nil {
			t.Fatal("a recycled block still holds its ops")
		}
		b = next
	}
	if i != n {
		t.Fatalf("took %d ops, pushed %d", i, n)
	}
	if l.nfree != keepBlocks {
		t.Fatalf("kept %d blocks, want %d", l.nfree, keepBlocks)
	}
	w := op{w: Write{Bucket: "b"}}
	if a := testing.AllocsPerRun(keepBlocks*blockOps-1, func() { l.push(w) }); a != 0 {
		t.Errorf("push allocates %.2f per op with blocks kept", a)
	}
}
