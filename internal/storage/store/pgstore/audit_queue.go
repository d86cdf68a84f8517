package pgstore

import "github.com/modelgate/modelgate/internal/domain/audit"

// queued is one record waiting for the writer: an entry or a usage record.
type queued struct {
	e    *audit.Entry
	u    *audit.UsageRecord
	size int64
}

// kind is the drop counter's kind of q: "entry" or "usage".
func (q *queued) kind() string {
	if q.e != nil {
		return "entry"
	}
	return "usage"
}

// chunkLen is the number of records of one queue chunk.
const chunkLen = 512

// queueChunk is a fixed block of queued records.
type queueChunk struct {
	items [chunkLen]queued
	next  *queueChunk
}

// recordQueue is a FIFO of records in linked fixed-size chunks: a push
// never moves what is queued (no growing slice to copy), and the writer
// removes from the front without shifting. It is not safe for concurrent
// use; Audit guards it with its mutex.
type recordQueue struct {
	head, tail *queueChunk
	// hi is the index of the first record in head, ti the number of
	// records used in tail.
	hi, ti int
	n      int
	spare  *queueChunk
}

// len returns how many records are queued.
func (q *recordQueue) len() int { return q.n }

// push adds r at the back.
func (q *recordQueue) push(r queued) {
	if q.tail == nil || q.ti == chunkLen {
		c := q.spare
		if c != nil {
			q.spare = nil
		} else {
			c = new(queueChunk)
		}
		if q.tail == nil {
			q.head, q.hi = c, 0
		} else {
			q.tail.next = c
		}
		q.tail, q.ti = c, 0
	}
	q.tail.items[q.ti] = r
	q.ti++
	q.n++
}

// peek returns a copy of the oldest records: at most max of them, and
// no more than maxBytes of them (by size) unless the first alone is
// larger.
func (q *recordQueue) peek(max int, maxBytes int64) []queued {
	out := make([]queued, 0, min(max, q.n))
	c, i := q.head, q.hi
	var size int64
	for len(out) < cap(out) {
		end := chunkLen
		if c == q.tail {
			end = q.ti
		}
		for ; i < end && len(out) < cap(out); i++ {
			r := c.items[i]
			if len(out) > 0 && size+r.size > maxBytes {
				return out
			}
			size += r.size
			out = append(out, r)
		}
		c, i = c.next, 0
	}
	return out
}

// pop removes the oldest k records (k ≤ len) and returns their size.
func (q *recordQueue) pop(k int) (size int64) {
	for ; k > 0; k-- {
		size += q.head.items[q.hi].size
		q.head.items[q.hi] = queued{}
		q.hi++
		q.n--
		if q.head == q.tail && q.hi == q.ti {
			q.hi, q.ti = 0, 0 // empty: keep the chunk
			continue
		}
		if q.hi == chunkLen {
			old := q.head
			q.head, q.hi = old.next, 0
			old.next = nil
			q.spare = old
		}
	}
	return size
}
