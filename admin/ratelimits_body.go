package admin

import (
	"strconv"
	"strings"
	"time"

	"github.com/modelgate/modelgate/apierr"
	"github.com/modelgate/modelgate/limits"
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
// ("previous.").
func (k rateLimitKey) key(prefix string) (limits.Key, *apierr.Error) {
	bad := func(field, msg string) *apierr.Error {
		return apierr.InvalidRequest(prefix + field + ": " + msg).WithCode("invalid_value").WithParam(prefix + field)
	}
	scope, subject := limits.Scope(strings.TrimSpace(k.Scope)), strings.TrimSpace(k.Subject)
	if up := strings.TrimSpace(k.UserPath); up != "" {
		switch {
		case scope == "":
			scope = limits.ScopeUserPath
		case scope != limits.ScopeUserPath:
			return limits.Key{}, bad("user_path", "is shorthand for scope user_path; "+string(scope)+" rules name their subject with subject")
		}
		if subject != "" && (limits.Key{Scope: limits.ScopeUserPath, Subject: subject}).Normalize() !=
			(limits.Key{Scope: limits.ScopeUserPath, Subject: up}).Normalize() {
			return limits.Key{}, bad("subject", "differs from user_path; set one of them")
		}
		subject = up
	}
	switch scope {
	case limits.ScopeUserPath, limits.ScopeProvider, limits.ScopeModel:
	case "":
		return limits.Key{}, bad("scope", "missing: user_path, provider or model (or set user_path)")
	default:
		return limits.Key{}, bad("scope", "must be user_path, provider or model")
	}
	if subject == "" {
		return limits.Key{}, bad("subject", "missing")
	}
	out := limits.Key{Scope: scope, Subject: subject}
	period := ""
	if k.Period != nil {
		period = strings.ToLower(strings.TrimSpace(*k.Period))
	}
	switch {
	case period != "":
		out.Period = limits.Period(period)
		switch out.Period {
		case limits.PeriodMinute, limits.PeriodHour, limits.PeriodDay, limits.PeriodConcurrent:
		default:
			return limits.Key{}, bad("period", "must be minute, hour, day or concurrent (or use period_seconds)")
		}
		// A rule copied from GET carries both; they must agree.
		if k.PeriodSeconds != 0 && time.Duration(k.PeriodSeconds)*time.Second != out.Duration() {
			return limits.Key{}, bad("period_seconds", "disagrees with period "+period+"; set one of them")
		}
	case k.PeriodSeconds > 0:
		if k.PeriodSeconds > limits.MaxPeriodSeconds {
			return limits.Key{}, bad("period_seconds", "must be at most "+strconv.Itoa(limits.MaxPeriodSeconds)+" (one day)")
		}
		out.PeriodSeconds = k.PeriodSeconds
	case k.PeriodSeconds < 0:
		return limits.Key{}, bad("period_seconds", "must be positive")
	default:
		return limits.Key{}, bad("period", "missing: minute, hour, day, concurrent, or a period_seconds")
	}
	return out, nil
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
