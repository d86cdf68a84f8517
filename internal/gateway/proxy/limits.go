package proxy

import (
	"net/http"
	"time"

	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// TargetLimiter enforces the provider and model rate-limit rules (spec
// part 8): *limits.Engine implements it. Tests may stub it.
type TargetLimiter interface {
	// AdmitTarget checks and charges the rules of one provider instance
	// and upstream model id. On success Done must be called on the
	// returned Admission when the attempt has finished.
	AdmitTarget(provider, model string) (limits.Admission, *limits.Rejection)
	// TargetAvailable reports, without charging, whether AdmitTarget
	// would admit now, and otherwise how long until it would.
	TargetAvailable(provider, model string) (retryAfter time.Duration, ok bool)
}

// TargetAvailable reports whether a request to the upstream model id on
// provider would pass the provider and model rate limits now, charging
// nothing; when it would not, retryAfter is the wait until it would.
// Virtual-model balancing and failover use it to skip saturated targets.
// Without a limiter every target is available.
func (s *Service) TargetAvailable(provider, model string) (retryAfter time.Duration, ok bool) {
	if s.Limits == nil {
		return 0, true
	}
	return s.Limits.TargetAvailable(provider, model)
}

// admit charges c's provider and model rules before the upstream is
// called; a rejection means a rule is saturated and the upstream must not
// be called. The token-count estimate answered locally never gets here; a
// native count_tokens call is not counted either (it runs no model).
func (s *Service) admit(c *call) (limits.Admission, *limits.Rejection) {
	if s.Limits == nil || c.in == ingressCountTokens {
		return limits.Admission{}, nil
	}
	return s.Limits.AdmitTarget(c.provider.Name(), c.model)
}

// admitTarget charges c's provider and model rules before a single-target
// call (audio, passthrough). When a rule is saturated it writes the 429
// and returns false: the upstream is never called.
func (s *Service) admitTarget(w http.ResponseWriter, r *http.Request, c *call) (limits.Admission, bool) {
	adm, rej := s.admit(c)
	if rej != nil {
		c.info.RefusedBeforeUpstream = true
		apierr.WriteFor(w, r, targetRejected(c.info, c.provider.Name(), rej))
		return adm, false
	}
	return adm, true
}

// targetRejected is the 429 for a saturated provider or model, or the 503
// when the limits could not be checked (fail-closed without the shared
// counter store). A saturated rule is noted on info (RateLimitRule).
func targetRejected(info *reqinfo.Info, provider string, rej *limits.Rejection) *apierr.Error {
	if rej.Unavailable {
		// Fail-closed without the shared counter store: 503, not 429.
		e := apierr.New(http.StatusServiceUnavailable, apierr.TypeProvider, rej.Reason).
			WithCode("rate_limits_unavailable").WithProvider(provider)
		e.RetryAfter = int(rej.RetryAfterSeconds())
		return e
	}
	info.RateLimitRule = RuleOf(rej.Rule)
	e := apierr.New(http.StatusTooManyRequests, apierr.TypeRateLimit, rej.Reason).
		WithCode("rate_limit_exceeded").WithProvider(provider)
	e.RetryAfter = int(rej.RetryAfterSeconds())
	return e
}

// RuleOf names the rate-limit rule k for the request's record.
func RuleOf(k limits.Key) *reqinfo.Rule {
	return &reqinfo.Rule{Scope: string(k.Scope), Subject: k.Subject, Period: k.PeriodLabel()}
}

// usedTokens is the total token usage recorded for the request so far
// (0 when none is known: errors, disconnects before the usage arrived).
func usedTokens(info *reqinfo.Info) int64 {
	if info == nil {
		return 0
	}
	u, ok := info.Usage()
	if !ok {
		return 0
	}
	return u.TotalTokens
}
