package budgets

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// Adjustment collects the changes of cost a recalculation of the usage
// records makes, per budget cell of the current periods, and applies them
// to the spend at once (Apply): in memory, and in the SpendStore with
// the spend of every process. Adding the change of each record, instead
// of rebuilding the windows from the records, leaves untouched the
// charges of the requests served meanwhile. It is safe for concurrent
// use.
type Adjustment struct {
	t   *Tracker
	s   *snapshot
	now time.Time

	mu    sync.Mutex
	cells map[SpendCell]*adjusted
}

// adjusted is the change collected for one cell.
type adjusted struct {
	e     *entry
	anc   string
	path  string // a user path of the cell, for cellFor
	start int64
	delta catalog.Nanos
}

// Adjust starts an Adjustment of the budgets' spend at now.
func (t *Tracker) Adjust(now time.Time) *Adjustment {
	return &Adjustment{t: t, s: t.snap.Load(), now: now, cells: map[SpendCell]*adjusted{}}
}

// Adjust is Tracker().Adjust at the service's clock.
func (s *Service) Adjust() *Adjustment { return s.tr.Adjust(s.clock()) }

// Add notes that the cost of a usage record of userPath made at at
// changed by delta. Records outside the current period of a budget, or
// made before its last reset, change nothing.
func (a *Adjustment) Add(userPath string, at time.Time, delta catalog.Nanos) {
	if delta == 0 {
		return
	}
	var buf [8]match
	n, now := at.UnixNano(), a.now.UnixNano()
	ms := a.s.matches(buf[:0], userPath, n, at)
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, m := range ms {
		if n < m.e.reset || m.w != m.e.window(now, a.now) {
			continue
		}
		x := a.cells[m.cell]
		if x == nil {
			x = &adjusted{e: m.e, anc: m.anc, path: userPath, start: m.w.start}
			a.cells[m.cell] = x
		}
		x.delta = x.delta.Add(delta)
	}
}

// Apply adds the changes collected to the spend. With a SpendStore each
// cell's change is one call; the cells whose call failed are named in
// the error (their spend in the store is left as it was).
func (a *Adjustment) Apply() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	sh := a.t.sh
	var errs []error
	for sc, x := range a.cells {
		if x.delta == 0 {
			continue
		}
		var got []float64
		var err error
		if sh != nil {
			got, err = sh.restoring(func(ctx context.Context) ([]float64, error) {
				return sh.st.Add(ctx, []SpendCell{sc}, x.delta.Float())
			})
			if err == nil && len(got) != 1 {
				err = errOr(nil, len(got), 1)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("budget %s: %w", x.e.b.Key(), err))
				continue
			}
		}
		for {
			c, _ := x.e.cellFor(x.anc, x.path, true)
			var alive bool
			if sh != nil {
				alive = c.sync(x.start, got[0])
			} else {
				alive = c.add(x.start, x.delta)
			}
			if alive {
				break
			}
		}
	}
	return errors.Join(errs...)
}
