package budgets

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// Defaults of the shared spend.
const (
	// DefaultSpendTimeout bounds one call to a SpendStore.
	DefaultSpendTimeout = 300 * time.Millisecond
	// spendRetry is how long the tracker serves from memory after a
	// SpendStore call failed before it tries the store again.
	spendRetry = time.Second
	// maxDebts bounds the charges kept, each with its request, for a
	// store that is down; past it a charge is merged into its cell's sum
	// without its request (handed over without the check that it was not
	// counted already), and past maxDebts merged cells it counts only in
	// this process.
	maxDebts = 4096
)

// errSkipped stands for a store call not made because the store failed
// a moment ago.
var errSkipped = errors.New("budgets: shared spend store skipped after a failure")

// errOr is err, or an error saying the store answered got cells for want.
func errOr(err error, got, want int) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("budgets: the spend store answered %d cells for %d", got, want)
}

// shared is the link of a Tracker to a SpendStore, with the fallback to
// the in-memory cells while the store is unreachable: charges made
// meanwhile are kept as debts (and resets as pending clears) and handed to
// the store once it answers again.
type shared struct {
	st      SpendStore
	log     *zap.Logger
	timeout time.Duration

	downUntil atomic.Int64 // unix nanos before which the store is skipped; 0 when it answers
	down      atomic.Bool  // a failure was logged and no success since
	fallbacks atomic.Int64 // calls served from memory because of the store
	owed      atomic.Int32 // cells in debts and merged, plus len(clears)
	flushing  atomic.Bool
	// handOverAfter (unix nanos) delays the next hand-over after one
	// could not read the usage records; srcDown says that was logged.
	handOverAfter atomic.Int64
	srcDown       atomic.Bool

	// recovered, when set, runs (in the background, before the owed
	// charges are handed over) when the store answers after failing.
	recovered func()
	// src, when a SnapshotSource, tells at hand-over which owed charges
	// a window rebuilt from the usage records already counts.
	src SpendSource

	mu     sync.Mutex
	debts  map[SpendCell][]debt        // charges owed, with their request
	merged map[SpendCell]catalog.Nanos // charges owed past maxDebts, without
	ndebts int                         // entries in debts
	clears map[SpendWindow]struct{}
	// counts of the owed charges merged (past maxDebts), lost (past that
	// too) and found already counted at hand-over, since the last log.
	nmerged, nlost, ncounted int

	// restoreMu makes one caller at a time restore the store after it
	// answered ErrSpendLost; restores counts the restores done, so a
	// caller that waited knows another restored meanwhile.
	restoreMu sync.Mutex
	restores  atomic.Int64
}

// restoring runs call under the store timeout; when the store answers
// ErrSpendLost, it restores the lost windows and runs call once more.
func (sh *shared) restoring(call func(context.Context) ([]float64, error)) ([]float64, error) {
	seen := sh.restores.Load()
	got, err := sh.timed(call)
	return sh.againIfLost(seen, got, err, call)
}

// timed runs call under the store timeout.
func (sh *shared) timed(call func(context.Context) ([]float64, error)) ([]float64, error) {
	ctx, cancel := sh.ctx()
	defer cancel()
	return call(ctx)
}

// againIfLost passes on got and err, the answer of call made when the
// restores count was seen; when it is ErrSpendLost, it restores the lost
// windows (unless another caller did since) and makes call once more.
func (sh *shared) againIfLost(seen int64, got []float64, err error, call func(context.Context) ([]float64, error)) ([]float64, error) {
	if errors.Is(err, ErrSpendLost) && sh.restore(seen) {
		return sh.timed(call)
	}
	return got, err
}

// restore brings back the windows a store lost (ErrSpendLost): the
// recovered hook reseeds every window the store does not hold from the
// usage records, then Restored tells the store they are back. seen is
// the restores count the caller saw before its call failed: when another
// caller restored since, there is nothing left to do. It reports whether
// the caller may try its call again.
func (sh *shared) restore(seen int64) bool {
	sh.restoreMu.Lock()
	defer sh.restoreMu.Unlock()
	if sh.restores.Load() != seen {
		return true
	}
	sh.log.Warn("budgets: the shared spend store lost its budget windows (restarted without its data); rebuilding them from the usage records")
	if sh.recovered != nil {
		sh.recovered()
	}
	ctx, cancel := sh.ctx()
	err := sh.st.Restored(ctx)
	cancel()
	if err != nil {
		sh.fail("restore", err)
		return false
	}
	sh.restores.Add(1)
	return true
}

// ShareSpend makes t keep its spend in st, shared with every process that
// uses the same store: Charge adds to it, Check reads from it, Reset
// clears it and rebuilding trusts it over the SpendSource. While st fails,
// t serves from its in-memory spend (logging a warning once) and hands
// the charges and resets made meanwhile to st when it answers again.
// timeout bounds each call (0: DefaultSpendTimeout). Call it before t is
// used; st nil keeps the spend in memory only.
func (t *Tracker) ShareSpend(st SpendStore, timeout time.Duration, log *zap.Logger) {
	if st == nil {
		t.sh = nil
		return
	}
	if timeout <= 0 {
		timeout = DefaultSpendTimeout
	}
	if log == nil {
		log = zap.NewNop()
	}
	t.sh = &shared{st: st, log: log, timeout: timeout,
		debts: map[SpendCell][]debt{}, merged: map[SpendCell]catalog.Nanos{}, clears: map[SpendWindow]struct{}{}}
}

// ProbeEvery is how often the caller of Probe should run it.
const ProbeEvery = time.Second

// Probe asks the SpendStore whether it has lost its windows (a Redis
// server that restarted without its data) and, when it has, rebuilds
// them from the usage records at once, instead of when a request next
// meets the loss; the charges owed meanwhile are then handed over. A
// store that failed is probed once its pause is over, so its return is
// noticed within ProbeEvery. Without a SpendStore it does nothing.
func (t *Tracker) Probe() {
	sh := t.sh
	if sh == nil {
		return
	}
	if until := sh.downUntil.Load(); until != 0 && (time.Now().UnixNano() < until || !sh.downUntil.CompareAndSwap(until, time.Now().Add(spendRetry).UnixNano())) {
		return
	}
	seen := sh.restores.Load()
	ctx, cancel := sh.ctx()
	lost, err := sh.st.Lost(ctx)
	cancel()
	if err != nil {
		sh.fail("probe", err)
		return
	}
	if lost && !sh.restore(seen) {
		return
	}
	sh.ok()
}

// SpendFallbacks counts the checks, charges and reads served from memory
// because the SpendStore failed or was being skipped after a failure.
func (t *Tracker) SpendFallbacks() int64 {
	if t.sh == nil {
		return 0
	}
	return t.sh.fallbacks.Load()
}

// up reports whether the store may be called now; when not, the call
// counts as a fallback. Once the pause after a failure is over, one
// caller probes the store while the others keep to memory for another
// pause, so a store that is still down delays one request, not a burst.
func (sh *shared) up() bool {
	until := sh.downUntil.Load()
	if until == 0 {
		return true
	}
	now := time.Now().UnixNano()
	if now >= until && sh.downUntil.CompareAndSwap(until, now+int64(spendRetry)) {
		return true
	}
	sh.fallbacks.Add(1)
	return false
}

// ctx returns the context of one store call.
func (sh *shared) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), sh.timeout)
}

// fail records a failed store call: the store is skipped for spendRetry
// and the first failure since the last success is logged.
func (sh *shared) fail(op string, err error) {
	sh.fallbacks.Add(1)
	sh.downUntil.Store(time.Now().Add(spendRetry).UnixNano())
	if sh.down.CompareAndSwap(false, true) {
		sh.log.Warn("budgets: the shared spend store is unreachable; counting spend in this process only until it returns",
			zap.String("op", op), zap.Error(err))
	}
}

// sourceError is a hand-over's failure to read the usage records.
type sourceError struct{ err error }

// Error implements error.
func (e sourceError) Error() string {
	return "budgets: reading which owed charges the usage records count: " + e.err.Error()
}

// sourceDown records that a hand-over could not read the usage records:
// the next waits spendRetry, and the first failure since a success is
// logged.
func (sh *shared) sourceDown(err error) {
	sh.handOverAfter.Store(time.Now().Add(spendRetry).UnixNano())
	if sh.srcDown.CompareAndSwap(false, true) {
		sh.log.Warn("budgets: the usage records cannot be read to hand over the charges kept while the shared spend store was unreachable; they stay kept and are tried again",
			zap.Error(err))
	}
}

// ok records a successful store call and, when charges or resets are
// owed to the store, hands them over in the background.
func (sh *shared) ok() {
	if sh.downUntil.Load() != 0 {
		sh.downUntil.Store(0)
	}
	back := sh.down.CompareAndSwap(true, false)
	if back {
		sh.log.Info("budgets: the shared spend store answers again")
	}
	if (back || sh.owed.Load() > 0 && time.Now().UnixNano() >= sh.handOverAfter.Load()) && sh.flushing.CompareAndSwap(false, true) {
		go sh.flush(back)
	}
}

// debt is a charge owed to the store for one cell.
type debt struct {
	id   RequestID // the request's usage record; zero when unknown
	cost catalog.Nanos
}

// owe keeps cost, charged for request id (zero: unknown), for cells, to
// be handed over once the store answers.
func (sh *shared) owe(cells []SpendCell, id RequestID, cost float64) {
	n := catalog.NanosOf(cost)
	if n <= 0 {
		return
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	for _, c := range cells {
		sh.oweLocked(c, debt{id: id, cost: n})
	}
	sh.setOwed()
}

// oweLocked keeps d for c; the caller holds mu.
func (sh *shared) oweLocked(c SpendCell, d debt) {
	if d.id != (RequestID{}) && sh.ndebts < maxDebts {
		sh.debts[c] = append(sh.debts[c], d)
		sh.ndebts++
		return
	}
	if _, ok := sh.merged[c]; !ok && len(sh.merged) >= maxDebts {
		sh.nlost++
		return
	}
	if d.id != (RequestID{}) {
		sh.nmerged++
	}
	sh.merged[c] = sh.merged[c].Add(d.cost)
}

// setOwed updates owed; the caller holds mu.
func (sh *shared) setOwed() {
	sh.owed.Store(int32(len(sh.debts) + len(sh.merged) + len(sh.clears)))
}

// oweClear keeps the reset of w, to be applied once the store answers;
// the debts of w are dropped (the reset clears them).
func (sh *shared) oweClear(w SpendWindow) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.dropLocked(w)
	sh.clears[w] = struct{}{}
	sh.setOwed()
}

// dropLocked forgets the debts of w; the caller holds mu.
func (sh *shared) dropLocked(w SpendWindow) {
	for c, ds := range sh.debts {
		if c.Window == w {
			sh.ndebts -= len(ds)
			delete(sh.debts, c)
		}
	}
	for c := range sh.merged {
		if c.Window == w {
			delete(sh.merged, c)
		}
	}
}

// dropDebts forgets the debts of w: w was cleared in the store.
func (sh *shared) dropDebts(w SpendWindow) {
	if sh.owed.Load() == 0 {
		return
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.dropLocked(w)
	sh.setOwed()
}

// owedWindow is what this process owes one window: per cell, its
// charges with their request and the merged sum.
type owedWindow struct {
	debts  map[SpendCell][]debt
	merged map[SpendCell]catalog.Nanos
}

// flush hands the pending clears, then the debts, to the store; what
// fails stays owed. back says the store answers after failing: the
// recovered hook runs first. The debts of a window are handed over by
// the rule of handOver.
func (sh *shared) flush(back bool) {
	defer sh.flushing.Store(false)
	if back && sh.recovered != nil {
		sh.recovered()
	}
	sh.mu.Lock()
	clears, debts, merged := sh.clears, sh.debts, sh.merged
	sh.clears, sh.debts, sh.merged, sh.ndebts = map[SpendWindow]struct{}{}, map[SpendCell][]debt{}, map[SpendCell]catalog.Nanos{}, 0
	sh.owed.Store(0)
	nmerged, nlost := sh.nmerged, sh.nlost
	sh.nmerged, sh.nlost = 0, 0
	sh.mu.Unlock()
	if nmerged > 0 || nlost > 0 {
		sh.log.Warn("budgets: more charges were kept for the unreachable spend store than are remembered one by one; those are handed over without the check that the usage records rebuilt since count them already",
			zap.Int("merged", nmerged), zap.Int("lost", nlost), zap.Int("bound", maxDebts))
	}
	byWindow := map[SpendWindow]*owedWindow{}
	win := func(w SpendWindow) *owedWindow {
		o := byWindow[w]
		if o == nil {
			o = &owedWindow{debts: map[SpendCell][]debt{}, merged: map[SpendCell]catalog.Nanos{}}
			byWindow[w] = o
		}
		return o
	}
	for c, ds := range debts {
		win(c.Window).debts[c] = ds
	}
	for c, v := range merged {
		win(c.Window).merged[c] = v
	}
	failed := false
	for w := range clears {
		if failed {
			sh.oweClear(w)
			continue
		}
		ctx, cancel := sh.ctx()
		err := sh.st.Clear(ctx, w)
		cancel()
		if err != nil {
			failed = true
			sh.fail("clear", err)
			sh.oweClear(w)
		}
	}
	for w, o := range byWindow {
		if !failed {
			var se sourceError
			err := sh.handOver(w, o)
			switch {
			case errors.As(err, &se):
				// The usage records cannot be read: the store is fine;
				// the charges wait for the next try, a pause later.
				sh.sourceDown(se.err)
			case err != nil:
				failed = true
				sh.fail("hand over", err)
			default:
				continue
			}
		}
		sh.reowe(o)
	}
}

// reowe keeps o owed again.
func (sh *shared) reowe(o *owedWindow) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	for c, ds := range o.debts {
		for _, d := range ds {
			sh.oweLocked(c, d)
		}
	}
	for c, v := range o.merged {
		sh.oweLocked(c, debt{cost: v})
	}
	sh.setOwed()
}

// handOverTries bounds the hand-overs of one window that find it seeded
// again meanwhile.
const handOverTries = 4

// handOver adds to w what this process owes it. When w was rebuilt from
// the usage records at a snapshot (its mark), a charge whose request's
// usage record that snapshot held is counted there already and is
// dropped; every other charge is added. The mark is checked again in the
// store's atomic add, so a window seeded anew in between is read again.
func (sh *shared) handOver(w SpendWindow, o *owedWindow) error {
	ids := make([]RequestID, 0, len(o.debts))
	seen := map[RequestID]bool{}
	for _, ds := range o.debts {
		for _, d := range ds {
			if !seen[d.id] {
				seen[d.id] = true
				ids = append(ids, d.id)
			}
		}
	}
	snapSrc, _ := sh.src.(SnapshotSource)
	for range handOverTries {
		lostSeen := sh.restores.Load()
		ctx, cancel := sh.ctx()
		mark, err := sh.st.Mark(ctx, w)
		cancel()
		if err != nil {
			return err
		}
		counted := map[RequestID]bool{}
		if snap, ok := strings.CutPrefix(mark, snapshotPrefix); ok && snapSrc != nil && len(ids) > 0 {
			got, err := snapSrc.Counted(ids, snap)
			if err != nil {
				return sourceError{err}
			}
			for _, id := range got {
				counted[id] = true
			}
		}
		spend := map[string]catalog.Nanos{}
		dropped := 0
		for c, ds := range o.debts {
			for _, d := range ds {
				if counted[d.id] {
					dropped++
					continue
				}
				spend[c.Child] = spend[c.Child].Add(d.cost)
			}
		}
		for c, v := range o.merged {
			spend[c.Child] = spend[c.Child].Add(v)
		}
		ctx, cancel = sh.ctx()
		applied, err := sh.st.HandOver(ctx, w, spend, mark)
		cancel()
		if errors.Is(err, ErrSpendLost) {
			if !sh.restore(lostSeen) {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if applied {
			if dropped > 0 {
				sh.log.Info("budgets: charges kept while the shared spend store was unreachable were already counted by the usage records it was rebuilt from; not added again",
					zap.String("budget", w.Budget.UserPath), zap.Int("dropped", dropped))
			}
			sh.mu.Lock()
			sh.ncounted += dropped
			sh.mu.Unlock()
			sh.srcDown.Store(false)
			return nil
		}
	}
	return fmt.Errorf("budgets: the window of %s was seeded again %d times during the hand-over", w.Budget.UserPath, handOverTries)
}

// spendWindow is the store's name of e's window starting at w.
func (e *entry) spendWindow(w span) SpendWindow {
	return SpendWindow{Budget: e.b.Key(), PerChild: e.b.PerChild,
		Start: time.Unix(0, w.start).UTC(), End: time.Unix(0, w.end).UTC()}
}

// match is one budget covering a caller: its entry, the window and the
// caller's cell in the store.
type match struct {
	e    *entry
	w    span
	anc  string
	cell SpendCell
}

// matches appends to buf the budgets covering userPath at n (at), with
// the caller's cell of each: for a template, the caller's child.
func (s *snapshot) matches(buf []match, userPath string, n int64, at time.Time) []match {
	add := func(anc string) {
		for _, e := range s.at(anc) {
			seg := ""
			if e.g.perChild {
				var ok bool
				if seg, ok = childSegment(anc, userPath); !ok {
					continue
				}
			}
			w := e.window(n, at)
			buf = append(buf, match{e: e, w: w, anc: anc, cell: SpendCell{Window: e.spendWindow(w), Child: seg}})
		}
	}
	add("/")
	for i := 2; i <= len(userPath); i++ {
		if i == len(userPath) || userPath[i] == '/' {
			add(userPath[:i])
		}
	}
	return buf
}

// cells lists the store cells of ms.
func cells(ms []match) []SpendCell {
	out := make([]SpendCell, len(ms))
	for i := range ms {
		out[i] = ms[i].cell
	}
	return out
}

// checkShared is Check against the store: done is false when the store
// could not answer and the caller must decide from memory.
func (t *Tracker) checkShared(sh *shared, s *snapshot, userPath string, now time.Time) (ok bool, retryAfter time.Duration, which *Budget, done bool) {
	var buf [8]match
	n := now.UnixNano()
	ms := s.matches(buf[:0], userPath, n, now)
	if len(ms) == 0 {
		return true, 0, nil, true
	}
	cs := cells(ms)
	got, err := sh.restoring(func(ctx context.Context) ([]float64, error) { return sh.st.Spend(ctx, cs) })
	if err != nil || len(got) != len(ms) {
		sh.fail("check", errOr(err, len(got), len(ms)))
		return false, 0, nil, false
	}
	sh.ok()
	var worst *entry
	var wait int64
	for i, m := range ms {
		if got[i] >= m.e.b.Amount && (worst == nil || m.w.end-n > wait) {
			worst, wait = m.e, m.w.end-n
		}
	}
	if worst != nil {
		return false, time.Duration(wait), &worst.b, true
	}
	return true, 0, nil, true
}

// chargeShared is Charge through the store: the store's new totals become
// this process's spend; when the store fails, cost is added in memory and
// owed to the store.
func (t *Tracker) chargeShared(sh *shared, s *snapshot, userPath string, id RequestID, cost float64, at time.Time) {
	var buf [8]match
	n := at.UnixNano()
	ms := s.matches(buf[:0], userPath, n, at)
	kept := ms[:0]
	for _, m := range ms {
		if n >= m.e.reset {
			kept = append(kept, m)
		}
	}
	if len(kept) == 0 {
		return
	}
	cs := cells(kept)
	var got []float64
	var err error
	if sh.up() {
		got, err = sh.restoring(func(ctx context.Context) ([]float64, error) { return sh.st.Add(ctx, cs, cost) })
		if err == nil && len(got) != len(kept) {
			err = errOr(nil, len(got), len(kept))
		}
		if err != nil {
			sh.fail("charge", err)
		} else {
			sh.ok()
		}
	} else {
		err = errSkipped
	}
	if err != nil {
		sh.owe(cs, id, cost)
	}
	for i, m := range kept {
		for {
			c, _ := m.e.cellFor(m.anc, userPath, true)
			var alive bool
			if err != nil {
				alive = c.add(m.w.start, catalog.NanosOf(cost))
			} else {
				alive = c.sync(m.w.start, got[i])
			}
			if alive {
				break
			}
		}
	}
}

// sync sets the spend of the window starting at start to v, unless the
// cell already holds a later window. It reports false when the cell was
// swept and the caller must use a fresh one.
func (c *cell) sync(start int64, v float64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead {
		return false
	}
	if c.start.Load() <= start {
		c.write(start, catalog.NanosOf(positive(v)))
	}
	return true
}

// refresh loads from the store the spend of the current window of each
// entry into memory, for the views. The store's values replace this
// process's; a window the store does not hold keeps what memory has.
func (t *Tracker) refresh(list []*entry, now time.Time) {
	sh := t.sh
	if sh == nil || len(list) == 0 {
		return
	}
	if !sh.up() {
		return
	}
	n := now.UnixNano()
	spans := make([]span, len(list))
	ws := make([]SpendWindow, len(list))
	for i, e := range list {
		spans[i] = e.window(n, now)
		ws[i] = e.spendWindow(spans[i])
	}
	ctx, cancel := sh.ctx()
	got, err := sh.st.Windows(ctx, ws)
	cancel()
	if err == nil && len(got) != len(ws) {
		err = errOr(nil, len(got), len(ws))
	}
	if err != nil {
		sh.fail("read", err)
		return
	}
	sh.ok()
	for i, e := range list {
		if got[i] != nil {
			e.g.restoreSegs(spans[i].start, got[i])
		}
	}
}

// window reads one window from the store: held is false when the store
// knows nothing of it.
func (sh *shared) window(w SpendWindow) (spend map[string]float64, held bool, err error) {
	ctx, cancel := sh.ctx()
	defer cancel()
	got, err := sh.st.Windows(ctx, []SpendWindow{w})
	if err == nil && len(got) != 1 {
		err = errOr(nil, len(got), 1)
	}
	if err != nil {
		return nil, false, err
	}
	return got[0], got[0] != nil, nil
}

// restoreSegs sets the group's spend in the window starting at start
// from spend by child segment ("" for the budget's own).
func (g *group) restoreSegs(start int64, spend map[string]float64) {
	if g.agg != nil {
		g.agg.set(start, positive(spend[""]))
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for seg, c := range g.kids {
		c.set(start, positive(spend[seg]))
	}
	for seg, v := range spend {
		if seg == "" || g.kids[seg] != nil {
			continue
		}
		c := &cell{}
		c.set(start, positive(v))
		g.kids[seg] = c
	}
}

// segsOf turns a SpendSource answer for the budget on prefix into spend
// by child segment ("" for the budget's own).
func segsOf(prefix string, perChild bool, got map[string]float64) map[string]float64 {
	out := map[string]float64{}
	if !perChild {
		if v := positive(got[prefix]); v > 0 {
			out[""] = v
		}
		return out
	}
	for p, v := range got {
		if seg, ok := childSegment(prefix, p); ok {
			out[seg] = catalog.SaturatingAddFloat(out[seg], positive(v))
		}
	}
	return out
}

// rebuildShared rebuilds e's spend in the window w: from the store when
// it holds the window, else from source, seeding the store with it
// (unless another process seeded it first, whose figures win). handled
// is false when the store failed and the caller must rebuild from source
// alone.
func (t *Tracker) rebuildShared(sh *shared, e *entry, w span, source SpendSource) (handled bool, err error) {
	if !sh.up() {
		return false, nil
	}
	sw := e.spendWindow(w)
	got, held, err := sh.window(sw)
	if err != nil {
		sh.fail("rebuild", err)
		return false, nil
	}
	sh.ok()
	if held || source == nil {
		e.g.restoreSegs(w.start, got)
		return true, nil
	}
	since := max(w.start, e.reset)
	fromSource, mark, err := spendMarked(source, e.b.UserPath, e.b.PerChild, time.Unix(0, since).UTC())
	if err != nil {
		return true, err
	}
	seed := segsOf(e.b.UserPath, e.b.PerChild, fromSource)
	ctx, cancel := sh.ctx()
	kept, err := sh.st.Seed(ctx, sw, seed, mark)
	cancel()
	if err != nil {
		sh.fail("seed", err)
		e.g.restoreSegs(w.start, seed)
		return true, nil
	}
	e.g.restoreSegs(w.start, kept)
	return true, nil
}

// clearShared clears e's window w in the store, or owes the clear.
func (t *Tracker) clearShared(sh *shared, e *entry, w span) {
	sw := e.spendWindow(w)
	if !sh.up() {
		sh.oweClear(sw)
		return
	}
	ctx, cancel := sh.ctx()
	err := sh.st.Clear(ctx, sw)
	cancel()
	if err != nil {
		sh.fail("reset", err)
		sh.oweClear(sw)
		return
	}
	sh.dropDebts(sw)
	sh.ok()
}

// Resync brings the store back in step after it failed: every budget
// window the store no longer holds (the server restarted empty) is
// seeded from source, marked with the snapshot of the usage records it
// was summed from (a SnapshotSource), so that the charges owed for the
// window are handed over afterwards only when that snapshot did not
// count their request. Windows the store holds are left as they are.
// Without a SpendStore it does nothing.
func (t *Tracker) Resync(source SpendSource, now time.Time) error {
	sh := t.sh
	if sh == nil || source == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var errs []error
	n := now.UnixNano()
	for _, e := range t.snap.Load().list {
		w := e.window(n, now)
		sw := e.spendWindow(w)
		_, held, err := sh.window(sw)
		if err != nil {
			return errors.Join(append(errs, err)...)
		}
		if held {
			continue
		}
		since := max(w.start, e.reset)
		got, mark, err := spendMarked(source, e.b.UserPath, e.b.PerChild, time.Unix(0, since).UTC())
		if err != nil {
			errs = append(errs, fmt.Errorf("budget %s: reading spend: %w", e.b.Key(), err))
			continue
		}
		ctx, cancel := sh.ctx()
		kept, err := sh.st.Seed(ctx, sw, segsOf(e.b.UserPath, e.b.PerChild, got), mark)
		cancel()
		if err != nil {
			return errors.Join(append(errs, err)...)
		}
		e.g.restoreSegs(w.start, kept)
	}
	return errors.Join(errs...)
}

// spendMarked is source's SpendSince, read at one snapshot of the usage
// records when source is a SnapshotSource, with the mark of that
// snapshot ("" for none).
func spendMarked(source SpendSource, prefix string, perChild bool, since time.Time) (map[string]float64, string, error) {
	if ss, ok := source.(SnapshotSource); ok {
		got, snap, err := ss.SpendSnapshot(prefix, perChild, since)
		return got, SnapshotMark(snap), err
	}
	got, err := source.SpendSince(prefix, perChild, since)
	return got, "", err
}
