package budgets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/modelgate/modelgate/internal/domain/limits"
)

// EnvPrefix names the variables that seed budgets: SET_BUDGET_<PATH>.
const EnvPrefix = "SET_BUDGET_"

// FromEnv reads the SET_BUDGET_<PATH> variables of environ ("NAME=value"
// entries, as os.Environ returns them). The suffix maps to a user path as
// for SET_RATE_LIMIT_*: "" is "/", "__" separates segments and the path is
// lower-cased (SET_BUDGET_TEAM__ALPHA is /team/alpha). The value is
// either the compact form "daily=10,monthly=200" (hourly, daily, weekly,
// monthly, and per_child=true; separated by commas or spaces) or a JSON
// array of ConfigEntry objects without user_path
// ('[{"period_seconds":600,"amount":1}]'). Blank values count as unset.
// Budgets are returned sorted by variable name, source "config", with the
// variable as Origin; every error names the variable. The entitlement is
// not checked here (CheckEntitlement).
func FromEnv(environ []string) ([]Budget, error) {
	vars := slices.Clone(environ)
	slices.Sort(vars)
	var out []Budget
	by := map[Key]string{}
	for _, kv := range vars {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, EnvPrefix) || strings.TrimSpace(value) == "" {
			continue
		}
		list, err := envBudgets(name, strings.TrimSpace(value))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, b := range list {
			if other, dup := by[b.Key()]; dup {
				return nil, fmt.Errorf("%s: %w: %s is also set by %s", name, ErrInvalidBudget, b.Key(), other)
			}
			by[b.Key()] = name
			b.Origin = name
			out = append(out, b)
		}
	}
	return out, nil
}

// errNotJSONArray is returned for a SET_BUDGET_* value that starts like
// JSON but is not an array.
var errNotJSONArray = errors.New("a JSON value must be an array of budget objects")

// envBudgets parses one variable.
func envBudgets(name, value string) ([]Budget, error) {
	path, err := limits.EnvSuffixToUserPath(name[len(EnvPrefix):])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidBudget, err)
	}
	if value[0] == '[' || value[0] == '{' {
		return envJSON(path, value)
	}
	entry := ConfigEntry{UserPath: path}
	fields := strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok {
			return nil, fmt.Errorf("%w: %q is not name=value (names: hourly, daily, weekly, monthly, per_child)", ErrInvalidBudget, f)
		}
		if k == "per_child" {
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				return nil, fmt.Errorf("%w: per_child: %q is not true or false", ErrInvalidBudget, v)
			}
			entry.PerChild = b
			continue
		}
		var slot **float64
		switch k {
		case "hourly":
			slot = &entry.Hourly
		case "daily":
			slot = &entry.Daily
		case "weekly":
			slot = &entry.Weekly
		case "monthly":
			slot = &entry.Monthly
		default:
			return nil, fmt.Errorf("%w: unknown name %q (use hourly, daily, weekly, monthly, per_child, or a JSON array for custom periods)", ErrInvalidBudget, k)
		}
		if *slot != nil {
			return nil, fmt.Errorf("%w: %s is set twice", ErrInvalidBudget, k)
		}
		a, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %q is not a number", ErrInvalidBudget, k, v)
		}
		*slot = &a
	}
	return entry.Budgets()
}

// envJSON parses the JSON-array form; user_path comes from the variable.
func envJSON(path, value string) ([]Budget, error) {
	if value[0] != '[' {
		return nil, fmt.Errorf("%w: %v", ErrInvalidBudget, errNotJSONArray)
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(value)))
	dec.DisallowUnknownFields()
	var entries []ConfigEntry
	if err := dec.Decode(&entries); err != nil {
		return nil, fmt.Errorf("%w: JSON: %v", ErrInvalidBudget, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: JSON: unexpected data after the array", ErrInvalidBudget)
	}
	var out []Budget
	for i, e := range entries {
		if e.UserPath != "" {
			return nil, fmt.Errorf("%w: [%d]: user_path: not allowed, the variable name gives the path", ErrInvalidBudget, i)
		}
		e.UserPath = path
		list, err := e.Budgets()
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		out = append(out, list...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: the JSON array sets no budget", ErrInvalidBudget)
	}
	return out, nil
}
