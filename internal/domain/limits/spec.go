package limits

import (
	"fmt"
	"strings"
)

// RuleSpec is a rate-limit rule as configuration writes it: an entry of
// the lists rate_limits.user_paths, rate_limits.providers and
// rate_limits.models (YAML file or Caddy JSON config), or an element of
// the JSON array form of SET_RATE_LIMIT_* and SET_PROVIDER_RATE_LIMIT_*.
// One entry may set caps of several periods, so it expands into one or
// more Rules (see Rules). Zero means "not set" for every number.
type RuleSpec struct {
	// Scope may repeat the scope of the list the entry is in (user_path,
	// provider or model); any other value is refused.
	Scope Scope `json:"scope,omitempty" yaml:"scope,omitempty"`
	// Subject names what the rule protects; an entry may instead use the
	// key of its list (UserPath, Provider or Model), but not both.
	Subject string `json:"subject,omitempty" yaml:"subject,omitempty"`
	// UserPath is the subject of a rate_limits.user_paths entry: the path
	// and its descendants are limited ("/team" covers "/team/app").
	UserPath string `json:"user_path,omitempty" yaml:"user_path,omitempty"`
	// Provider is the subject of a rate_limits.providers entry: a provider
	// instance name, matched case-insensitively.
	Provider string `json:"provider,omitempty" yaml:"provider,omitempty"`
	// Model is the subject of a rate_limits.models entry: "provider/model"
	// (one provider's model) or a bare model id (that model on any
	// provider), matched case-insensitively.
	Model string `json:"model,omitempty" yaml:"model,omitempty"`
	// Period is the window of MaxRequests and MaxTokens: minute, hour, day
	// or concurrent (MaxRequests is then the in-flight cap). Set it or
	// PeriodSeconds, not both.
	Period Period `json:"period,omitempty" yaml:"period,omitempty"`
	// PeriodSeconds is a custom window of 1 to 86400 seconds.
	PeriodSeconds int `json:"period_seconds,omitempty" yaml:"period_seconds,omitempty"`
	// MaxRequests is the request cap per window (the in-flight cap under
	// period concurrent). A period needs MaxRequests or MaxTokens.
	MaxRequests int64 `json:"max_requests,omitempty" yaml:"max_requests,omitempty"`
	// MaxTokens is the token cap per window, charged when each response
	// completes; not allowed under period concurrent.
	MaxTokens int64 `json:"max_tokens,omitempty" yaml:"max_tokens,omitempty"`
	// PerChild makes a user-path rule a template: each direct child path
	// gets its own counters. Needs the quota_templates entitlement.
	PerChild bool `json:"per_child,omitempty" yaml:"per_child,omitempty"`
	// RPM is a request cap per minute (compact form; may be combined with
	// the other compact caps and with Period).
	RPM int64 `json:"rpm,omitempty" yaml:"rpm,omitempty"`
	// TPM is a token cap per minute.
	TPM int64 `json:"tpm,omitempty" yaml:"tpm,omitempty"`
	// RPH is a request cap per hour.
	RPH int64 `json:"rph,omitempty" yaml:"rph,omitempty"`
	// TPH is a token cap per hour.
	TPH int64 `json:"tph,omitempty" yaml:"tph,omitempty"`
	// RPD is a request cap per day.
	RPD int64 `json:"rpd,omitempty" yaml:"rpd,omitempty"`
	// TPD is a token cap per day.
	TPD int64 `json:"tpd,omitempty" yaml:"tpd,omitempty"`
	// Concurrent is an in-flight cap.
	Concurrent int64 `json:"concurrent,omitempty" yaml:"concurrent,omitempty"`
}

// SubjectName returns the subject as written (for messages), whichever
// key names it.
func (s RuleSpec) SubjectName() string {
	for _, v := range [...]string{s.Subject, s.UserPath, s.Provider, s.Model} {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// Rules expands s, an entry of the list of scope, into validated rules
// with source config: one rule per period (compact caps first, in the
// order minute, hour, day, concurrent, with the explicit Period merged
// into its period's rule). Errors name the offending field, e.g.
// "max_tokens: must not be negative". The quota_templates entitlement is
// not checked here (Engine.SetConfigRules does).
func (s RuleSpec) Rules(scope Scope) ([]Rule, error) {
	subject, err := s.subjectFor(scope)
	if err != nil {
		return nil, err
	}
	return s.expand(scope, subject)
}

// subjectFor finds the subject among the keys s may use in the list of
// scope: the key named like the scope (user_path, provider, model) or
// subject.
func (s RuleSpec) subjectFor(scope Scope) (string, error) {
	own := map[Scope]string{ScopeUserPath: s.UserPath, ScopeProvider: s.Provider, ScopeModel: s.Model}
	for _, other := range [...]Scope{ScopeUserPath, ScopeProvider, ScopeModel} {
		if other != scope && own[other] != "" {
			return "", fmt.Errorf("%s: not a key of %s rules (name the subject with %s or subject)", other, scope, scope)
		}
	}
	subject := own[scope]
	switch {
	case subject != "" && s.Subject != "":
		return "", fmt.Errorf("subject: set only one of %s and subject", scope)
	case s.Subject != "":
		subject = s.Subject
	}
	if strings.TrimSpace(subject) == "" {
		return "", fmt.Errorf("%s: missing", scope)
	}
	return subject, nil
}

// compactCaps lists s's compact caps with their names.
func (s RuleSpec) compactCaps() [7]struct {
	name string
	v    int64
} {
	return [...]struct {
		name string
		v    int64
	}{{"rpm", s.RPM}, {"tpm", s.TPM}, {"rph", s.RPH}, {"tph", s.TPH}, {"rpd", s.RPD}, {"tpd", s.TPD}, {"concurrent", s.Concurrent}}
}

// expand builds the rules of s for scope and subject.
func (s RuleSpec) expand(scope Scope, subject string) ([]Rule, error) {
	if s.Scope != "" && s.Scope != scope {
		return nil, fmt.Errorf("scope: %q does not match the list (%s)", s.Scope, scope)
	}
	var cs capSet
	for _, c := range s.compactCaps() {
		if c.v < 0 {
			return nil, fmt.Errorf("%s: must be a positive integer", c.name)
		}
		if c.v > 0 {
			if err := cs.setCompact(c.name, c.v); err != nil {
				return nil, err
			}
		}
	}
	period := Period(strings.ToLower(strings.TrimSpace(string(s.Period))))
	switch {
	case s.MaxRequests < 0:
		return nil, fmt.Errorf("max_requests: must not be negative")
	case s.MaxTokens < 0:
		return nil, fmt.Errorf("max_tokens: must not be negative")
	case s.PeriodSeconds < 0:
		return nil, fmt.Errorf("period_seconds: must be a positive integer")
	case period != "" && s.PeriodSeconds != 0:
		return nil, fmt.Errorf("period_seconds: set either period or period_seconds")
	case period != "" || s.PeriodSeconds != 0:
		if s.MaxRequests == 0 && s.MaxTokens == 0 {
			return nil, fmt.Errorf("max_requests: a period needs max_requests or max_tokens")
		}
		if s.MaxRequests > 0 {
			if err := cs.set("max_requests", period, s.PeriodSeconds, false, s.MaxRequests); err != nil {
				return nil, err
			}
		}
		if s.MaxTokens > 0 {
			if err := cs.set("max_tokens", period, s.PeriodSeconds, true, s.MaxTokens); err != nil {
				return nil, err
			}
		}
	case s.MaxRequests != 0 || s.MaxTokens != 0:
		return nil, fmt.Errorf("period: required with max_requests or max_tokens (or use rpm, tpm, ...)")
	}
	rules := cs.list()
	if len(rules) == 0 {
		return nil, fmt.Errorf("no caps: set period with max_requests/max_tokens, or rpm, tpm, rph, tph, rpd, tpd, concurrent")
	}
	for i := range rules {
		r := &rules[i]
		r.Scope, r.Subject, r.PerChild, r.Source = scope, subject, s.PerChild, SourceConfig
		*r = r.normalized()
		if err := r.Validate(true); err != nil {
			return nil, err
		}
	}
	return rules, nil
}
