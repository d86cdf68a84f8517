package budgets

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// cell is the spend of one budget, or of one child of a template, in one
// window, in whole billionths of a USD (catalog.Nanos), so that any
// number of charges adds up exactly, as the usage aggregates the spend
// is rebuilt from do. Writers hold mu; readers are lock-free through a
// sequence counter that is odd while a write is under way.
type cell struct {
	mu    sync.Mutex
	seq   atomic.Uint64
	start atomic.Int64 // start (unix nanos) of the window spent belongs to
	spent atomic.Int64 // catalog.Nanos
	// reserved is the sum of the reservations held on the cell
	// (catalog.Nanos), whatever their window: a request in flight is
	// charged in the window it completes in. Written under mu.
	reserved atomic.Int64
	dead     bool // removed from its group by sweep; guarded by mu
}

// read returns the spend in the window starting at start: 0 when the cell
// holds another window.
func (c *cell) read(start int64) float64 {
	for {
		s1 := c.seq.Load()
		if s1&1 != 0 {
			runtime.Gosched() // a write is under way
			continue
		}
		st, v := c.start.Load(), c.spent.Load()
		if c.seq.Load() != s1 {
			runtime.Gosched()
			continue
		}
		if st != start {
			return 0
		}
		return catalog.Nanos(v).Float()
	}
}

// write stores (start, spent). Caller holds mu.
func (c *cell) write(start int64, spent catalog.Nanos) {
	c.seq.Add(1)
	c.start.Store(start)
	c.spent.Store(int64(spent))
	c.seq.Add(1)
}

// add charges cost to the window starting at start. A charge for a window
// older than the cell's is dropped (it belongs to a finished period); a
// newer window replaces the cell's. The spend saturates
// (catalog.Nanos.Add) instead of wrapping. It reports false when the cell
// was swept and the caller must charge a fresh one.
func (c *cell) add(start int64, cost catalog.Nanos) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead {
		return false
	}
	c.chargeLocked(start, cost)
	return true
}

// chargeLocked is add's charge; the caller holds mu and the cell is not
// dead.
func (c *cell) chargeLocked(start int64, cost catalog.Nanos) {
	switch cur := c.start.Load(); {
	case cur == start:
		c.write(start, catalog.Nanos(c.spent.Load()).Add(cost))
	case cur < start:
		c.write(start, cost)
	}
}

// set replaces the cell's window and spend (USD, rounded to Nanos).
func (c *cell) set(start int64, spent float64) {
	c.mu.Lock()
	c.write(start, catalog.NanosOf(spent))
	c.mu.Unlock()
}

// group is the spend of one budget key: one cell, or one per child of a
// template. Groups outlive snapshots, so editing an amount keeps the
// spend.
type group struct {
	perChild bool
	agg      *cell // nil for templates

	mu   sync.RWMutex
	kids map[string]*cell // template children by segment ("alice")
}

// newGroup returns an empty group.
func newGroup(perChild bool) *group {
	if perChild {
		return &group{perChild: true, kids: map[string]*cell{}}
	}
	return &group{agg: &cell{}}
}

// lookup returns the cell of child segment seg, or nil.
func (g *group) lookup(seg string) *cell {
	g.mu.RLock()
	c := g.kids[seg]
	g.mu.RUnlock()
	return c
}

// child returns the cell of seg, creating it (with a copy of seg, which
// may point into a request's memory) on first use.
func (g *group) child(seg string) *cell {
	if c := g.lookup(seg); c != nil {
		return c
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if c := g.kids[seg]; c != nil {
		return c
	}
	c := &cell{}
	g.kids[strings.Clone(seg)] = c
	return c
}

// zero sets every cell of the group to no spend in the window starting at
// start.
func (g *group) zero(start int64) {
	if g.agg != nil {
		g.agg.set(start, 0)
		return
	}
	g.mu.RLock()
	for _, c := range g.kids {
		c.set(start, 0)
	}
	g.mu.RUnlock()
}

// sweep drops the children with no spend in the window starting at start
// and no reservation held, and returns how many it dropped.
func (g *group) sweep(start int64) int {
	if g.agg != nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for seg, c := range g.kids {
		c.mu.Lock()
		if c.reserved.Load() == 0 && (c.start.Load() != start || c.spent.Load() == 0) {
			c.dead = true
			delete(g.kids, seg)
			n++
		}
		c.mu.Unlock()
	}
	return n
}
