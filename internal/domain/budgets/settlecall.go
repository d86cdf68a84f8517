package budgets

import (
	"context"
	"math"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// SettleCall is the SpendStore call that settles a reservation held in
// the store, prepared by Reservation.PrepareSettle so that the caller
// can make it in the same round trip as another call to the same backend
// (a rate-limit release); Finish completes the settlement from its
// answer, or makes the call itself when nobody did.
type SettleCall struct {
	// Store is the store the call is for.
	Store SpendStore
	// Cells, ID and Costs are SpendStore.Settle's arguments.
	Cells []SpendCell
	ID    string
	Costs []float64

	// Got and Err are SpendStore.Settle's answer, set by whoever makes
	// the call.
	Got []float64
	Err error

	t    *Tracker
	sh   *shared
	path string
	rid  RequestID
	cost float64
	ms   []match
	seen int64 // sh.restores before the call
}

// PrepareSettle empties r as Settle does and returns the store call that
// settles it with cost at at, or nil when r is not held in a SpendStore:
// then it has been settled already (in memory, or it held nothing).
// The caller must make the call, or have it made, and then call Finish.
func (r *Reservation) PrepareSettle(cost float64, at time.Time) *SettleCall {
	if r.t == nil || r.id == "" || r.t.sh == nil {
		r.Settle(cost, at)
		return nil
	}
	t, path, id, rid := r.t, r.path, r.id, r.rid
	*r = Reservation{}
	return t.prepareSettle(t.sh, path, id, rid, positiveCost(cost), at)
}

// positiveCost maps NaN, +Inf and costs not above 0 to 0, as Settle does.
func positiveCost(cost float64) float64 {
	if !(cost > 0) || math.IsInf(cost, 1) {
		return 0
	}
	return cost
}

// prepareSettle returns the store call settling reservation id of
// request rid on path with cost at at (nil when no budget covers path any
// longer).
func (t *Tracker) prepareSettle(sh *shared, path, id string, rid RequestID, cost float64, at time.Time) *SettleCall {
	s := t.snap.Load()
	n := at.UnixNano()
	ms := s.matches(nil, path, n, at)
	if len(ms) == 0 {
		return nil
	}
	c := &SettleCall{Store: sh.st, Cells: cells(ms), ID: id, Costs: make([]float64, len(ms)),
		t: t, sh: sh, path: path, rid: rid, cost: cost, ms: ms, seen: sh.restores.Load()}
	for i, m := range ms {
		if n >= m.e.reset {
			c.Costs[i] = cost
		}
	}
	return c
}

// Finish completes the settlement of c. made reports that the caller
// made c's call (Got and Err hold its answer); otherwise Finish makes
// it, unless the store is in its back-off after a failure. The store's
// new totals become this process's spend; when the call failed, the cost
// is added in memory and owed to the store, whose lease gives the
// reservation back.
func (c *SettleCall) Finish(made bool) {
	sh := c.sh
	run := func(ctx context.Context) ([]float64, error) {
		return c.Store.Settle(ctx, c.Cells, c.ID, c.Costs)
	}
	if !made {
		c.Err = errSkipped
		if sh.up() {
			c.Got, c.Err = sh.timed(run)
			made = true
		}
	}
	if made {
		c.Got, c.Err = sh.againIfLost(c.seen, c.Got, c.Err, run)
	}
	err := c.Err
	if err == nil && len(c.Got) != len(c.ms) {
		err = errOr(nil, len(c.Got), len(c.ms))
	}
	if made {
		if err != nil {
			sh.fail("settle", err)
		} else {
			sh.ok()
		}
	}
	if err != nil && c.cost > 0 {
		var charged []SpendCell
		for i, m := range c.ms {
			if c.Costs[i] != 0 {
				charged = append(charged, m.cell)
			}
		}
		sh.owe(charged, c.rid, c.cost)
	}
	for i, m := range c.ms {
		if err != nil && c.Costs[i] == 0 {
			continue
		}
		for {
			cl, _ := m.e.cellFor(m.anc, c.path, true)
			var alive bool
			if err != nil {
				alive = cl.add(m.w.start, catalog.NanosOf(c.Costs[i]))
			} else {
				alive = cl.sync(m.w.start, c.Got[i])
			}
			if alive {
				break
			}
		}
	}
}
