package limits

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// compactCap is what one compact name sets.
type compactCap struct {
	period Period
	tokens bool // max_tokens instead of max_requests
}

// compactNames maps the compact names (rpm=60, tpd=1000000, concurrent=5)
// to the cap they set.
var compactNames = map[string]compactCap{
	"rpm":        {PeriodMinute, false},
	"tpm":        {PeriodMinute, true},
	"rph":        {PeriodHour, false},
	"tph":        {PeriodHour, true},
	"rpd":        {PeriodDay, false},
	"tpd":        {PeriodDay, true},
	"concurrent": {PeriodConcurrent, false},
}

// compactOrder is the order of rules built from compact caps.
var compactOrder = [...]Period{PeriodMinute, PeriodHour, PeriodDay, PeriodConcurrent}

// capSet collects caps per period, rejecting a cap set twice.
type capSet struct {
	rules map[Key]*Rule
	order []Key
}

// set records one cap for period (custom when period is empty).
func (cs *capSet) set(name string, period Period, seconds int, tokens bool, v int64) error {
	if cs.rules == nil {
		cs.rules = map[Key]*Rule{}
	}
	k := Key{Period: period, PeriodSeconds: seconds}
	r := cs.rules[k]
	if r == nil {
		r = &Rule{Period: period, PeriodSeconds: seconds}
		cs.rules[k] = r
		cs.order = append(cs.order, k)
	}
	field := &r.MaxRequests
	if tokens {
		field = &r.MaxTokens
	}
	if *field != 0 {
		return fmt.Errorf("%s: the %s %s cap is set twice", name, k.PeriodLabel(), map[bool]string{false: "request", true: "token"}[tokens])
	}
	*field = v
	return nil
}

// list returns the collected rules in insertion order.
func (cs *capSet) list() []Rule {
	out := make([]Rule, 0, len(cs.order))
	for _, k := range cs.order {
		out = append(out, *cs.rules[k])
	}
	return out
}

// setCompact records a compact name=value pair.
func (cs *capSet) setCompact(name string, v int64) error {
	c, ok := compactNames[name]
	if !ok {
		return fmt.Errorf("unknown cap %q (want rpm, tpm, rph, tph, rpd, tpd or concurrent)", name)
	}
	return cs.set(name, c.period, 0, c.tokens, v)
}

// parseLimitValue parses an environment value: the compact form
// "rpm=60,tpm=10000 concurrent=5" or a JSON array of rule objects. The
// rules it returns have no scope or subject yet.
func parseLimitValue(v string) ([]Rule, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, errors.New("empty value (want e.g. rpm=60,tpm=10000 or a JSON array of rules)")
	}
	if v[0] == '[' {
		return parseJSONRules(v)
	}
	var cs capSet
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		name, num, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("%q is not name=value", f)
		}
		name = strings.ToLower(strings.TrimSpace(name))
		n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%s: %q is not a positive integer", name, num)
		}
		if err := cs.setCompact(name, n); err != nil {
			return nil, err
		}
	}
	rules := cs.list()
	// Stable order: minute, hour, day, concurrent.
	out := make([]Rule, 0, len(rules))
	for _, p := range compactOrder {
		for _, r := range rules {
			if r.Period == p {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// jsonRule is one element of the JSON array form.
type jsonRule struct {
	Period        string `json:"period"`
	PeriodSeconds int    `json:"period_seconds"`
	MaxRequests   int64  `json:"max_requests"`
	MaxTokens     int64  `json:"max_tokens"`
	PerChild      bool   `json:"per_child"`
}

// parseJSONRules parses the JSON array form.
func parseJSONRules(v string) ([]Rule, error) {
	dec := json.NewDecoder(strings.NewReader(v))
	dec.DisallowUnknownFields()
	var items []jsonRule
	if err := dec.Decode(&items); err != nil {
		return nil, fmt.Errorf("JSON rule array: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("JSON rule array: unexpected data after the array")
	}
	if len(items) == 0 {
		return nil, errors.New("JSON rule array is empty")
	}
	out := make([]Rule, 0, len(items))
	for _, it := range items {
		out = append(out, Rule{
			Period: Period(strings.ToLower(strings.TrimSpace(it.Period))), PeriodSeconds: it.PeriodSeconds,
			MaxRequests: it.MaxRequests, MaxTokens: it.MaxTokens, PerChild: it.PerChild,
		})
	}
	return out, nil
}
