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
// "rpm=60,tpm=10000 concurrent=5" (one entry) or a JSON array of entries.
// The entries name no subject: the variable's name does.
func parseLimitValue(v string) ([]RuleSpec, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, errors.New("empty value (want e.g. rpm=60,tpm=10000 or a JSON array of rules)")
	}
	if v[0] == '[' {
		return parseJSONRules(v)
	}
	var spec RuleSpec
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		name, num, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("%q is not name=value", f)
		}
		name = strings.ToLower(strings.TrimSpace(name))
		field := spec.compactField(name)
		if field == nil {
			return nil, fmt.Errorf("unknown cap %q (want rpm, tpm, rph, tph, rpd, tpd or concurrent)", name)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%s: %q is not a positive integer", name, num)
		}
		if *field != 0 {
			return nil, fmt.Errorf("%s: set twice", name)
		}
		*field = n
	}
	return []RuleSpec{spec}, nil
}

// compactField returns the field of s that the compact name sets, or nil.
func (s *RuleSpec) compactField(name string) *int64 {
	switch name {
	case "rpm":
		return &s.RPM
	case "tpm":
		return &s.TPM
	case "rph":
		return &s.RPH
	case "tph":
		return &s.TPH
	case "rpd":
		return &s.RPD
	case "tpd":
		return &s.TPD
	case "concurrent":
		return &s.Concurrent
	}
	return nil
}

// parseJSONRules parses the JSON array form: RuleSpec objects without a
// subject.
func parseJSONRules(v string) ([]RuleSpec, error) {
	dec := json.NewDecoder(strings.NewReader(v))
	dec.DisallowUnknownFields()
	var items []RuleSpec
	if err := dec.Decode(&items); err != nil {
		return nil, fmt.Errorf("JSON rule array: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("JSON rule array: unexpected data after the array")
	}
	if len(items) == 0 {
		return nil, errors.New("JSON rule array is empty")
	}
	return items, nil
}
