package admin

import (
	"errors"
	"strings"
	"time"

	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// rateLimitKey names one rule (DELETE and reset-one bodies, and the
// previous field of PUT): scope and subject, or user_path alone for a
// user-path rule, plus period or period_seconds.
type rateLimitKey struct {
	Scope         string  `json:"scope"`
	Subject       string  `json:"subject"`
	UserPath      string  `json:"user_path"`
	Period        *string `json:"period"`
	PeriodSeconds int     `json:"period_seconds"`
}

// rateLimitWrite is the body of PUT /admin/rate-limits.
type rateLimitWrite struct {
	rateLimitKey
	MaxRequests int64         `json:"max_requests"`
	MaxTokens   int64         `json:"max_tokens"`
	PerChild    bool          `json:"per_child"`
	Previous    *rateLimitKey `json:"previous"`
}

// key checks and converts k; prefix names the enclosing field in errors
// ("previous."). The identity rules themselves are limits.Key.Validate's;
// this view adds only what the wire form allows: user_path as shorthand
// for scope user_path, and period_seconds next to a named period when the
// two agree (a rule copied from GET carries both).
func (k rateLimitKey) key(prefix string) (limits.Key, *apierr.Error) {
	bad := func(field, msg string) *apierr.Error {
		return apierr.InvalidRequest(prefix + field + ": " + msg).WithCode(apierr.CodeInvalidValue).WithParam(prefix + field)
	}
	out := limits.Key{Scope: limits.Scope(strings.TrimSpace(k.Scope)), Subject: strings.TrimSpace(k.Subject), PeriodSeconds: k.PeriodSeconds}
	if up := strings.TrimSpace(k.UserPath); up != "" {
		switch {
		case out.Scope == "":
			out.Scope = limits.ScopeUserPath
		case out.Scope != limits.ScopeUserPath:
			return limits.Key{}, bad("user_path", "is shorthand for scope user_path; "+string(out.Scope)+" rules name their subject with subject")
		}
		if out.Subject != "" && (limits.Key{Scope: limits.ScopeUserPath, Subject: out.Subject}).Normalize() !=
			(limits.Key{Scope: limits.ScopeUserPath, Subject: up}).Normalize() {
			return limits.Key{}, bad("subject", "differs from user_path; set one of them")
		}
		out.Subject = up
	}
	if k.Period != nil {
		out.Period = limits.Period(strings.ToLower(strings.TrimSpace(*k.Period)))
	}
	if d := (limits.Key{Period: out.Period}).Duration(); d > 0 && out.Period != limits.PeriodCustom && k.PeriodSeconds != 0 {
		if time.Duration(k.PeriodSeconds)*time.Second != d {
			return limits.Key{}, bad("period_seconds", "disagrees with period "+string(out.Period)+"; set one of them")
		}
		out.PeriodSeconds = 0
	}
	if err := out.Validate(); err != nil {
		var fe *apierr.FieldError
		if errors.As(err, &fe) && fe.Field == "subject" && strings.TrimSpace(k.UserPath) != "" {
			return limits.Key{}, bad("user_path", fe.Err.Error()) // the body named it so
		}
		return limits.Key{}, ruleFieldError(prefix, err)
	}
	return out, nil
}

// ruleFieldError answers a rule validation failure with the field as param
// (prefixed, e.g. "previous.period").
func ruleFieldError(prefix string, err error) *apierr.Error {
	var fe *apierr.FieldError
	if !errors.As(err, &fe) {
		return apierr.InvalidRequest(err.Error()).WithCode(apierr.CodeInvalidValue)
	}
	return apierr.InvalidRequest(prefix + fe.Error()).WithCode(apierr.CodeInvalidValue).WithParam(prefix + fe.Field)
}

// rule checks and converts the body into the rule to write and the key of
// the rule it replaces (nil when none is named).
func (b rateLimitWrite) rule() (limits.Rule, *limits.Key, *apierr.Error) {
	k, ae := b.key("")
	if ae != nil {
		return limits.Rule{}, nil, ae
	}
	r := limits.Rule{Scope: k.Scope, Subject: k.Subject, Period: k.Period, PeriodSeconds: k.PeriodSeconds,
		MaxRequests: b.MaxRequests, MaxTokens: b.MaxTokens, PerChild: b.PerChild, Source: limits.SourceManual}
	if b.Previous == nil {
		return r, nil, nil
	}
	pk, ae := b.Previous.key("previous.")
	if ae != nil {
		return limits.Rule{}, nil, ae
	}
	return r, &pk, nil
}
