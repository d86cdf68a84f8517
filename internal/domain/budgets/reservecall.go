package budgets

import (
	"context"
	"strconv"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// ReserveCall is the SpendStore call of a Reserve, prepared by
// Tracker.PrepareReserve so that the caller can make it in the same
// round trip as another call to the same backend (a rate-limit
// admission); Tracker.FinishReserve completes the reservation from its
// answer, or makes the call itself when nobody did.
type ReserveCall struct {
	// Store is the store the call is for.
	Store SpendStore
	// Cells, Limits, ID, Amount and Lease are SpendStore.Reserve's
	// arguments.
	Cells  []SpendCell
	Limits []catalog.Nanos
	ID     string
	Amount catalog.Nanos
	Lease  time.Duration

	// Refused and Err are SpendStore.Reserve's answer, set by whoever
	// makes the call.
	Refused []int
	Err     error
	// Undone reports that the call was made together with another in
	// one atomic step (a rate-limit admission) which refused, so that
	// the reservation was given back at once: the request goes on
	// holding nothing, to be refused by the other.
	Undone bool

	t    *Tracker
	s    *snapshot
	sh   *shared
	path string
	now  time.Time
	ms   []match
	seen int64 // sh.restores before the call
}

// PrepareReserve prepares Reserve's call to the SpendStore for a request
// on userPath (normalized) at now whose cost is at most amount. It
// returns nil when Reserve would not ask the store (no SpendStore, the
// store is in its back-off after a failure, no budget covers userPath):
// the caller then calls Reserve.
func (t *Tracker) PrepareReserve(userPath string, amount catalog.Nanos, now time.Time) *ReserveCall {
	sh := t.sh
	if sh == nil {
		return nil
	}
	s := t.snap.Load()
	if len(s.list) == 0 || !sh.up() {
		return nil
	}
	n := now.UnixNano()
	ms := s.matches(nil, userPath, n, now)
	if len(ms) == 0 {
		return nil
	}
	c := &ReserveCall{Store: sh.st, Cells: cells(ms), Limits: make([]catalog.Nanos, len(ms)),
		ID: t.resvID + strconv.FormatUint(t.resvs.Add(1), 36), Amount: max(amount, 0), Lease: t.lease,
		t: t, s: s, sh: sh, path: userPath, now: now, ms: ms, seen: sh.restores.Load()}
	for i, m := range ms {
		c.Limits[i] = m.e.limit
	}
	return c
}

// FinishReserve completes the reservation of c, answering as Reserve
// does. made reports that the caller made c's call (Refused and Err hold
// its answer); otherwise FinishReserve makes it. When the store lost its
// windows, they are rebuilt and the call made again; when it failed,
// the request is reserved in memory.
func (t *Tracker) FinishReserve(c *ReserveCall, made bool) (r Reservation, ok bool, retryAfter time.Duration, which *Budget) {
	sh := c.sh
	if !made {
		_, c.Err = sh.timed(c.run)
	}
	_, c.Err = sh.againIfLost(c.seen, nil, c.Err, c.run)
	if c.Err != nil {
		sh.fail("reserve", c.Err)
		return t.reserveLocal(c.s, c.path, c.Amount, c.now)
	}
	sh.ok()
	if c.Undone {
		return Reservation{}, true, 0, nil
	}
	if len(c.Refused) == 0 {
		return Reservation{t: t, s: c.s, path: c.path, amount: c.Amount, id: c.ID}, true, 0, nil
	}
	n := c.now.UnixNano()
	var worst *entry
	var wait int64
	for _, i := range c.Refused {
		if i < 0 || i >= len(c.ms) {
			continue
		}
		if m := c.ms[i]; worst == nil || m.w.end-n > wait {
			worst, wait = m.e, m.w.end-n
		}
	}
	if worst == nil {
		worst, wait = c.ms[0].e, c.ms[0].w.end-n
	}
	return Reservation{}, false, time.Duration(wait), &worst.b
}

// run makes c's call to its store with ctx, keeping its answer in
// Refused; it returns the call's error (and no totals).
func (c *ReserveCall) run(ctx context.Context) ([]float64, error) {
	var err error
	c.Refused, err = c.Store.Reserve(ctx, c.Cells, c.Limits, c.ID, c.Amount, c.Lease)
	return nil, err
}
