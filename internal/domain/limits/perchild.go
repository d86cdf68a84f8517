package limits

import (
	"strings"
	"sync"
	"time"
)

// template holds the child partitions of a per_child rule: each direct child
// of the rule's subject gets its own counter, created on first use.
type template struct {
	mu sync.RWMutex
	// gen is the generation given to new partitions (see persist.go).
	gen   uint64
	parts map[string]*counter
	// sid is the rule's shared name; partitions append their child.
	sid string
}

// newTemplate returns an empty template whose partitions start at gen.
func newTemplate(gen uint64, sid string) *template {
	return &template{gen: gen, parts: make(map[string]*counter), sid: sid}
}

// lookup returns child's partition or nil, without creating it.
func (t *template) lookup(child string) *counter {
	t.mu.RLock()
	c := t.parts[child]
	t.mu.RUnlock()
	return c
}

// partition returns child's partition, creating it (and copying child, which
// may point into a request's memory) on first use.
func (t *template) partition(child string, period time.Duration) *counter {
	if c := t.lookup(child); c != nil {
		return c
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if c := t.parts[child]; c != nil {
		return c
	}
	c := newCounter(period, strings.Clone(child), t.gen)
	c.sid = sharedCounterID(t.sid, c.child)
	t.parts[c.child] = c
	return c
}

// list appends every partition to buf.
func (t *template) list(buf []*counter) []*counter {
	t.mu.RLock()
	for _, c := range t.parts {
		buf = append(buf, c)
	}
	t.mu.RUnlock()
	return buf
}

// len is the number of live partitions.
func (t *template) len() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.parts)
}

// clear empties every partition's windows and stamps gen on them and on
// partitions created later. In-flight gauges are kept: their slots are
// released when the requests finish.
func (t *template) clear(gen uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.gen = gen
	for _, c := range t.parts {
		c.mu.Lock()
		c.clear(gen)
		c.mu.Unlock()
	}
}

// evict removes partitions nobody holds whose windows have fully decayed
// (gauges: idle for at least idleGauge) and returns their child names. An
// evicted partition is marked dead under its mutex, so an admission that
// looked it up just before retries with a fresh one.
func (t *template) evict(now int64, idleGauge time.Duration) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var gone []string
	for child, c := range t.parts {
		c.mu.Lock()
		if c.idle(now, idleGauge) {
			c.dead = true
			delete(t.parts, child)
			gone = append(gone, child)
		}
		c.mu.Unlock()
	}
	return gone
}

// idle reports whether c holds nothing worth keeping. Caller holds c.mu.
func (c *counter) idle(now int64, idleGauge time.Duration) bool {
	if c.inFlight.Load() != 0 {
		return false
	}
	if c.gauge() {
		return now-c.lastUsed >= int64(idleGauge)
	}
	req, tok := c.peek(now)
	return req.used() == 0 && tok.used() == 0
}
