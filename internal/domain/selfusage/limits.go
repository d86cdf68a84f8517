package selfusage

import (
	"context"

	"github.com/modelgate/modelgate/internal/domain/limits"
)

// LimitStatuses is what the rate-limit engine tells GET /v1/usage:
// *limits.Engine implements it.
type LimitStatuses interface {
	// StatusFor lists the user-path rules covering userPath with the
	// caller's live usage, charging nothing.
	StatusFor(userPath string) []limits.RuleStatus
}

// Limits adapts the rate-limit engine to RateLimitProvider.
type Limits struct {
	// Source is the engine; nil answers no rules.
	Source LimitStatuses
}

// RateLimitStatuses implements RateLimitProvider: every user-path rule
// covering userPath, from the root down, with the caller's counters (for a
// per_child template, those of the caller's child partition).
func (l Limits) RateLimitStatuses(_ context.Context, userPath string) []RateLimitStatus {
	if l.Source == nil {
		return nil
	}
	sts := l.Source.StatusFor(userPath)
	out := make([]RateLimitStatus, 0, len(sts))
	for _, st := range sts {
		out = append(out, FromRuleStatus(st))
	}
	return out
}

// FromRuleStatus converts one engine status to its /v1/usage form.
func FromRuleStatus(st limits.RuleStatus) RateLimitStatus {
	out := RateLimitStatus{
		Scope:            string(st.Key.Scope),
		Subject:          st.Key.Subject,
		Period:           string(st.Key.Period),
		PeriodSeconds:    int64(st.Key.Duration().Seconds()),
		PerChild:         st.Template,
		MaxRequests:      st.Rule.MaxRequests,
		MaxTokens:        st.Rule.MaxTokens,
		RequestsUsed:     st.Usage.RequestsUsed,
		TokensUsed:       st.Usage.TokensUsed,
		InFlight:         st.Usage.InFlight,
		EffectiveSubject: st.EffectiveSubject,
	}
	if !st.Usage.WindowStart.IsZero() {
		ws, we := st.Usage.WindowStart, st.Usage.WindowEnd
		out.WindowStart, out.WindowEnd = &ws, &we
	}
	return out
}
