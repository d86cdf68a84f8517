package budgets

import (
	"encoding/json"
	"time"
)

// budgetRecord is the stored form of a manual budget.
type budgetRecord struct {
	UserPath      string    `json:"user_path"`
	Period        string    `json:"period"`
	PeriodSeconds int64     `json:"period_seconds"`
	Amount        float64   `json:"amount"`
	PerChild      bool      `json:"per_child"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
}

// resetRecord is the stored form of a reset mark.
type resetRecord struct {
	UserPath      string    `json:"user_path"`
	Period        string    `json:"period"`
	PeriodSeconds int64     `json:"period_seconds"`
	At            time.Time `json:"at"`
}

// EncodeBudget returns the stored form of the manual budget b: a JSON
// object of user_path, period (as written in admin routes: "daily",
// "600"), period_seconds (the nominal length), amount, per_child,
// created_at and updated_at (RFC 3339 in UTC, nanoseconds kept). Source,
// LastResetAt and Origin are not stored.
func EncodeBudget(b Budget) ([]byte, error) {
	return json.Marshal(budgetRecord{
		UserPath: b.UserPath, Period: b.Period.PathValue(), PeriodSeconds: b.Period.Seconds(),
		Amount: b.Amount, PerChild: b.PerChild, CreatedAt: b.CreatedAt.UTC(), UpdatedAt: b.UpdatedAt.UTC(),
	})
}

// DecodeBudget reads a budget stored by EncodeBudget. Its period is the
// period field, or a custom period of period_seconds when that field is
// empty; its Source is SourceManual.
func DecodeBudget(v []byte) (Budget, error) {
	var r budgetRecord
	if err := json.Unmarshal(v, &r); err != nil {
		return Budget{}, err
	}
	p, err := recordPeriod(r.Period, r.PeriodSeconds)
	if err != nil {
		return Budget{}, err
	}
	return Budget{
		UserPath: r.UserPath, Period: p, Amount: r.Amount, PerChild: r.PerChild,
		Source: SourceManual, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}, nil
}

// EncodeReset returns the stored form of the reset mark of budget k at
// at: a JSON object of user_path, period, period_seconds (as in
// EncodeBudget) and at (RFC 3339 in UTC, nanoseconds kept).
func EncodeReset(k Key, at time.Time) ([]byte, error) {
	return json.Marshal(resetRecord{
		UserPath: k.UserPath, Period: k.Period.PathValue(), PeriodSeconds: k.Period.Seconds(), At: at.UTC(),
	})
}

// DecodeReset reads a reset mark stored by EncodeReset: the budget's key
// (its period read as in DecodeBudget) and the time of the reset.
func DecodeReset(v []byte) (Key, time.Time, error) {
	var r resetRecord
	if err := json.Unmarshal(v, &r); err != nil {
		return Key{}, time.Time{}, err
	}
	p, err := recordPeriod(r.Period, r.PeriodSeconds)
	if err != nil {
		return Key{}, time.Time{}, err
	}
	return Key{UserPath: r.UserPath, Period: p}, r.At, nil
}

// recordPeriod reads the period of a stored record: its period field
// ("daily", "600"), or a custom period of period_seconds when the field is
// empty.
func recordPeriod(name string, seconds int64) (Period, error) {
	if name == "" {
		return PeriodOfSeconds(seconds)
	}
	return ParsePeriod(name)
}
