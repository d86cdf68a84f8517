package records

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelgate/modelgate/internal/domain/budgets"
)

// The budgets records are a manual budget and a reset mark, each stored
// under its key (the period as admin routes write it and the user path),
// and the settings, stored once. The budget and reset forms are the
// budgets package's own (budgets.EncodeBudget, budgets.EncodeReset);
// this file adds the settings and the error wrapping every engine uses.

// BudgetName is how a stored budget or reset mark of key k is named in
// errors: the period as admin routes write it ("daily", "600") followed
// by the user path, as in "daily/team".
func BudgetName(period, userPath string) string { return period + userPath }

// EncodeBudget returns the stored form of the manual budget b (see
// budgets.EncodeBudget).
func EncodeBudget(b budgets.Budget) ([]byte, error) { return budgets.EncodeBudget(b) }

// DecodeBudget reads a budget stored by EncodeBudget under name (see
// BudgetName); the error names it.
func DecodeBudget(name string, v []byte) (budgets.Budget, error) {
	b, err := budgets.DecodeBudget(v)
	if err != nil {
		return budgets.Budget{}, entryError(name, err)
	}
	return b, nil
}

// EncodeReset returns the stored form of the reset mark of budget k at
// at (see budgets.EncodeReset).
func EncodeReset(k budgets.Key, at time.Time) ([]byte, error) { return budgets.EncodeReset(k, at) }

// DecodeReset reads a reset mark stored by EncodeReset under name (see
// BudgetName): the budget's key and the time of the reset. The error
// names it.
func DecodeReset(name string, v []byte) (budgets.Key, time.Time, error) {
	k, t, err := budgets.DecodeReset(v)
	if err != nil {
		return budgets.Key{}, time.Time{}, entryError(name, err)
	}
	return k, t, nil
}

// entryError wraps the error of the budgets entry name.
func entryError(name string, err error) error {
	return fmt.Errorf("budgets store: entry %q: %w", name, err)
}

// EncodeSettings returns the stored form of the budget settings: a JSON
// object of daily_reset_hour, weekly_reset_weekday and monthly_reset_day.
func EncodeSettings(s budgets.Settings) ([]byte, error) { return json.Marshal(s) }

// DecodeSettings reads settings stored by EncodeSettings. They are not
// validated here (the budgets package checks them where it uses them).
func DecodeSettings(v []byte) (budgets.Settings, error) {
	var s budgets.Settings
	if err := json.Unmarshal(v, &s); err != nil {
		return s, fmt.Errorf("budgets store: settings: %w", err)
	}
	return s, nil
}
