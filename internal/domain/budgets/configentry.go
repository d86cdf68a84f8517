package budgets

import (
	"fmt"
	"math"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ConfigEntry is one element of the YAML list budgets.user_paths (and of
// a SET_BUDGET_* JSON array). It sets budgets on one user path in either
// or both of two forms:
//
//   - compact: hourly, daily, weekly and monthly amounts
//     ({user_path: /team, daily: 10, monthly: 200});
//   - explicit: period (a name or a number of seconds) or period_seconds,
//     with amount ({user_path: /x, period_seconds: 600, amount: 1}).
//
// per_child applies to every budget of the entry. An entry must set at
// least one budget and no period twice.
type ConfigEntry struct {
	// UserPath is the covered user path (normalized by userpath.Normalize).
	UserPath string `yaml:"user_path,omitempty" json:"user_path,omitempty"`
	// Period is hourly, daily, weekly, monthly or a whole number of
	// seconds; it goes with Amount.
	Period string `yaml:"period,omitempty" json:"period,omitempty"`
	// PeriodSeconds is a custom period length in seconds (1 to
	// MaxCustomSeconds), instead of Period; it goes with Amount.
	PeriodSeconds int64 `yaml:"period_seconds,omitempty" json:"period_seconds,omitempty"`
	// Amount is the USD cap of Period or PeriodSeconds: finite, at least 0.
	Amount *float64 `yaml:"amount,omitempty" json:"amount,omitempty"`
	// PerChild makes every budget of the entry a per_child template (needs
	// the quota_templates entitlement).
	PerChild bool `yaml:"per_child,omitempty" json:"per_child,omitempty"`
	// Hourly is the USD cap per hour.
	Hourly *float64 `yaml:"hourly,omitempty" json:"hourly,omitempty"`
	// Daily is the USD cap per day.
	Daily *float64 `yaml:"daily,omitempty" json:"daily,omitempty"`
	// Weekly is the USD cap per week.
	Weekly *float64 `yaml:"weekly,omitempty" json:"weekly,omitempty"`
	// Monthly is the USD cap per calendar month.
	Monthly *float64 `yaml:"monthly,omitempty" json:"monthly,omitempty"`

	// Line is the entry's line in the YAML file (0 when not from YAML),
	// for error messages.
	Line int `yaml:"-" json:"-"`
}

// configEntryFields are the YAML keys of a ConfigEntry.
var configEntryFields = map[string]bool{
	"user_path": true, "period": true, "period_seconds": true, "amount": true, "per_child": true,
	"hourly": true, "daily": true, "weekly": true, "monthly": true,
}

// UnmarshalYAML decodes an entry strictly (an unknown key is an error
// naming its line) and records the entry's line.
func (c *ConfigEntry) UnmarshalYAML(value *yaml.Node) error {
	for value.Kind == yaml.AliasNode && value.Alias != nil {
		value = value.Alias
	}
	if value.Kind != yaml.MappingNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: a budgets.user_paths entry must be a mapping", value.Line)}}
	}
	if bad := unknownEntryKeys(value); len(bad) > 0 {
		return &yaml.TypeError{Errors: bad}
	}
	type plain ConfigEntry
	var p plain
	if err := value.Decode(&p); err != nil {
		return err
	}
	*c = ConfigEntry(p)
	c.Line = value.Line
	return nil
}

// unknownEntryKeys reports the keys of mapping n that a ConfigEntry does
// not have, following merge keys (<<).
func unknownEntryKeys(n *yaml.Node) []string {
	var out []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		for v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		if k.Value == "<<" && (k.Tag == "" || k.ShortTag() == "!!merge") {
			merged := []*yaml.Node{v}
			if v.Kind == yaml.SequenceNode {
				merged = v.Content
			}
			for _, m := range merged {
				for m.Kind == yaml.AliasNode && m.Alias != nil {
					m = m.Alias
				}
				if m.Kind == yaml.MappingNode {
					out = append(out, unknownEntryKeys(m)...)
				}
			}
			continue
		}
		if !configEntryFields[k.Value] {
			out = append(out, fmt.Sprintf("line %d: field %s not found in type budgets.ConfigEntry", k.Line, k.Value))
		}
	}
	return out
}

// Validate reports the first problem of the entry, naming the field; the
// error wraps ErrInvalidBudget.
func (c ConfigEntry) Validate() error {
	_, err := c.Budgets()
	return err
}

// Budgets returns the entry's budgets, source "config", in period order
// (compact fields first). The entitlement for per_child is not checked
// here (CheckEntitlement).
func (c ConfigEntry) Budgets() ([]Budget, error) {
	if strings.TrimSpace(c.UserPath) == "" {
		return nil, fmt.Errorf("%w: user_path: missing", ErrInvalidBudget)
	}
	var out []Budget
	seen := map[Period]string{}
	add := func(field string, p Period, amount float64) error {
		if math.IsNaN(amount) || math.IsInf(amount, 0) || amount < 0 {
			return fmt.Errorf("%w: %s: the amount must be a finite number of at least 0, got %v", ErrInvalidBudget, field, amount)
		}
		if other, dup := seen[p]; dup {
			return fmt.Errorf("%w: %s: the %s budget is also set by %s", ErrInvalidBudget, field, p, other)
		}
		seen[p] = field
		b, err := Budget{UserPath: c.UserPath, Period: p, Amount: amount, PerChild: c.PerChild, Source: SourceConfig}.Normalized()
		if err != nil {
			return err
		}
		out = append(out, b)
		return nil
	}
	for _, f := range []struct {
		name   string
		p      Period
		amount *float64
	}{{"hourly", Hourly, c.Hourly}, {"daily", Daily, c.Daily}, {"weekly", Weekly, c.Weekly}, {"monthly", Monthly, c.Monthly}} {
		if f.amount != nil {
			if err := add(f.name, f.p, *f.amount); err != nil {
				return nil, err
			}
		}
	}
	hasPeriod := strings.TrimSpace(c.Period) != ""
	switch {
	case hasPeriod && c.PeriodSeconds != 0:
		return nil, fmt.Errorf("%w: period_seconds: set either period or period_seconds", ErrInvalidBudget)
	case hasPeriod || c.PeriodSeconds != 0:
		field := "period"
		var p Period
		var err error
		if hasPeriod {
			p, err = ParsePeriod(c.Period)
		} else {
			field = "period_seconds"
			p, err = PeriodOfSeconds(c.PeriodSeconds)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", field, err)
		}
		if c.Amount == nil {
			return nil, fmt.Errorf("%w: amount: missing for %s %s", ErrInvalidBudget, field, p)
		}
		if err := add("amount", p, *c.Amount); err != nil {
			return nil, err
		}
	case c.Amount != nil:
		return nil, fmt.Errorf("%w: amount: needs period or period_seconds (or use hourly, daily, weekly, monthly)", ErrInvalidBudget)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no budget: set hourly, daily, weekly or monthly, or period (or period_seconds) with amount", ErrInvalidBudget)
	}
	return out, nil
}

// FromConfig converts the YAML (or JSON app config) list budgets.user_paths
// into budgets with source "config", each with its Origin
// ("budgets.user_paths[1] (line 12)"). Invalid entries and budgets defined
// twice are errors naming the entry, its line and user path. The
// entitlement is not checked here (CheckEntitlement).
func FromConfig(entries []ConfigEntry) ([]Budget, error) {
	var out []Budget
	by := map[Key]string{}
	for i, c := range entries {
		origin := fmt.Sprintf("budgets.user_paths[%d]", i)
		if c.Line > 0 {
			origin += fmt.Sprintf(" (line %d)", c.Line)
		}
		list, err := c.Budgets()
		if err != nil {
			if p := strings.TrimSpace(c.UserPath); p != "" {
				return nil, fmt.Errorf("%s (%s): %w", origin, p, err)
			}
			return nil, fmt.Errorf("%s: %w", origin, err)
		}
		for _, b := range list {
			if other, dup := by[b.Key()]; dup {
				return nil, fmt.Errorf("%s: %w: %s is also defined by %s", origin, ErrInvalidBudget, b.Key(), other)
			}
			by[b.Key()] = origin
			b.Origin = origin
			out = append(out, b)
		}
	}
	return out, nil
}

// Merge returns high plus the budgets of low whose keys high does not
// define: environment budgets take precedence over YAML ones.
func Merge(high, low []Budget) []Budget {
	seen := make(map[Key]bool, len(high))
	out := append([]Budget(nil), high...)
	for _, b := range high {
		seen[b.Key()] = true
	}
	for _, b := range low {
		if !seen[b.Key()] {
			out = append(out, b)
		}
	}
	return out
}
