package budgets

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// ErrNotTemplate is returned when an operation on the children of a
// template names a budget that is not per_child (HTTP 400).
var ErrNotTemplate = errors.New("budget is not a per_child template")

// Child is one child of a per_child template in the template's current
// period: its own spend against the template's amount.
type Child struct {
	// UserPath is the child's path ("/customers/alice").
	UserPath string `json:"user_path"`
	// Spent is the child's spend in the current period since the later
	// of its start, the template's last reset and the child's own.
	Spent catalog.Amount `json:"spent"`
	// Amount is the template's cap, which each child has on its own.
	Amount catalog.Amount `json:"amount"`
	// Remaining is Amount minus Spent, at least 0.
	Remaining catalog.Amount `json:"remaining"`
	// Exhausted reports a spend at or past Amount: the child's requests
	// are refused until the period ends or the child is reset.
	Exhausted bool `json:"exhausted"`
	// InFlight is the sum (USD) of the reservations the child's requests
	// in flight hold; absent when it cannot be read (a shared spend store
	// that does not report reservations, or that failed).
	InFlight *catalog.Amount `json:"in_flight,omitempty"`
	// PeriodStart is the start of the current period.
	PeriodStart time.Time `json:"period_start"`
	// PeriodEnd is its end.
	PeriodEnd time.Time `json:"period_end"`

	// spent is Spent in Nanos, for ordering.
	spent catalog.Nanos
}

// SpentNanos is the child's spend in nano-USD, the key children are
// ordered by.
func (c Child) SpentNanos() catalog.Nanos { return c.spent }

// ReservationReader is what a SpendStore may also implement to report the
// reservations its cells hold (the in_flight of a template's children).
type ReservationReader interface {
	// Reserved returns, in order, the sum of the live reservations
	// (leases not expired) each cell holds.
	Reserved(ctx context.Context, cells []SpendCell) ([]catalog.Nanos, error)
}

// ChildClearer is what a SpendStore may also implement to reset one child
// of a template window: the child's spend is dropped and the window stays
// held. Without it, resetting one child in a shared store fails.
type ChildClearer interface {
	// ClearChild drops cell c of its window, keeping the window held.
	ClearChild(ctx context.Context, c SpendCell) error
}

// errNoChildClear is the error of a child reset over a SpendStore that
// cannot clear one child.
var errNoChildClear = errors.New("budgets: the shared spend store cannot reset one child of a template")

// templateEntry returns the entry of template k, ErrNotFound or
// ErrNotTemplate.
func (t *Tracker) templateEntry(k Key) (*entry, error) {
	e := t.snap.Load().byKey[k]
	if e == nil {
		return nil, notFound(k)
	}
	if !e.b.PerChild {
		return nil, fmt.Errorf("%w: %s", ErrNotTemplate, k)
	}
	return e, nil
}

// ChildList returns the children of template k with spend, or with a
// reservation held, at now: most spent first, then by path. It fails
// with ErrNotFound for an unknown key and ErrNotTemplate for a budget
// that is not per_child. With a SpendStore the spend of every process is
// read from it (one call) and, when the store reports them, the
// reservations too (one more).
func (t *Tracker) ChildList(k Key, now time.Time) ([]Child, error) {
	e, err := t.templateEntry(k)
	if err != nil {
		return nil, err
	}
	t.refresh([]*entry{e}, now)
	w := e.window(now.UnixNano(), now)
	type kid struct {
		seg      string
		spent    catalog.Nanos
		reserved catalog.Nanos
	}
	var kids []kid
	e.g.mu.RLock()
	for seg, c := range e.g.kids {
		var spent catalog.Nanos
		if c.start.Load() == w.start {
			spent = catalog.NanosOf(c.read(w.start))
		}
		r := catalog.Nanos(c.reserved.Load())
		if spent > 0 || r > 0 {
			kids = append(kids, kid{seg, spent, r})
		}
	}
	e.g.mu.RUnlock()
	var inFlight []catalog.Nanos
	if t.sh == nil {
		inFlight = make([]catalog.Nanos, len(kids))
		for i, c := range kids {
			inFlight[i] = c.reserved
		}
	} else if rr, ok := t.sh.st.(ReservationReader); ok && len(kids) > 0 && t.sh.up() {
		cs := make([]SpendCell, len(kids))
		sw := e.spendWindow(w)
		for i, c := range kids {
			cs[i] = SpendCell{Window: sw, Child: c.seg}
		}
		ctx, cancel := t.sh.ctx()
		got, err := rr.Reserved(ctx, cs)
		cancel()
		if err == nil && len(got) == len(cs) {
			inFlight = got
		}
	}
	win := Window{time.Unix(0, w.start).UTC(), time.Unix(0, w.end).UTC()}
	limit := e.limit
	out := make([]Child, len(kids))
	for i, c := range kids {
		out[i] = Child{
			UserPath:    childPath(e.b.UserPath, c.seg),
			Spent:       catalog.Amount(c.spent.Float()),
			Amount:      catalog.Amount(e.b.Amount),
			Remaining:   catalog.Amount(max(limit-c.spent, 0).Float()),
			Exhausted:   c.spent >= limit,
			PeriodStart: win.Start,
			PeriodEnd:   win.End,
			spent:       c.spent,
		}
		if inFlight != nil {
			a := catalog.Amount(inFlight[i].Float())
			out[i].InFlight = &a
		}
	}
	SortChildren(out)
	return out, nil
}

// SortChildren orders children most spent first, then by path.
func SortChildren(cs []Child) {
	slices.SortFunc(cs, func(a, b Child) int {
		if c := cmp.Compare(b.spent, a.spent); c != 0 {
			return c
		}
		return cmp.Compare(a.UserPath, b.UserPath)
	})
}

// childCounts is how many children of the template entry have spend in
// the window starting at start, and how many of them have reached the
// amount. The caller holds e.g.mu (read).
func (e *entry) childCounts(start int64) (used, exhausted int) {
	for _, c := range e.g.kids {
		if c.start.Load() != start {
			continue
		}
		v := catalog.NanosOf(c.read(start))
		if v <= 0 {
			continue
		}
		used++
		if v >= e.limit {
			exhausted++
		}
	}
	return used, exhausted
}

// ResetChild clears the spend of child (a direct child path of template
// k, "/customers/alice") in the period containing at, in memory and, with
// a SpendStore, in the store; the template's other children keep theirs.
// It fails with ErrNotFound, ErrNotTemplate, ErrInvalidBudget (child is
// not a direct child of k) or the store's error.
func (t *Tracker) ResetChild(k Key, child string, at time.Time) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, err := t.templateEntry(k)
	if err != nil {
		return err
	}
	seg, ok := childSegment(e.b.UserPath, child)
	if !ok || childPath(e.b.UserPath, seg) != child {
		return fmt.Errorf("%w: %s is not a direct child of %s", ErrInvalidBudget, child, e.b.UserPath)
	}
	w := e.window(at.UnixNano(), at)
	if sh := t.sh; sh != nil {
		cc, ok := sh.st.(ChildClearer)
		if !ok {
			return errNoChildClear
		}
		ctx, cancel := sh.ctx()
		err := cc.ClearChild(ctx, SpendCell{Window: e.spendWindow(w), Child: seg})
		cancel()
		if err != nil {
			sh.fail("reset", err)
			return fmt.Errorf("budgets: resetting %s under %s in the shared store: %w", child, k, err)
		}
		sh.ok()
	}
	if c := e.g.lookup(seg); c != nil {
		c.set(w.start, 0)
	}
	return nil
}

// parentKey is the key of the template k.UserPath would be a direct child
// of: the parent path, same period. ok is false for "/".
func parentKey(k Key) (Key, bool) {
	if k.UserPath == "/" || k.UserPath == "" {
		return Key{}, false
	}
	return Key{UserPath: path.Dir(k.UserPath), Period: k.Period}, true
}

// resetChild is ResetOne for a path that has no budget of its own but is
// a direct child of a template with the same period: it stores the
// child's reset mark and clears the child's spend only. handled is false
// when k is no such child. Caller holds s.mu.
func (s *Service) resetChild(k Key, now time.Time) (e Entry, handled bool, err error) {
	pk, ok := parentKey(k)
	if !ok {
		return Entry{}, false, nil
	}
	te := s.tr.snap.Load().byKey[pk]
	if te == nil || !te.b.PerChild {
		return Entry{}, false, nil
	}
	if s.st != nil {
		if err := s.st.PutResets(map[Key]time.Time{k: now}); err != nil {
			return Entry{}, true, fmt.Errorf("budgets: storing the reset of %s: %w", k, err)
		}
	}
	s.resets[k] = now
	if err := s.tr.ResetChild(pk, k.UserPath, now); err != nil {
		return Entry{}, true, err
	}
	s.tr.refresh([]*entry{te}, now)
	return te.callerView(k.UserPath, now), true, nil
}

// ChildList returns the children of template k (see Tracker.ChildList).
func (s *Service) ChildList(k Key) ([]Child, error) {
	k, err := NormalizeKey(k)
	if err != nil {
		return nil, err
	}
	return s.tr.ChildList(k, s.clock())
}

// reapplyChildResets corrects, after the spend of keys was rebuilt from
// the SpendSource (memory only: a SpendStore keeps the child resets
// itself), the children of those templates reset on their own in the
// current period: their spend counts from their reset. Caller holds s.mu.
func (s *Service) reapplyChildResets(keys []Key, now time.Time) error {
	if s.src == nil || s.tr.sh != nil || len(s.resets) == 0 {
		return nil
	}
	snap := s.tr.snap.Load()
	want := map[Key]bool{}
	for _, k := range keys {
		want[k] = true
	}
	var errs []error
	n := now.UnixNano()
	for ck, at := range s.resets {
		pk, ok := parentKey(ck)
		if !ok || (keys != nil && !want[pk]) {
			continue
		}
		e := snap.byKey[pk]
		if e == nil || !e.b.PerChild {
			continue
		}
		w := e.window(n, now)
		since := at.UnixNano()
		if since < w.start || since < e.reset {
			continue // the period, or the template's own reset, is later
		}
		seg, ok := childSegment(e.b.UserPath, ck.UserPath)
		if !ok {
			continue
		}
		got, err := s.src.SpendSince(ck.UserPath, false, at.UTC())
		if err != nil {
			errs = append(errs, fmt.Errorf("budget %s child %s: reading spend: %w", pk, ck.UserPath, err))
			continue
		}
		v := positive(got[ck.UserPath])
		if c := e.g.lookup(seg); c != nil {
			c.set(w.start, v)
		} else if v > 0 {
			e.g.child(seg).set(w.start, v)
		}
	}
	return errors.Join(errs...)
}
