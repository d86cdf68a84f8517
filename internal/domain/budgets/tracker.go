package budgets

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// Tracker keeps the running spend of every budget in memory and answers
// whether a request may proceed. Check and Charge are safe for concurrent
// use, lock-free on the budget list and allocation-free once a child of a
// template has been charged; the other methods serialise among
// themselves.
type Tracker struct {
	snap atomic.Pointer[snapshot]

	mu     sync.Mutex // serialises Set, Reset, Rebuild and Sweep
	groups map[Key]*group

	sh *shared // nil: spend in memory only (see ShareSpend)

	lease  time.Duration // of reservations held in a SpendStore
	resvs  atomic.Uint64 // reservations named in the SpendStore
	resvID string        // this tracker's prefix of reservation names
}

// snapshot is an immutable view of the budgets and settings, indexed by
// user path. Changes build a new one and swap it in.
type snapshot struct {
	settings Settings
	paths    map[string][]*entry
	// lens has bit n set when some budget path is n bytes long (n < 256;
	// longer paths set bit 0), so other ancestors are not looked up.
	lens  [4]uint64
	list  []*entry // sorted by user path, then period
	byKey map[Key]*entry
}

// entry is one budget of a snapshot with its spend group and a cache of
// its current window.
type entry struct {
	b        Budget
	g        *group
	settings Settings
	reset    int64         // LastResetAt in unix nanos, or math.MinInt64
	limit    catalog.Nanos // b.Amount in nanos, for reservations
	cur      atomic.Pointer[span]
}

// span is a window in unix nanoseconds.
type span struct{ start, end int64 }

// NewTracker returns a Tracker with no budgets and DefaultSettings.
func NewTracker() *Tracker {
	t := &Tracker{groups: map[Key]*group{}, lease: DefaultReservationLease, resvID: newReservationPrefix()}
	t.snap.Store(newSnapshot(DefaultSettings(), nil))
	return t
}

// newSnapshot indexes entries.
func newSnapshot(s Settings, entries []*entry) *snapshot {
	sn := &snapshot{
		settings: s,
		paths:    map[string][]*entry{},
		list:     entries,
		byKey:    make(map[Key]*entry, len(entries)),
	}
	slices.SortFunc(sn.list, func(a, b *entry) int {
		if c := cmp.Compare(a.b.UserPath, b.b.UserPath); c != 0 {
			return c
		}
		if c := cmp.Compare(a.b.Period.Seconds(), b.b.Period.Seconds()); c != 0 {
			return c
		}
		return cmp.Compare(a.b.Period, b.b.Period) // named before custom
	})
	for _, e := range sn.list {
		p := e.b.UserPath
		sn.paths[p] = append(sn.paths[p], e)
		sn.byKey[e.b.Key()] = e
		n := len(p)
		if n >= 256 {
			n = 0
		}
		sn.lens[n/64] |= 1 << (n % 64)
	}
	return sn
}

// at returns the budgets on path anc, skipping the map lookup when no
// budget path has anc's length.
func (s *snapshot) at(anc string) []*entry {
	n := len(anc)
	if n >= 256 {
		n = 0
	}
	if s.lens[n/64]&(1<<(n%64)) == 0 {
		return nil
	}
	return s.paths[anc]
}

// window returns the entry's period containing n (= at in unix nanos),
// from the cache when it holds n.
func (e *entry) window(n int64, at time.Time) span {
	if w := e.cur.Load(); w != nil && n >= w.start && n < w.end {
		return *w
	}
	return e.roll(at)
}

// roll computes the window of at and caches it when it is newer than the
// cached one (a late charge does not move the cache back).
func (e *entry) roll(at time.Time) span {
	win := e.settings.Window(e.b.Period, at)
	w := &span{win.Start.UnixNano(), win.End.UnixNano()}
	if old := e.cur.Load(); old == nil || w.start > old.start {
		e.cur.CompareAndSwap(old, w)
	}
	return *w
}

// cellFor returns the cell a caller on path charges for e (a budget on
// anc): the budget's own, or the caller's child of a template (created
// when create is set; nil otherwise when it has none yet). ok is false
// when a template does not apply (path is the template path itself).
func (e *entry) cellFor(anc, path string, create bool) (c *cell, ok bool) {
	if !e.g.perChild {
		return e.g.agg, true
	}
	seg, ok := childSegment(anc, path)
	if !ok {
		return nil, false
	}
	if create {
		return e.g.child(seg), true
	}
	return e.g.lookup(seg), true
}

// Check reports whether a request on userPath (normalized) may proceed at
// now: it may not while any budget covering userPath (for a template, the
// caller's child) has spent at least its amount in the current period.
// When refused, which is the exhausted budget whose period ends last and
// retryAfter the time until that end; the caller must not modify *which.
// Check charges nothing and, with the spend in memory, allocates nothing;
// with a SpendStore (ShareSpend) it reads the store in one call and falls
// back to memory when that fails.
func (t *Tracker) Check(userPath string, now time.Time) (ok bool, retryAfter time.Duration, which *Budget) {
	s := t.snap.Load()
	if len(s.list) == 0 {
		return true, 0, nil
	}
	if sh := t.sh; sh != nil && sh.up() {
		if ok, wait, which, done := t.checkShared(sh, s, userPath, now); done {
			return ok, wait, which
		}
	}
	n := now.UnixNano()
	var worst *entry
	var wait int64
	check := func(anc string) {
		for _, e := range s.at(anc) {
			c, applies := e.cellFor(anc, userPath, false)
			if !applies {
				continue
			}
			w := e.window(n, now)
			spent := 0.0
			if c != nil {
				spent = c.read(w.start)
			}
			if spent >= e.b.Amount && (worst == nil || w.end-n > wait) {
				worst, wait = e, w.end-n
			}
		}
	}
	check("/")
	for i := 2; i <= len(userPath); i++ {
		if i == len(userPath) || userPath[i] == '/' {
			check(userPath[:i])
		}
	}
	if worst != nil {
		return false, time.Duration(wait), &worst.b
	}
	return true, 0, nil
}

// Charge adds cost (USD) to every budget covering userPath (normalized),
// for a template to the caller's child, in the period containing at (the
// moment the response completed). Costs that are not positive and finite
// are ignored, and so is a charge dated before a budget's last reset or
// in a period that has already rolled over.
func (t *Tracker) Charge(userPath string, cost float64, at time.Time) {
	t.ChargeFor(userPath, RequestID{}, cost, at)
}

// ChargeFor is Charge for the request whose usage record is id (zero:
// unknown). With a SpendStore that is unreachable, the charge is kept
// with id and handed over once the store answers, unless the usage
// records the store was rebuilt from meanwhile count id already.
func (t *Tracker) ChargeFor(userPath string, id RequestID, cost float64, at time.Time) {
	if !(cost > 0) || math.IsInf(cost, 1) {
		return
	}
	s := t.snap.Load()
	if len(s.list) == 0 {
		return
	}
	if sh := t.sh; sh != nil {
		t.chargeShared(sh, s, userPath, id, cost, at)
		return
	}
	nc := catalog.NanosOf(cost)
	n := at.UnixNano()
	charge := func(anc string) {
		for _, e := range s.at(anc) {
			if n < e.reset {
				continue
			}
			w := e.window(n, at)
			for {
				c, applies := e.cellFor(anc, userPath, true)
				if !applies || c.add(w.start, nc) {
					break
				}
			}
		}
	}
	charge("/")
	for i := 2; i <= len(userPath); i++ {
		if i == len(userPath) || userPath[i] == '/' {
			charge(userPath[:i])
		}
	}
}

// Set replaces the budgets and settings. Budgets whose key and per_child
// stay and whose current period (at now) is unchanged keep their spend;
// the others start from no spend and are listed in fresh, for the caller
// to rebuild (RebuildKeys). Budgets must be normalized; a duplicate key
// is an error.
func (t *Tracker) Set(list []Budget, settings Settings, now time.Time) (fresh []Key, err error) {
	if err := settings.Validate(); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	old := t.snap.Load()
	groups := make(map[Key]*group, len(list))
	entries := make([]*entry, 0, len(list))
	for _, b := range list {
		k := b.Key()
		if _, dup := groups[k]; dup {
			return nil, fmt.Errorf("%w: %s defined twice", ErrInvalidBudget, k)
		}
		g := t.groups[k]
		if g == nil || g.perChild != b.PerChild ||
			!old.settings.Window(b.Period, now).Equal(settings.Window(b.Period, now)) {
			g = newGroup(b.PerChild)
			fresh = append(fresh, k)
		}
		groups[k] = g
		entries = append(entries, newEntry(b, g, settings))
	}
	t.groups = groups
	t.snap.Store(newSnapshot(settings, entries))
	return fresh, nil
}

// newEntry builds a snapshot entry.
func newEntry(b Budget, g *group, s Settings) *entry {
	e := &entry{b: b, g: g, settings: s, reset: math.MinInt64, limit: catalog.NanosOf(b.Amount)}
	if !b.LastResetAt.IsZero() {
		e.reset = b.LastResetAt.UnixNano()
	}
	return e
}

// Budgets returns the tracked budgets, sorted by user path then period.
func (t *Tracker) Budgets() []Budget {
	s := t.snap.Load()
	out := make([]Budget, len(s.list))
	for i, e := range s.list {
		out[i] = e.b
	}
	return out
}

// Settings returns the anchors in use.
func (t *Tracker) Settings() Settings { return t.snap.Load().settings }

// Reset sets the last reset of budget k to at and clears its spend (every
// child of a template). It fails with ErrNotFound for an unknown key.
func (t *Tracker) Reset(k Key, at time.Time) error {
	return t.reset(at, false, k)
}

// ResetAll resets every budget at at.
func (t *Tracker) ResetAll(at time.Time) {
	_ = t.reset(at, true, Key{})
}

// reset resets every budget (all) or the one of key k; an unknown k fails
// with ErrNotFound.
func (t *Tracker) reset(at time.Time, all bool, k Key) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.snap.Load()
	entries := make([]*entry, len(s.list))
	var hit []*entry
	for i, e := range s.list {
		if all || e.b.Key() == k {
			b := e.b
			b.LastResetAt = at
			entries[i] = newEntry(b, e.g, s.settings)
			hit = append(hit, entries[i])
		} else {
			entries[i] = newEntry(e.b, e.g, s.settings)
		}
	}
	if !all && len(hit) == 0 {
		return notFound(k)
	}
	t.snap.Store(newSnapshot(s.settings, entries))
	n := at.UnixNano()
	for _, e := range hit {
		w := e.window(n, at)
		e.g.zero(w.start)
		if t.sh != nil {
			t.clearShared(t.sh, e, w)
		}
	}
	return nil
}

// Sweep forgets the template children with no spend in their budget's
// current period at now, and returns how many it dropped. Call it now and
// then to bound memory; a dropped child reappears when it is charged.
func (t *Tracker) Sweep(now time.Time) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, e := range t.snap.Load().list {
		if e.g.perChild {
			n += e.g.sweep(e.window(now.UnixNano(), now).start)
		}
	}
	return n
}

// Spent is the spend of budget k in its period containing now, for a
// caller on userPath: for a template, the spend of the caller's child (0
// when userPath is not below the template). It fails with ErrNotFound for
// an unknown key.
func (t *Tracker) Spent(k Key, userPath string, now time.Time) (float64, error) {
	e := t.snap.Load().byKey[k]
	if e == nil {
		return 0, notFound(k)
	}
	t.refresh([]*entry{e}, now)
	return e.spent(userPath, now), nil
}

// spent is the entry's spend for a caller on userPath at now.
func (e *entry) spent(userPath string, now time.Time) float64 {
	c, ok := e.cellFor(e.b.UserPath, userPath, false)
	if !ok || c == nil {
		return 0
	}
	return c.read(e.window(now.UnixNano(), now).start)
}

// ChildSpend returns, for template k, the spend of every child with spend
// in the period containing now, by child path ("/customers/alice"); nil
// for a budget that is not a template. It fails with ErrNotFound for an
// unknown key.
func (t *Tracker) ChildSpend(k Key, now time.Time) (map[string]float64, error) {
	e := t.snap.Load().byKey[k]
	if e == nil {
		return nil, notFound(k)
	}
	t.refresh([]*entry{e}, now)
	return e.childSpend(now), nil
}

// childSpend lists the children of a template with spend at now.
func (e *entry) childSpend(now time.Time) map[string]float64 {
	if !e.g.perChild {
		return nil
	}
	start := e.window(now.UnixNano(), now).start
	out := map[string]float64{}
	e.g.mu.RLock()
	defer e.g.mu.RUnlock()
	for seg, c := range e.g.kids {
		if v := c.read(start); v > 0 {
			out[childPath(e.b.UserPath, seg)] = v
		}
	}
	return out
}
