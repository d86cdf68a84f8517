package budgets

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// Rebuild recomputes the spend of every budget at now from source: for
// each budget the usage since the later of its current period start and
// its last reset. It is meant for start-up, before requests are served;
// while requests are served, a charge whose usage record is not yet
// persisted when its budget is queried is lost. Errors are joined, each
// naming its budget; the budgets that failed keep the spend they had.
func (t *Tracker) Rebuild(source SpendSource, now time.Time) error {
	return t.RebuildKeys(source, now, nil)
}

// RebuildKeys is Rebuild for the budgets of keys only (all when keys is
// nil); unknown keys are skipped. With a SpendStore (ShareSpend) the
// store's spend of a window wins: source is read only for the windows the
// store does not hold, and what it gives seeds the store.
func (t *Tracker) RebuildKeys(source SpendSource, now time.Time, keys []Key) error {
	if source == nil && t.sh == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.snap.Load()
	list := s.list
	if keys != nil {
		list = make([]*entry, 0, len(keys))
		for _, k := range keys {
			if e := s.byKey[k]; e != nil {
				list = append(list, e)
			}
		}
	}
	var errs []error
	n := now.UnixNano()
	for _, e := range list {
		w := e.window(n, now)
		if t.sh != nil {
			handled, err := t.rebuildShared(t.sh, e, w, source)
			if err != nil {
				errs = append(errs, fmt.Errorf("budget %s: reading spend: %w", e.b.Key(), err))
			}
			if handled {
				continue
			}
		}
		if source == nil {
			continue
		}
		since := max(w.start, e.reset)
		got, err := source.SpendSince(e.b.UserPath, e.b.PerChild, time.Unix(0, since).UTC())
		if err != nil {
			errs = append(errs, fmt.Errorf("budget %s: reading spend: %w", e.b.Key(), err))
			continue
		}
		e.g.restore(e.b.UserPath, w.start, got)
	}
	return errors.Join(errs...)
}

// restore sets the group's spend in the window starting at start from a
// SpendSource answer for the budget on prefix.
func (g *group) restore(prefix string, start int64, got map[string]float64) {
	if g.agg != nil {
		g.agg.set(start, positive(got[prefix]))
		return
	}
	sums := map[string]float64{}
	for p, v := range got {
		if seg, ok := childSegment(prefix, p); ok {
			sums[seg] = catalog.SaturatingAddFloat(sums[seg], positive(v))
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for seg, c := range g.kids {
		c.set(start, sums[seg])
		delete(sums, seg)
	}
	for seg, v := range sums {
		c := &cell{}
		c.set(start, v)
		g.kids[seg] = c
	}
}

// positive maps NaN, infinities and negative sums to 0.
func positive(v float64) float64 {
	if v > 0 && v <= math.MaxFloat64 {
		return v
	}
	return 0
}
