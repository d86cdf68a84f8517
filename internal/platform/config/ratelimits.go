package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// RateLimits holds rate-limit settings and the rules configuration seeds.
// Seeded rules have source config: read-only to the admin API, never
// stored. Each list entry is checked where it is decoded.
type RateLimits struct {
	// Enabled turns rate limiting on or off (default on). Env
	// RATE_LIMITS_ENABLED.
	Enabled *bool `yaml:"enabled,omitempty" json:"enabled,omitempty"`
	// FlushInterval is the number of seconds between counter snapshots;
	// 0 skips the periodic write. Default 1; env RATE_LIMITS_FLUSH_INTERVAL.
	FlushInterval *int `yaml:"flush_interval,omitempty" json:"flush_interval,omitempty"`
	// UserPaths are user-path rules: each entry names its path with
	// user_path (or subject) and limits that path and its descendants.
	UserPaths []limits.RuleSpec `yaml:"user_paths,omitempty" json:"user_paths,omitempty"`
	// Providers are provider rules: each entry names a provider instance
	// with provider (or subject).
	Providers []limits.RuleSpec `yaml:"providers,omitempty" json:"providers,omitempty"`
	// Models are model rules: each entry names "provider/model" or a bare
	// model with model (or subject).
	Models []limits.RuleSpec `yaml:"models,omitempty" json:"models,omitempty"`
}

// rateLimitLists names the rule lists with their scopes.
func (r RateLimits) lists() [3]struct {
	name  string
	scope limits.Scope
	specs []limits.RuleSpec
} {
	return [...]struct {
		name  string
		scope limits.Scope
		specs []limits.RuleSpec
	}{
		{"user_paths", limits.ScopeUserPath, r.UserPaths},
		{"providers", limits.ScopeProvider, r.Providers},
		{"models", limits.ScopeModel, r.Models},
	}
}

// expand turns the lists into rules, reporting every invalid entry and
// every rule key defined by two entries (naming both).
func (r RateLimits) expand() ([]limits.SeededRule, []problem) {
	var (
		out   []limits.SeededRule
		probs []problem
	)
	names := map[limits.Key]string{}
	for _, l := range r.lists() {
		for i, spec := range l.specs {
			where := fmt.Sprintf("rate_limits.%s[%d]", l.name, i)
			if s := spec.SubjectName(); s != "" {
				where += " (" + s + ")"
			}
			path := []any{"rate_limits", l.name, i}
			rules, err := spec.Rules(l.scope)
			if err != nil {
				probs = append(probs, problem{path, fmt.Errorf("%s: %w", where, err)})
				continue
			}
			for _, rule := range rules {
				k := rule.Key()
				if other, dup := names[k]; dup {
					probs = append(probs, problem{path, fmt.Errorf("%s: %w: %s is also defined by %s", where, limits.ErrInvalidRule, k, other)})
					continue
				}
				names[k] = where
				out = append(out, limits.SeededRule{Rule: rule, Origin: where})
			}
		}
	}
	return out, probs
}

// problems reports the invalid entries of the lists.
func (r RateLimits) problems() []problem {
	_, probs := r.expand()
	return probs
}

// UnmarshalJSON decodes the section strictly (unknown fields are errors,
// as in the rest of the Caddy config) and checks every rule entry, so a
// bad rule fails where the JSON config is read.
func (r *RateLimits) UnmarshalJSON(b []byte) error {
	type plain RateLimits
	var p plain
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf("rate_limits: %w", err)
	}
	if probs := RateLimits(p).problems(); len(probs) > 0 {
		return joinProblems(probs)
	}
	*r = RateLimits(p)
	return nil
}

// SeededRateLimitRules returns the rules configuration seeds: c's
// rate_limits lists plus the SET_RATE_LIMIT_* and SET_PROVIDER_RATE_LIMIT_*
// variables read into env, which win over the lists for the same rule key.
// A per_child rule without the quota_templates entitlement is an error
// naming its entry or variable (no silent fallback to one shared counter).
func (c Config) SeededRateLimitRules(env Env) ([]limits.Rule, error) {
	fromLists, probs := c.RateLimits.expand()
	if len(probs) > 0 {
		return nil, joinProblems(probs)
	}
	seeded := slices.Clone(env.rateLimits)
	taken := map[limits.Key]bool{}
	for _, s := range seeded {
		taken[s.Rule.Key()] = true
	}
	for _, s := range fromLists {
		if !taken[s.Rule.Key()] {
			seeded = append(seeded, s)
		}
	}
	entitled := slices.Contains(c.Entitlements, EntitlementQuotaTemplates)
	out := make([]limits.Rule, 0, len(seeded))
	for _, s := range seeded {
		if s.Rule.PerChild && !entitled {
			return nil, fmt.Errorf("%s: per_child: %w; add %s to entitlements (YAML entitlements, Caddyfile entitlements or GATEWAY_ENTITLEMENTS)",
				s.Origin, limits.ErrQuotaTemplatesNotEntitled, EntitlementQuotaTemplates)
		}
		if err := c.Providers.CheckRule(s.Rule); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Origin, err)
		}
		out = append(out, s.Rule)
	}
	return out, nil
}

// problem is an invalid setting found where a section is decoded: path
// locates it in the document (mapping keys and list indexes, so the YAML
// reader can name the line), err names the setting and says what is
// wrong.
type problem struct {
	path []any
	err  error
}

// joinProblems joins the problems' errors.
func joinProblems(ps []problem) error {
	errs := make([]error, len(ps))
	for i, p := range ps {
		errs[i] = p.err
	}
	return errors.Join(errs...)
}

// CheckRule refuses a provider rule whose subject names no configured
// provider (a typo would protect nothing, silently); the error is a
// FieldError of "subject". Rules of other scopes pass.
func (ps Providers) CheckRule(rule limits.Rule) error {
	if rule.Scope != limits.ScopeProvider || ps.Has(rule.Subject) {
		return nil
	}
	return apierr.FieldMsg("subject", fmt.Sprintf("no provider named %q (configured: %s)",
		rule.Subject, strings.Join(ps.Names(), ", ")))
}
