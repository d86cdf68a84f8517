package limits

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/userpath"
)

// Scope says what a rule protects.
type Scope string

// Rule scopes.
const (
	// ScopeUserPath limits a user path and its descendants (consumer control).
	ScopeUserPath Scope = "user_path"
	// ScopeProvider limits a provider instance (upstream protection).
	ScopeProvider Scope = "provider"
	// ScopeModel limits a model: "provider/model" on one provider instance or
	// a bare "model" on any provider.
	ScopeModel Scope = "model"
)

// Period is a rule's window. The empty Period means a custom window of
// Rule.PeriodSeconds seconds.
type Period string

// Named periods.
const (
	// PeriodMinute is a 60-second window.
	PeriodMinute Period = "minute"
	// PeriodHour is a 3600-second window.
	PeriodHour Period = "hour"
	// PeriodDay is an 86400-second window (UTC days).
	PeriodDay Period = "day"
	// PeriodConcurrent makes MaxRequests an in-flight cap instead of a rate.
	PeriodConcurrent Period = "concurrent"
	// PeriodCustom (the empty Period) uses Rule.PeriodSeconds.
	PeriodCustom Period = ""
)

// Scopes lists the rule scopes, in the order rules are listed.
func Scopes() []Scope { return []Scope{ScopeUserPath, ScopeProvider, ScopeModel} }

// NamedPeriods lists the named periods.
func NamedPeriods() []Period { return []Period{PeriodMinute, PeriodHour, PeriodDay, PeriodConcurrent} }

// MaxPeriodSeconds is the longest custom window: rate limits cover seconds
// to a day; longer horizons are the budgets' job.
const MaxPeriodSeconds = 86400

// Rule sources.
const (
	// SourceManual marks rules created through the admin API or dashboard;
	// they are persisted in the store.
	SourceManual = "manual"
	// SourceConfig marks rules seeded from YAML or environment variables;
	// they are read-only to the admin API and never persisted.
	SourceConfig = "config"
)

// Errors returned by Validate and the Engine's admin operations. They are
// wrapped with detail; test with errors.Is.
var (
	// ErrQuotaTemplatesNotEntitled rejects a per_child rule without the paid
	// quota_templates entitlement (HTTP 403, code
	// quota_templates_not_entitled).
	ErrQuotaTemplatesNotEntitled = errors.New("per_child rate-limit templates require the quota_templates entitlement")
	// ErrInvalidRule wraps every other validation failure.
	ErrInvalidRule = errors.New("invalid rate-limit rule")
	// ErrRuleNotFound is returned when an operation names no existing rule.
	ErrRuleNotFound = errors.New("rate-limit rule not found")
	// ErrRuleReadOnly is returned when the admin API tries to change a rule
	// seeded from configuration.
	ErrRuleReadOnly = errors.New("rate-limit rule comes from configuration and is read-only")
	// ErrRuleExists is returned when an edit would move a rule onto the key
	// of another existing rule.
	ErrRuleExists = errors.New("a rate-limit rule with that scope, subject and period already exists")
)

// Rule is one rate-limit rule. Its JSON form (the field names below) is
// the one every surface shares: the admin API reads and writes it, stores
// persist it, and configuration entries (RuleSpec) expand into it.
type Rule struct {
	// Scope is user_path, provider or model.
	Scope Scope `json:"scope"`
	// Subject is the protected thing: a user path ("/team", normalized by
	// userpath.Normalize, which refuses "//" and "." segments), a
	// provider instance name, or a model ("provider/model" or bare
	// "model"). Provider and model subjects match case-insensitively.
	Subject string `json:"subject"`
	// Period is minute, hour, day, concurrent, or empty for a custom
	// window of PeriodSeconds.
	Period Period `json:"period,omitempty"`
	// PeriodSeconds is the custom window length when Period is empty
	// (1 to MaxPeriodSeconds).
	PeriodSeconds int `json:"period_seconds,omitempty"`
	// MaxRequests is the number of requests per window; under the
	// concurrent period it is the in-flight cap. 0 means no request cap.
	MaxRequests int64 `json:"max_requests,omitempty"`
	// MaxTokens is the number of tokens per window (not for concurrent).
	// 0 means no token cap.
	MaxTokens int64 `json:"max_tokens,omitempty"`
	// PerChild makes a user-path rule a template: every direct child of
	// Subject gets its own counters, and Subject itself does not match.
	PerChild bool `json:"per_child,omitempty"`
	// Source is "manual" (admin API, stored) or "config" (YAML, app
	// config or environment; read-only, never stored).
	Source string `json:"source,omitempty"`
}

// Key identifies a rule: two rules with the same Key are the same rule.
type Key struct {
	// Scope is the rule's scope.
	Scope Scope
	// Subject is normalized: a cleaned user path, or a lower-cased provider
	// or model name.
	Subject string
	// Period is the named period, empty for custom windows.
	Period Period
	// PeriodSeconds is the custom window length; 0 for named periods.
	PeriodSeconds int
}

// Key returns the rule's identity with the subject normalized.
func (r Rule) Key() Key {
	k := Key{Scope: r.Scope, Subject: r.Subject, Period: r.Period, PeriodSeconds: r.PeriodSeconds}
	return k.Normalize()
}

// Normalize returns k with its subject normalized the way rules are stored
// (cleaned user path; lower-cased provider and model names) and
// PeriodSeconds cleared for named periods.
func (k Key) Normalize() Key {
	k.Subject = normalizeSubject(k.Scope, k.Subject)
	if k.Period != PeriodCustom {
		k.PeriodSeconds = 0
	}
	return k
}

// Duration is the window length of k's period; 0 for concurrent rules and
// invalid periods.
func (k Key) Duration() time.Duration {
	switch k.Period {
	case PeriodMinute:
		return time.Minute
	case PeriodHour:
		return time.Hour
	case PeriodDay:
		return 24 * time.Hour
	case PeriodCustom:
		return time.Duration(k.PeriodSeconds) * time.Second
	}
	return 0
}

// PeriodLabel is k's period as shown to users: the period name, or the
// custom window as "<n>s".
func (k Key) PeriodLabel() string {
	if k.Period == PeriodCustom {
		return strconv.Itoa(k.PeriodSeconds) + "s"
	}
	return string(k.Period)
}

// String renders k for logs and error messages, e.g. `user_path "/team" minute`.
func (k Key) String() string {
	return fmt.Sprintf("%s %q %s", k.Scope, k.Subject, k.PeriodLabel())
}

// normalizeSubject normalizes a user path (userpath.Normalize) or
// lower-cases a provider or model name; unknown scopes, and user paths
// that userpath.Normalize refuses, only lose surrounding space (Validate
// reports the latter).
func normalizeSubject(s Scope, subject string) string {
	subject = strings.TrimSpace(subject)
	if subject == "" {
		return "" // a missing subject never becomes the root path
	}
	switch s {
	case ScopeUserPath:
		if p, err := userpath.Normalize(subject); err == nil {
			return foldPath(p)
		}
		return subject
	case ScopeProvider, ScopeModel:
		return lowerString(subject)
	}
	return subject
}

// normalized returns r with its subject normalized, PeriodSeconds cleared
// for named periods and an empty Source defaulted to manual.
func (r Rule) normalized() Rule {
	k := r.Key()
	r.Subject, r.PeriodSeconds = k.Subject, k.PeriodSeconds
	if r.Source == "" {
		r.Source = SourceManual
	}
	return r
}

// invalid returns the validation failure of one field of a rule, by its
// JSON name (scope, subject, period, period_seconds, max_requests,
// max_tokens, per_child, source): an apierr.FieldError wrapped in
// ErrInvalidRule, whose message is "invalid rate-limit rule: <field>:
// <reason>".
func invalid(field, format string, args ...any) error {
	return fmt.Errorf("%w: %w", ErrInvalidRule, apierr.FieldMsg(field, fmt.Sprintf(format, args...)))
}

// Validate checks k as written (before Normalize): a known scope, a valid
// subject for it, and a named period or a custom window of 1 to
// MaxPeriodSeconds seconds, not both. Failures name their field
// (apierr.FieldError). The subject is checked after normalization, so
// "/team/" is accepted as "/team".
func (k Key) Validate() error {
	switch k.Scope {
	case ScopeUserPath, ScopeProvider, ScopeModel:
	case "":
		return invalid("scope", "missing (want user_path, provider or model)")
	default:
		return invalid("scope", "%q is not one of user_path, provider, model", k.Scope)
	}
	if err := validateSubject(k.Scope, k.Subject); err != nil {
		return invalid("subject", "%v", err)
	}
	switch k.Period {
	case PeriodMinute, PeriodHour, PeriodDay, PeriodConcurrent:
		if k.PeriodSeconds != 0 {
			return invalid("period_seconds", "must not be set together with period %q", k.Period)
		}
	case PeriodCustom:
		if k.PeriodSeconds <= 0 {
			return invalid("period", "missing: set period (minute, hour, day, concurrent) or a positive period_seconds")
		}
		if k.PeriodSeconds > MaxPeriodSeconds {
			return invalid("period_seconds", "%d exceeds the maximum of %d (one day)", k.PeriodSeconds, MaxPeriodSeconds)
		}
	default:
		return invalid("period", "%q is not one of minute, hour, day, concurrent", k.Period)
	}
	return nil
}

// Validate checks r. entitled says whether the quota_templates entitlement
// is active: a per_child rule without it fails with
// ErrQuotaTemplatesNotEntitled. Every other failure wraps ErrInvalidRule
// and names the offending field (apierr.FieldError); the identity is
// checked by Key.Validate.
func (r Rule) Validate(entitled bool) error {
	if err := (Key{Scope: r.Scope, Subject: r.Subject, Period: r.Period, PeriodSeconds: r.PeriodSeconds}).Validate(); err != nil {
		return err
	}
	if r.MaxRequests < 0 {
		return invalid("max_requests", "must not be negative")
	}
	if r.MaxTokens < 0 {
		return invalid("max_tokens", "must not be negative")
	}
	if r.Period == PeriodConcurrent {
		if r.MaxTokens != 0 {
			return invalid("max_tokens", "not allowed with period concurrent (max_requests is the in-flight cap)")
		}
		if r.MaxRequests == 0 {
			return invalid("max_requests", "the in-flight cap of a concurrent rule must be positive")
		}
	}
	if r.MaxRequests == 0 && r.MaxTokens == 0 {
		return invalid("max_requests", "at least one of max_requests and max_tokens must be positive")
	}
	switch r.Source {
	case "", SourceManual, SourceConfig:
	default:
		return invalid("source", "%q is not one of manual, config", r.Source)
	}
	if r.PerChild {
		if r.Scope != ScopeUserPath {
			return invalid("per_child", "only valid on user_path rules, not %s", r.Scope)
		}
		if !entitled {
			return fmt.Errorf("per_child: %w", ErrQuotaTemplatesNotEntitled)
		}
	}
	return nil
}

// MaxSubjectLen is the longest provider or model subject, in bytes, the
// same bound as a user path's (userpath.MaxLen). A rule's subject is part
// of its storage key, and the embedded store refuses keys over 32 KiB: a
// longer subject must be a 400, not a failed write.
const MaxSubjectLen = userpath.MaxLen

// validateSubject checks a subject after normalization (so a user path
// "team/" is accepted as "/team").
func validateSubject(s Scope, subject string) error {
	if strings.TrimSpace(subject) == "" {
		return errors.New("missing") // never read as "/" for user paths
	}
	if s == ScopeUserPath {
		_, err := userpath.Normalize(subject)
		return err
	}
	n := normalizeSubject(s, subject)
	if len(n) > MaxSubjectLen {
		return fmt.Errorf("is longer than %d bytes", MaxSubjectLen)
	}
	for i := 0; i < len(n); i++ {
		if c := n[i]; c < 0x20 || c == 0x7f {
			return fmt.Errorf("%q contains a control character", subject)
		}
	}
	switch s {
	case ScopeProvider:
		if strings.ContainsAny(n, "/ \t") {
			return fmt.Errorf("provider name %q must not contain / or spaces", subject)
		}
	case ScopeModel:
		if strings.ContainsAny(n, " \t") || strings.HasPrefix(n, "/") || strings.HasSuffix(n, "/") {
			return fmt.Errorf("model %q must be provider/model or model", subject)
		}
	}
	return nil
}
