package budgets

import (
	"context"
	"errors"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// ErrSpendLost is what Spend and Add of a SpendStore return when the
// store has lost the windows it held (a Redis server restarted without
// its data) and has not been told they were restored since (Restored):
// charging on would count a spent budget from zero again. The tracker
// then reseeds every window the store no longer holds from the usage
// records, calls Restored and tries again.
var ErrSpendLost = errors.New("budgets: the shared spend store lost its windows")

// RequestID names the usage record of one request (its audit usage
// record id); the zero RequestID names none.
type RequestID = [16]byte

// snapshotPrefix starts the mark of a window seeded from a snapshot of
// the usage records.
const snapshotPrefix = "s:"

// SnapshotMark is the mark of a window seeded from the usage records at
// snapshot (a SnapshotSource answer); "" for none.
func SnapshotMark(snapshot string) string {
	if snapshot == "" {
		return ""
	}
	return snapshotPrefix + snapshot
}

// SpendWindow names the spend of one budget in one period window: the
// budget's own spend, or the spend of every child of a template. A budget
// that switches per_child gets another window.
type SpendWindow struct {
	// Budget is the budget's key.
	Budget Key
	// PerChild reports a template window, whose cells are its children.
	PerChild bool
	// Start is the first instant of the period.
	Start time.Time
	// End is the first instant after the period; a store keeps the window
	// at least until then.
	End time.Time
}

// SpendCell is one cell of a window: a child of a template, or the
// budget's own spend.
type SpendCell struct {
	// Window is the window the cell belongs to.
	Window SpendWindow
	// Child is the child's last path segment ("alice" for
	// "/customers/alice" under a template on "/customers"), or "" for the
	// budget's own spend.
	Child string
}

// SpendStore keeps the spend of budgets where several gateway processes
// share it: with one, Charge adds to the store and Check reads from it,
// so a budget is exhausted by the spend of every process. Every method is
// one round trip to the store and must return by ctx's deadline. Spend
// maps use the cell's Child as key ("" for the budget's own spend).
type SpendStore interface {
	// Spend returns the spend of each cell, in order; a cell with nothing
	// stored is 0.
	Spend(ctx context.Context, cells []SpendCell) ([]float64, error)
	// Add adds cost to each cell and returns the new totals, in order.
	Add(ctx context.Context, cells []SpendCell, cost float64) ([]float64, error)
	// Windows returns the spend of every cell of each window, in order:
	// a nil map for a window the store knows nothing of (never charged,
	// seeded or cleared), else a map, empty when nothing was spent.
	Windows(ctx context.Context, ws []SpendWindow) ([]map[string]float64, error)
	// Seed stores spend as w's spend, with mark, unless the store already
	// holds w, in one atomic step, and returns what the store holds
	// afterwards. mark says what the spend was summed from: SnapshotMark
	// of the usage records' snapshot, or "" (not known).
	Seed(ctx context.Context, w SpendWindow, spend map[string]float64, mark string) (map[string]float64, error)
	// Mark returns the mark w was seeded with ("" when w was charged,
	// cleared or seeded without one, or is not held).
	Mark(ctx context.Context, w SpendWindow) (string, error)
	// HandOver adds spend (by cell Child) to w in one atomic step, only
	// when w's mark is still mark; applied is false when it changed (w was
	// seeded again meanwhile) and nothing was added. Like Add it answers
	// ErrSpendLost while the store has lost its windows.
	HandOver(ctx context.Context, w SpendWindow, spend map[string]catalog.Nanos, mark string) (applied bool, err error)
	// Lost reports whether the store has lost its windows (ErrSpendLost
	// would be answered), without charging anything.
	Lost(ctx context.Context) (bool, error)
	// Clear drops every cell of w and keeps w held with no spend: a
	// reset.
	Clear(ctx context.Context, w SpendWindow) error
	// Reserve checks and reserves in one atomic step: unless, for some
	// cell, the spend has reached limits[i] or the spend plus the
	// reservations the cell holds plus amount would pass it, amount is
	// held in every cell as reservation id, until Settle or until lease
	// has passed (its process died). It returns the indexes of the cells
	// that refused, none when the reservation was made. Reservations
	// belong to a cell whatever the window (Start, End) named.
	Reserve(ctx context.Context, cells []SpendCell, limits []catalog.Nanos, id string, amount catalog.Nanos, lease time.Duration) (refused []int, err error)
	// Settle releases reservation id in every cell that holds it and adds
	// costs[i] (USD, 0 for none) to cell i, in one atomic step, and
	// returns the new totals, in order.
	Settle(ctx context.Context, cells []SpendCell, id string, costs []float64) ([]float64, error)
	// Restored tells the store that every window it did not hold has
	// been seeded, after it answered ErrSpendLost (or when it is new):
	// Spend and Add work again.
	Restored(ctx context.Context) error
}
