package budgets

import (
	"crypto/rand"
	"encoding/hex"
	"math"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// DefaultReservationLease is how long a SpendStore holds a reservation
// that is never settled (its process died): after it, the reservation no
// longer counts against the budgets.
const DefaultReservationLease = 10 * time.Minute

// Reservation is the worst-case cost of one request, held against every
// budget covering its caller from its admission (Tracker.Reserve) until
// Settle replaces it with the real cost, or releases it when the request
// failed or was cancelled. The zero Reservation holds nothing; Settle on
// it does nothing. A Reservation is settled once: Settle empties it.
type Reservation struct {
	t      *Tracker
	s      *snapshot // the budgets it was made against
	path   string
	amount catalog.Nanos
	id     string    // the SpendStore's name of it; "" when held in memory
	rid    RequestID // the request's usage record (SetRequest); zero when unknown
}

// SetRequest names the request's usage record, for a charge Settle keeps
// while the SpendStore is unreachable (see Tracker.ChargeFor).
func (r *Reservation) SetRequest(id RequestID) { r.rid = id }

// Held reports whether r holds a reservation not yet settled.
func (r *Reservation) Held() bool { return r.t != nil }

// Amount is the reserved worst-case cost in USD (0 when nothing is held).
func (r *Reservation) Amount() float64 { return r.amount.Float() }

// newReservationPrefix names a tracker's reservations apart from every
// other process's.
func newReservationPrefix() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:]) + ":"
}

// SetReservationLease sets how long the SpendStore holds a reservation
// this tracker never settles (its process died); 0 or less restores
// DefaultReservationLease. Call it before t is used.
func (t *Tracker) SetReservationLease(d time.Duration) {
	if d <= 0 {
		d = DefaultReservationLease
	}
	t.lease = d
}

// each calls f with every budget covering userPath (for a template, the
// budgets whose child the caller is on), root first, and stops when f
// returns false.
func (s *snapshot) each(userPath string, f func(anc string, e *entry) bool) {
	visit := func(anc string) bool {
		for _, e := range s.at(anc) {
			if e.g.perChild {
				if _, ok := childSegment(anc, userPath); !ok {
					continue
				}
			}
			if !f(anc, e) {
				return false
			}
		}
		return true
	}
	if !visit("/") {
		return
	}
	for i := 2; i <= len(userPath); i++ {
		if i == len(userPath) || userPath[i] == '/' {
			if !visit(userPath[:i]) {
				return
			}
		}
	}
}

// Reserve admits a request on userPath (normalized) at now whose cost is
// at most amount, and holds amount against every budget covering the
// caller until the returned Reservation is settled. It refuses the
// request when, for some covering budget, the spend has reached the cap
// or the spend plus the reservations held plus amount would pass it;
// then which is the refusing budget whose period ends last and
// retryAfter the time until that end (the caller must not modify
// *which). Check and reserve are one atomic step per budget, so requests
// admitted concurrently never reserve past a cap together. With the
// spend in memory Reserve allocates nothing; with a SpendStore
// (ShareSpend) the step is one call to the store, whose reservations
// expire after the lease (SetReservationLease) if never settled, and
// Reserve falls back to memory when the store fails.
func (t *Tracker) Reserve(userPath string, amount catalog.Nanos, now time.Time) (r Reservation, ok bool, retryAfter time.Duration, which *Budget) {
	if c := t.PrepareReserve(userPath, amount, now); c != nil {
		return t.FinishReserve(c, false)
	}
	return t.reserveLocal(t.snap.Load(), userPath, max(amount, 0), now)
}

// reserveLocal is Reserve in this process's memory.
func (t *Tracker) reserveLocal(s *snapshot, userPath string, amount catalog.Nanos, now time.Time) (r Reservation, ok bool, retryAfter time.Duration, which *Budget) {
	if len(s.list) == 0 {
		return Reservation{}, true, 0, nil
	}
	n := now.UnixNano()
	held := 0
	var first *entry
	s.each(userPath, func(anc string, e *entry) bool {
		w := e.window(n, now)
		for {
			c, _ := e.cellFor(anc, userPath, true)
			fits, alive := c.reserve(w.start, amount, e.limit)
			if !alive {
				continue
			}
			if !fits {
				first = e
				return false
			}
			held++
			return true
		}
	})
	if first == nil {
		return Reservation{t: t, s: s, path: userPath, amount: amount}, true, 0, nil
	}
	s.release(userPath, amount, held)
	worst, wait := first, first.window(n, now).end-n
	s.each(userPath, func(anc string, e *entry) bool {
		c, _ := e.cellFor(anc, userPath, false)
		w := e.window(n, now)
		if c != nil && !c.fits(w.start, amount, e.limit) && w.end-n > wait {
			worst, wait = e, w.end-n
		}
		return true
	})
	return Reservation{}, false, time.Duration(wait), &worst.b
}

// release gives amount back to the cells of the first k budgets covering
// userPath (k < 0: all of them).
func (s *snapshot) release(userPath string, amount catalog.Nanos, k int) {
	s.each(userPath, func(anc string, e *entry) bool {
		if k == 0 {
			return false
		}
		k--
		if c, _ := e.cellFor(anc, userPath, false); c != nil {
			c.settle(0, amount, 0)
		}
		return true
	})
}

// Settle replaces the reservation with the request's real cost (USD,
// charged as Tracker.Charge does, at at, the moment the request
// completed), or releases it with cost 0 (a request that failed, was
// cancelled or whose client went away before it cost anything). Only the
// first call acts.
func (r *Reservation) Settle(cost float64, at time.Time) {
	t, s, path, amount, id, rid := r.t, r.s, r.path, r.amount, r.id, r.rid
	if t == nil {
		return
	}
	*r = Reservation{}
	if !(cost > 0) || math.IsInf(cost, 1) {
		cost = 0
	}
	switch {
	case id != "":
		t.settleShared(t.sh, path, id, rid, cost, at)
	case t.sh == nil && s == t.snap.Load():
		n := at.UnixNano()
		nc := catalog.NanosOf(cost)
		s.each(path, func(anc string, e *entry) bool {
			charge := nc
			if n < e.reset {
				charge = 0
			}
			w := e.window(n, at)
			for {
				c, _ := e.cellFor(anc, path, true)
				if c.settle(w.start, amount, charge) {
					return true
				}
			}
		})
	default:
		// The budgets changed since admission (or the reservation was
		// held in memory while the store failed): charge the budgets of
		// now, then give the reservation back where it was made.
		t.ChargeFor(path, rid, cost, at)
		s.release(path, amount, -1)
	}
}

// reserve holds amount in the cell when the spend of the window starting
// at start plus the reservations plus amount stays within limit (and the
// spend has not reached it). alive is false when the cell was swept and
// the caller must use a fresh one.
func (c *cell) reserve(start int64, amount, limit catalog.Nanos) (fits, alive bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead {
		return false, false
	}
	if !c.fitsLocked(start, amount, limit) {
		return false, true
	}
	c.reserved.Store(int64(catalog.Nanos(c.reserved.Load()).Add(amount)))
	return true, true
}

// fits reports, without holding anything, whether amount would fit.
func (c *cell) fits(start int64, amount, limit catalog.Nanos) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fitsLocked(start, amount, limit)
}

// fitsLocked is fits; the caller holds mu.
func (c *cell) fitsLocked(start int64, amount, limit catalog.Nanos) bool {
	spent := catalog.Nanos(0)
	if c.start.Load() >= start {
		spent = catalog.Nanos(c.spent.Load())
	}
	return spent < limit && spent.Add(catalog.Nanos(c.reserved.Load())).Add(amount) <= limit
}

// settle gives back release of the reservations held and charges cost to
// the window starting at start, in one step (see add). It reports false
// when the cell was swept and the caller must use a fresh one.
func (c *cell) settle(start int64, release, cost catalog.Nanos) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead {
		return false
	}
	c.reserved.Store(max(c.reserved.Load()-int64(release), 0))
	if cost != 0 {
		c.chargeLocked(start, cost)
	}
	return true
}

// Reserved is the sum of the reservations held on budget k for a caller
// on userPath (for a template, the caller's child) in this process's
// memory, in USD: the reservations a SpendStore holds are not counted.
// It fails with ErrNotFound for an unknown key.
func (t *Tracker) Reserved(k Key, userPath string) (float64, error) {
	e := t.snap.Load().byKey[k]
	if e == nil {
		return 0, notFound(k)
	}
	c, ok := e.cellFor(e.b.UserPath, userPath, false)
	if !ok || c == nil {
		return 0, nil
	}
	return catalog.Nanos(c.reserved.Load()).Float(), nil
}

// settleShared settles reservation id in the store: it is
// released in every cell of the budgets covering path and cost charged
// to those not reset after at, in one call, and the store's new totals
// become this process's spend. When the store fails the cost is added in
// memory and owed to the store, whose lease gives the reservation back.
func (t *Tracker) settleShared(sh *shared, path, id string, rid RequestID, cost float64, at time.Time) {
	if c := t.prepareSettle(sh, path, id, rid, cost, at); c != nil {
		c.Finish(false)
	}
}
