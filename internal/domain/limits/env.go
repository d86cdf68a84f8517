package limits

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelgate/modelgate/internal/request/userpath"
)

// SeededRule is a rule seeded by configuration, with the setting that
// defines it for messages: a variable name such as SET_RATE_LIMIT_TEAM, or
// a list entry such as "rate_limits.user_paths[2] (/team)".
type SeededRule struct {
	// Rule is the rule, with source config.
	Rule Rule
	// Origin names the setting that defines Rule.
	Origin string
}

// Environment variable prefixes that seed rules.
const (
	// EnvUserPathPrefix seeds user-path rules: SET_RATE_LIMIT_<PATH>.
	EnvUserPathPrefix = "SET_RATE_LIMIT_"
	// EnvProviderPrefix seeds provider rules: SET_PROVIDER_RATE_LIMIT_<NAME>.
	EnvProviderPrefix = "SET_PROVIDER_RATE_LIMIT_"
)

// RulesFromEnv reads the rule-seeding variables from environ ("NAME=value"
// entries, as os.Environ returns them):
//
//   - SET_RATE_LIMIT_<PATH> seeds user-path rules; the suffix maps to a path
//     by EnvSuffixToUserPath (SET_RATE_LIMIT_ alone is "/",
//     SET_RATE_LIMIT_TEAM__ALPHA is "/team/alpha").
//   - SET_PROVIDER_RATE_LIMIT_<NAME> seeds provider rules; the name is
//     lower-cased with underscores turned into hyphens.
//
// The value is the compact form "rpm=60,tpm=10000,concurrent=5" (rpm/tpm
// per minute, rph/tph per hour, rpd/tpd per day, concurrent in flight;
// separated by commas or spaces; caps of one period make one rule), or a
// JSON array of RuleSpec objects that name no subject (period,
// period_seconds, max_requests, max_tokens, per_child and the compact
// caps). Rules are returned sorted by variable name, with source
// "config", validated except for the entitlement (SetConfigRules checks
// it). Errors name the variable.
func RulesFromEnv(environ []string) ([]SeededRule, error) {
	var out []SeededRule
	names := map[Key]string{}
	vars := slices.Clone(environ)
	slices.Sort(vars)
	for _, kv := range vars {
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		var scope Scope
		var subject string
		switch {
		case strings.HasPrefix(name, EnvProviderPrefix):
			scope = ScopeProvider
			suffix := name[len(EnvProviderPrefix):]
			if suffix == "" {
				return nil, fmt.Errorf("%s: missing provider name after %s", name, EnvProviderPrefix)
			}
			subject = strings.ReplaceAll(strings.ToLower(suffix), "_", "-")
		case strings.HasPrefix(name, EnvUserPathPrefix):
			scope = ScopeUserPath
			p, err := EnvSuffixToUserPath(name[len(EnvUserPathPrefix):])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			subject = p
		default:
			continue
		}
		specs, err := parseLimitValue(value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for i, spec := range specs {
			rules, err := spec.envRules(scope, subject)
			if err != nil {
				if len(specs) > 1 {
					return nil, fmt.Errorf("%s: rule %d: %w", name, i, err)
				}
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			for _, r := range rules {
				k := r.Key()
				if other, dup := names[k]; dup {
					return nil, fmt.Errorf("%s: %w: %s is also set by %s", name, ErrInvalidRule, k, other)
				}
				names[k] = name
				out = append(out, SeededRule{Rule: r, Origin: name})
			}
		}
	}
	return out, nil
}

// envRules expands an entry of a variable's value for the scope and
// subject the variable's name gives; the entry itself may name none.
func (s RuleSpec) envRules(scope Scope, subject string) ([]Rule, error) {
	if s.SubjectName() != "" {
		return nil, errors.New("subject: the variable name sets the subject; leave subject, user_path, provider and model out")
	}
	return s.expand(scope, subject)
}

// EnvSuffixToUserPath maps the suffix of a SET_RATE_LIMIT_ (or
// SET_BUDGET_) variable to a user path: "" is "/", "__" separates
// segments, a single "_" stays inside a segment, and everything is
// lower-cased: "TEAM__ALPHA_ONE" is "/team/alpha_one". The result must
// be a valid user path (userpath.Normalize).
func EnvSuffixToUserPath(suffix string) (string, error) {
	if suffix == "" {
		return userpath.Root, nil
	}
	segs := strings.Split(suffix, "__")
	var b strings.Builder
	for _, s := range segs {
		if s == "" {
			return "", errors.New("empty user-path segment (use __ only between segments)")
		}
		b.WriteByte('/')
		b.WriteString(strings.ToLower(s))
	}
	return userpath.Normalize(b.String())
}
