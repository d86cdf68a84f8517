package limits

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// RulesFromConfig converts the YAML lists rate_limits.user_paths,
// rate_limits.providers and rate_limits.models (decoded as []any of
// map[string]any) into rules with source "config".
//
// Each entry names its subject with user_path (user_paths), provider
// (providers) or model (models), or with subject; sets one window with
// period (minute, hour, day, concurrent) or period_seconds plus
// max_requests and/or max_tokens; may add caps with the compact keys rpm,
// tpm, rph, tph, rpd, tpd and concurrent; and user-path entries may set
// per_child. An entry can therefore yield several rules. Unknown keys,
// wrong types and invalid rules are errors naming the entry, e.g.
// "rate_limits.user_paths[2] (/team): max_tokens: ...". The entitlement is
// not checked here (SetConfigRules does).
func RulesFromConfig(userPaths, providers, models []any) ([]Rule, error) {
	var out []Rule
	names := map[Key]string{}
	for _, list := range []struct {
		field   string
		scope   Scope
		subject string
		entries []any
	}{
		{"rate_limits.user_paths", ScopeUserPath, "user_path", userPaths},
		{"rate_limits.providers", ScopeProvider, "provider", providers},
		{"rate_limits.models", ScopeModel, "model", models},
	} {
		for i, entry := range list.entries {
			where := fmt.Sprintf("%s[%d]", list.field, i)
			rules, subject, err := ruleEntry(entry, list.scope, list.subject)
			if subject != "" {
				where += " (" + subject + ")"
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			for _, r := range rules {
				k := r.Key()
				if other, dup := names[k]; dup {
					return nil, fmt.Errorf("%s: %w: %s is also defined by %s", where, ErrInvalidRule, k, other)
				}
				names[k] = where
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// ruleEntry converts one list entry; subject is returned for messages.
func ruleEntry(entry any, scope Scope, subjectKey string) ([]Rule, string, error) {
	m, err := asMap(entry)
	if err != nil {
		return nil, "", err
	}
	var subject string
	for _, key := range []string{subjectKey, "subject"} {
		if v, ok := m[key]; ok {
			s, ok := v.(string)
			if !ok || strings.TrimSpace(s) == "" {
				return nil, "", fmt.Errorf("%s: must be a non-empty string", key)
			}
			if subject != "" {
				return nil, subject, fmt.Errorf("set only one of %s and subject", subjectKey)
			}
			subject = s
		}
	}
	if subject == "" {
		return nil, "", fmt.Errorf("%s: missing", subjectKey)
	}

	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var (
		cs                   capSet
		period               Period
		seconds              int
		maxReq, maxTok       int64
		hasPeriod, perChild  bool
		hasMaxReq, hasMaxTok bool
	)
	for _, k := range keys {
		v := m[k]
		switch k {
		case subjectKey, "subject":
		case "scope":
			if s, ok := v.(string); !ok || Scope(s) != scope {
				return nil, subject, fmt.Errorf("scope: %v does not match the list (%s)", v, scope)
			}
		case "period":
			s, ok := v.(string)
			if !ok {
				return nil, subject, fmt.Errorf("period: must be a string (minute, hour, day, concurrent)")
			}
			period, hasPeriod = Period(strings.ToLower(strings.TrimSpace(s))), true
		case "period_seconds":
			n, err := asInt(v)
			if err != nil || n <= 0 || n > math.MaxInt32 {
				return nil, subject, fmt.Errorf("period_seconds: must be a positive integer")
			}
			seconds = int(n)
		case "max_requests", "max_tokens":
			n, err := asInt(v)
			if err != nil || n < 0 {
				return nil, subject, fmt.Errorf("%s: must be a non-negative integer", k)
			}
			if k == "max_requests" {
				maxReq, hasMaxReq = n, true
			} else {
				maxTok, hasMaxTok = n, true
			}
		case "per_child":
			b, err := asBool(v)
			if err != nil {
				return nil, subject, fmt.Errorf("per_child: %w", err)
			}
			perChild = b
		default:
			if _, ok := compactNames[k]; !ok {
				return nil, subject, fmt.Errorf("unknown key %q", k)
			}
			n, err := asInt(v)
			if err != nil || n <= 0 {
				return nil, subject, fmt.Errorf("%s: must be a positive integer", k)
			}
			if err := cs.setCompact(k, n); err != nil {
				return nil, subject, err
			}
		}
	}
	if hasPeriod || seconds > 0 {
		if hasPeriod && seconds > 0 {
			return nil, subject, fmt.Errorf("period_seconds: set either period or period_seconds")
		}
		if !hasMaxReq && !hasMaxTok {
			return nil, subject, fmt.Errorf("max_requests: a period needs max_requests or max_tokens")
		}
		if hasMaxReq {
			if err := cs.set("max_requests", period, seconds, false, maxReq); err != nil {
				return nil, subject, err
			}
		}
		if hasMaxTok {
			if err := cs.set("max_tokens", period, seconds, true, maxTok); err != nil {
				return nil, subject, err
			}
		}
	} else if hasMaxReq || hasMaxTok {
		return nil, subject, fmt.Errorf("period: required with max_requests or max_tokens (or use rpm, tpm, ...)")
	}
	rules := cs.list()
	if len(rules) == 0 {
		return nil, subject, fmt.Errorf("no caps: set period with max_requests/max_tokens, or rpm, tpm, rph, tph, rpd, tpd, concurrent")
	}
	for i := range rules {
		r := &rules[i]
		r.Scope, r.Subject, r.PerChild, r.Source = scope, subject, perChild, SourceConfig
		*r = r.normalized()
		if err := r.Validate(true); err != nil {
			return nil, subject, err
		}
	}
	return rules, subject, nil
}

// asMap accepts the map shapes YAML and JSON decoders produce.
func asMap(v any) (map[string]any, error) {
	switch m := v.(type) {
	case map[string]any:
		return m, nil
	case map[any]any:
		out := make(map[string]any, len(m))
		for k, v := range m {
			s, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("key %v is not a string", k)
			}
			out[s] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("must be a mapping, not %T", v)
}

// asInt accepts integers in the forms YAML and JSON decoders produce
// (including integral floats and numeric strings).
func asInt(v any) (int64, error) {
	switch n := v.(type) {
	case int:
		return int64(n), nil
	case int64:
		return n, nil
	case int32:
		return int64(n), nil
	case uint64:
		if n > math.MaxInt64 {
			return 0, fmt.Errorf("%d is too large", n)
		}
		return int64(n), nil
	case uint:
		if uint64(n) > math.MaxInt64 {
			return 0, fmt.Errorf("%d is too large", n)
		}
		return int64(n), nil
	case float64:
		if n != math.Trunc(n) || math.Abs(n) > 1<<53 {
			return 0, fmt.Errorf("%v is not an integer", n)
		}
		return int64(n), nil
	case json.Number:
		return n.Int64()
	case string:
		return strconv.ParseInt(strings.TrimSpace(n), 10, 64)
	}
	return 0, fmt.Errorf("%v (%T) is not an integer", v, v)
}

// asBool accepts booleans and "true"/"false" strings.
func asBool(v any) (bool, error) {
	switch b := v.(type) {
	case bool:
		return b, nil
	case string:
		return strconv.ParseBool(strings.TrimSpace(b))
	}
	return false, fmt.Errorf("%v (%T) is not a boolean", v, v)
}
