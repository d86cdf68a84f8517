package budgets

import (
	"fmt"
	"math"
	"time"

	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/userpath"
)

// Budget sources.
const (
	// SourceConfig marks budgets seeded from YAML or SET_BUDGET_*
	// variables: read-only to the admin API and never stored.
	SourceConfig = "config"
	// SourceManual marks budgets created through the admin API; they are
	// stored.
	SourceManual = "manual"
)

// Budget is one spend cap.
type Budget struct {
	// UserPath is the normalized user path the budget covers, with every
	// path below it.
	UserPath string `json:"user_path"`
	// Period is the budget's period; with UserPath it identifies the
	// budget. Its value is an internal encoding (named periods are
	// negative), so it is never written as JSON: Entry carries period and
	// period_seconds.
	Period Period `json:"-"`
	// Amount is the cap in USD per period, finite and at least 0. A budget
	// of 0 refuses every request it covers.
	Amount float64 `json:"amount"`
	// PerChild makes the budget a template: every direct child of UserPath
	// gets its own Amount and spend, and UserPath itself is not charged.
	// It needs the quota_templates entitlement.
	PerChild bool `json:"per_child"`
	// Source is SourceConfig or SourceManual.
	Source string `json:"source"`
	// CreatedAt is when the budget was created (for configuration: first
	// loaded by this process).
	CreatedAt time.Time `json:"created_at"`
	// UpdatedAt is when the amount or per_child last changed.
	UpdatedAt time.Time `json:"updated_at"`
	// LastResetAt is when the budget was last reset, zero if never. Spend
	// counts from the later of the period start and LastResetAt.
	LastResetAt time.Time `json:"last_reset_at,omitzero"`
	// Origin says where a configuration budget was defined, for messages
	// ("SET_BUDGET_TEAM", "budgets.user_paths[1] (line 12)"). Not stored.
	Origin string `json:"-"`
}

// Key identifies a budget: two budgets with the same Key are the same
// budget.
type Key struct {
	// UserPath is the normalized user path.
	UserPath string
	// Period is the budget's period.
	Period Period
}

// String is "<user_path> <period>", for messages.
func (k Key) String() string { return k.UserPath + " " + k.Period.String() }

// Key returns b's identity.
func (b Budget) Key() Key { return Key{UserPath: b.UserPath, Period: b.Period} }

// NormalizeKey returns k with its user path normalized by
// userpath.Normalize and its period checked; errors wrap ErrInvalidBudget.
func NormalizeKey(k Key) (Key, error) {
	p, err := userpath.Normalize(k.UserPath)
	if err != nil {
		return Key{}, fmt.Errorf("%w: %w", ErrInvalidBudget, apierr.Field("user_path", err))
	}
	if !k.Period.Valid() {
		return Key{}, fmt.Errorf("%w: %w", ErrInvalidBudget,
			apierr.FieldMsg("period_seconds", fmt.Sprintf("%d is not between 1 and %d", int64(k.Period), MaxCustomSeconds)))
	}
	return Key{UserPath: p, Period: k.Period}, nil
}

// Normalized returns b with its user path normalized, after checking the
// user path, the period and the amount (finite, at least 0). Errors wrap
// ErrInvalidBudget and name the field. The entitlement for PerChild is
// checked apart (CheckEntitlement).
func (b Budget) Normalized() (Budget, error) {
	k, err := NormalizeKey(b.Key())
	if err != nil {
		return Budget{}, err
	}
	if err := checkAmount(b.Amount); err != nil {
		return Budget{}, err
	}
	if b.Source != SourceConfig && b.Source != SourceManual {
		return Budget{}, fmt.Errorf("%w: source %q is not config or manual", ErrInvalidBudget, b.Source)
	}
	b.UserPath = k.UserPath
	return b, nil
}

// checkAmount accepts finite amounts of at least 0.
func checkAmount(a float64) error {
	if math.IsNaN(a) || math.IsInf(a, 0) || a < 0 {
		return fmt.Errorf("%w: %w", ErrInvalidBudget, apierr.FieldMsg("amount", fmt.Sprintf("must be a finite number of at least 0, got %v", a)))
	}
	return nil
}

// EffectiveSubject is the path whose spend b counts for a caller on
// userPath: the caller's direct child of UserPath for a template
// ("/customers/alice" for "/customers/alice/app"), else UserPath.
func (b *Budget) EffectiveSubject(userPath string) string {
	if b.PerChild {
		if c, ok := ChildOf(b.UserPath, userPath); ok {
			return c
		}
	}
	return b.UserPath
}
