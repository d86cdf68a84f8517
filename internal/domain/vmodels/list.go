package vmodels

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/modelgate/modelgate/internal/request/apierr"
)

// List is the virtual_models setting (YAML, Caddy JSON config, the admin
// block alias, or the VIRTUAL_MODELS variable): rows with distinct
// sources.
type List []VirtualModel

// Problem is an invalid entry of a List or Failover, located by Index (a
// List) or Key (a Failover primary).
type Problem struct {
	// Index is the entry's position in a List; -1 for a Failover.
	Index int
	// Key is the Failover primary, empty for a List.
	Key string
	// Err says what is wrong, naming the entry and the field.
	Err error
}

// Error implements error.
func (p Problem) Error() string { return p.Err.Error() }

// Problems validates every row (normalizing user paths in place) and
// refuses a source defined twice. Each problem's message names the row
// as "[2] (gpt-fast)" for the caller to prefix with the setting's name.
func (l List) Problems() []Problem {
	var out []Problem
	seen := map[string]int{}
	for i := range l {
		v := &l[i]
		where := fmt.Sprintf("[%d]", i)
		if v.Source != "" {
			where += " (" + v.Source + ")"
		}
		if err := v.Validate(); err != nil {
			out = append(out, Problem{Index: i, Err: fmt.Errorf("%s: %w", where, err)})
			continue
		}
		if j, dup := seen[v.Source]; dup {
			out = append(out, Problem{Index: i, Err: fmt.Errorf("%s: source: also defined by [%d]", where, j)})
			continue
		}
		seen[v.Source] = i
	}
	return out
}

// UnmarshalJSON decodes the list strictly (unknown fields are errors)
// and validates it, so a bad row fails where the configuration is read.
func (l *List) UnmarshalJSON(b []byte) error {
	var rows []VirtualModel
	if err := strictJSON(b, &rows); err != nil {
		return fmt.Errorf("virtual_models: %w", err)
	}
	if err := joinProblems("virtual_models", List(rows).Problems()); err != nil {
		return err
	}
	*l = rows
	return nil
}

// Failover is the failover setting: each primary model selector maps to
// the ordered selectors tried when the primary fails (upstream 5xx, 429,
// timeout, unreachable, or a saturated provider or model rule).
type Failover map[string][]string

// Problems checks every route: a primary and at least one target, all
// "provider/model" or "model" without wildcards, no target repeated or
// equal to its primary. Each message names the route as `["gpt-4o"]`.
func (f Failover) Problems() []Problem {
	var out []Problem
	for _, primary := range sortedKeys(f) {
		if err := checkRoute(primary, f[primary]); err != nil {
			out = append(out, Problem{Index: -1, Key: primary, Err: fmt.Errorf("[%q]: %w", primary, err)})
		}
	}
	return out
}

// checkRoute checks one failover route; its FieldError names the field
// as the admin API's route object does (primary_model, targets[i]).
func checkRoute(primary string, targets []string) error {
	if err := checkSelector(primary, false); err != nil {
		return apierr.Field("primary_model", err)
	}
	if len(targets) == 0 {
		return apierr.FieldMsg("targets", "needs at least one target")
	}
	seen := map[string]bool{primary: true}
	for i, t := range targets {
		at := fmt.Sprintf("targets[%d]", i)
		if err := checkSelector(t, false); err != nil {
			return apierr.Field(at, err)
		}
		if seen[t] {
			return apierr.FieldMsg(at, fmt.Sprintf("%q is the primary or an earlier target", t))
		}
		seen[t] = true
	}
	return nil
}

// UnmarshalJSON decodes the routes strictly and validates them.
func (f *Failover) UnmarshalJSON(b []byte) error {
	var m map[string][]string
	if err := strictJSON(b, &m); err != nil {
		return fmt.Errorf("failover: %w", err)
	}
	if err := joinProblems("failover", Failover(m).Problems()); err != nil {
		return err
	}
	*f = m
	return nil
}

// strictJSON decodes b into v, refusing unknown fields and trailing data.
func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("unexpected data after the value")
	}
	return nil
}

// joinProblems joins ps into one error, each prefixed with setting.
func joinProblems(setting string, ps []Problem) error {
	errs := make([]error, len(ps))
	for i, p := range ps {
		errs[i] = fmt.Errorf("%s%w", setting, p.Err)
	}
	return errors.Join(errs...)
}

// sortedKeys returns f's primaries in order, for stable messages.
func sortedKeys(f Failover) []string {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
