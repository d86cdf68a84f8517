package sessions

import (
	"container/list"
	"sync"
	"time"
)

// counterKey names the counters of one session under one limit's scope:
// the limit's user path, or for a per_child limit the child's path.
type counterKey struct {
	scope, session string
}

// counter is what one session did under one scope.
type counter struct {
	key counterKey
	// requests counts the admitted requests (given back when one reached
	// no provider).
	requests int64
	// costNanos is the spend, in billionths of the currency unit.
	costNanos int64
	// last is the signature of the last answer, repeats how many answers
	// in a row had it; both zero after an answer without a signature.
	last    string
	repeats int
	// limited names the limit that last refused the session
	// ("max_requests=50"), "" while none did.
	limited string
	// used is when the session last made a request.
	used time.Time
	elem *list.Element
}

// table holds the counters, the least recently used first out: at most
// max of them, each forgotten once idle for idle.
type table struct {
	mu   sync.Mutex
	max  int
	idle time.Duration
	m    map[counterKey]*counter
	lru  list.List // of *counter, most recent at the front
}

func newTable(max int, idle time.Duration) *table {
	return &table{max: max, idle: idle, m: map[counterKey]*counter{}}
}

// get returns k's counter, creating it, and marks it used at now. Caller
// holds t.mu.
func (t *table) get(k counterKey, now time.Time) *counter {
	c := t.m[k]
	if c != nil && now.Sub(c.used) >= t.idle {
		t.remove(c)
		c = nil
	}
	if c == nil {
		c = &counter{key: k}
		c.elem = t.lru.PushFront(c)
		t.m[k] = c
		for len(t.m) > t.max {
			t.remove(t.lru.Back().Value.(*counter))
		}
	} else {
		t.lru.MoveToFront(c.elem)
	}
	c.used = now
	return c
}

// remove forgets c. Caller holds t.mu.
func (t *table) remove(c *counter) {
	t.lru.Remove(c.elem)
	delete(t.m, c.key)
}

// sweep forgets the counters idle at now. Caller holds t.mu.
func (t *table) sweep(now time.Time) {
	for e := t.lru.Back(); e != nil; {
		c := e.Value.(*counter)
		if now.Sub(c.used) < t.idle {
			return
		}
		prev := e.Prev()
		t.remove(c)
		e = prev
	}
}
