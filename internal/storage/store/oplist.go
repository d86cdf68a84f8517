package store

// blockOps is how many queue elements one opBlock holds (about 11 KiB).
const blockOps = 128

// keepBlocks is how many emptied blocks the queue keeps for reuse: enough
// for the writes of a busy flush interval, while a burst's extra blocks are
// left to the garbage collector.
const keepBlocks = 32

// opBlock is a fixed run of queued ops, linked into an opList.
type opBlock struct {
	ops  [blockOps]op
	n    int
	next *opBlock
}

// opList is the write queue: a list of blocks that grows a block at a time
// and is taken whole by the writer, so memory follows the writes actually
// waiting (a channel would hold a buffer for all QueueSize of them for the
// store's life) and nothing is copied as it grows. Its methods need the
// caller to hold Store.qmu.
type opList struct {
	head, tail *opBlock
	// n counts the ops in the list.
	n int
	// free is a stack of emptied blocks; nfree its length.
	free  *opBlock
	nfree int
}

// push appends o and returns the list's new length.
func (l *opList) push(o op) int {
	t := l.tail
	if t == nil || t.n == blockOps {
		b := l.free
		if b != nil {
			l.free, b.next = b.next, nil
			l.nfree--
		} else {
			b = new(opBlock)
		}
		if t == nil {
			l.head = b
		} else {
			t.next = b
		}
		l.tail, t = b, b
	}
	t.ops[t.n] = o
	t.n++
	l.n++
	return l.n
}

// take empties the list and returns its first block; the others follow
// through next.
func (l *opList) take() *opBlock {
	h := l.head
	l.head, l.tail, l.n = nil, nil, 0
	return h
}

// recycle empties b (dropping references to callers' slices) and keeps
// it for push unless keepBlocks are kept already.
func (l *opList) recycle(b *opBlock) {
	clear(b.ops[:b.n])
	b.n, b.next = 0, nil
	if l.nfree < keepBlocks {
		b.next, l.free = l.free, b
		l.nfree++
	}
}
