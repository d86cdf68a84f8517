package caddymodule

import (
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/platform/config"
	"github.com/modelgate/modelgate/internal/storage/store/boltstore"
)

// limiters shares one rate-limit engine per store path across config
// loads, like keyServices: old and new config count against the same
// windows, so a reload neither resets nor doubles any limit. The last
// holder closes the engine (a final counter snapshot) before the store
// closes.
var limiters = caddy.NewUsagePool()

// sharedEngine makes an engine a caddy.Destructor.
type sharedEngine struct{ *limits.Engine }

// Destruct closes the engine, writing its final counter snapshot.
func (s sharedEngine) Destruct() error { return s.Close() }

// limiterRef hands the engine that Start opens to the services built in
// Provision (the proxy, GET /v1/usage), which may in principle serve a
// request before Start has run: until then nothing is limited.
type limiterRef struct {
	eng atomic.Pointer[limits.Engine]
	// opened is the engine also when rate limiting is switched off, for
	// the metrics, which are scraped concurrently with Start.
	opened atomic.Pointer[limits.Engine]
}

// AdmitTarget implements proxy.TargetLimiter.
func (l *limiterRef) AdmitTarget(provider, model string) (limits.Admission, *limits.Rejection) {
	if e := l.eng.Load(); e != nil {
		return e.AdmitTarget(provider, model)
	}
	return limits.Admission{}, nil
}

// TargetAvailable implements proxy.TargetLimiter.
func (l *limiterRef) TargetAvailable(provider, model string) (time.Duration, bool) {
	if e := l.eng.Load(); e != nil {
		return e.TargetAvailable(provider, model)
	}
	return 0, true
}

// StatusFor implements selfusage.LimitStatuses.
func (l *limiterRef) StatusFor(userPath string) []limits.RuleStatus {
	if e := l.eng.Load(); e != nil {
		return e.StatusFor(userPath)
	}
	return nil
}

// quotaTemplates reports whether the quota_templates entitlement is on.
func quotaTemplates(c config.Config) bool {
	return slices.Contains(c.Entitlements, config.EntitlementQuotaTemplates)
}

// openLimiter takes (or creates) the shared engine of the store, applies
// this config's switches and rules to it and hands it to the services.
// Caller holds the store.
func (a *App) openLimiter() error {
	eff := a.effective
	val, _, err := limiters.LoadOrNew(a.limiterKey(), func() (caddy.Destructor, error) {
		var rules limits.RuleStore
		var counters limits.CounterStore
		if a.store != nil {
			st := boltstore.NewRateLimits(a.store)
			rules, counters = st, st
		}
		if a.pg != nil {
			rules = a.pgRuleStore()
		}
		opts := limits.Options{
			Rules:          rules,
			Counters:       counters,
			FlushInterval:  eff.RateLimits.FlushEvery(),
			Logger:         a.logger.Named("ratelimit"),
			TokensEnforced: eff.Usage.On(),
			QuotaTemplates: quotaTemplates(eff),
		}
		shared := a.sharedLimits(&opts)
		e, err := limits.New(opts)
		if err != nil {
			if shared != nil {
				_ = shared.Close()
			}
			return nil, err
		}
		if shared != nil {
			shared.Follow(e.ApplyChange)
		}
		return sharedEngine{e}, nil
	})
	if err != nil {
		return fmt.Errorf("modelgate: loading rate limits: %w", err)
	}
	eng := val.(sharedEngine).Engine
	a.limitsHeld = true
	eng.SetQuotaTemplates(quotaTemplates(eff))
	eng.SetSharedFailClosed(eff.RedisFailClosed != nil && *eff.RedisFailClosed)
	eng.SetTokensEnforced(eff.Usage.On())
	if err := eng.SetConfigRules(a.rateRules); err != nil {
		a.releaseLimiter()
		return fmt.Errorf("modelgate: %w", err)
	}
	a.limits = eng
	a.limiterRef.opened.Store(eng)
	if eff.RateLimits.On() {
		a.limiterRef.eng.Store(eng)
	} else if len(a.rateRules) > 0 || len(eng.Rules()) > 0 {
		a.logger.Warn("rate limiting is switched off (rate_limits.enabled / RATE_LIMITS_ENABLED): rules exist but are not enforced")
	}
	return nil
}

// releaseLimiter drops this instance's hold on the shared engine; the last
// holder closes it. Call it before the store is released.
func (a *App) releaseLimiter() error {
	if !a.limitsHeld {
		return nil
	}
	a.limitsHeld = false
	if _, err := limiters.Delete(a.limiterKey()); err != nil {
		return fmt.Errorf("modelgate: closing rate limits: %w", err)
	}
	return nil
}

// Limits returns the shared rate-limit engine (also when rate limiting is
// switched off: rules can still be managed), or nil before Start.
func (a *App) Limits() *limits.Engine { return a.limits }

// Limiter returns the engine that enforces rate limits, or nil when rate
// limiting is switched off or the app has not started.
func (a *App) Limiter() *limits.Engine {
	if a.limiterRef == nil {
		return nil
	}
	return a.limiterRef.eng.Load()
}
