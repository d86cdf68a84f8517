package caddymodule

import (
	"github.com/caddyserver/caddy/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/storage/store/redisstore"
)

// limiterKey names the rate-limit engine of this config in the limiters
// pool: one per store and Redis server, so that switching Redis on or off
// (or to another server) builds a new engine.
func (a *App) limiterKey() string {
	return a.storePath + "\x00redis=" + a.effective.Redis
}

// sharedLimits points opts at Redis when the app has it: windows and
// concurrency slots live there (no local counter snapshots), admin changes
// are announced on the bus. It returns the Redis counters, for the caller
// to follow the other processes' changes once the engine exists, or nil.
func (a *App) sharedLimits(opts *limits.Options) *redisstore.RateLimits {
	if a.redis == nil {
		return nil
	}
	rl := redisstore.NewRateLimits(a.redis, redisstore.RateLimitOptions{Logger: a.logger.Named("ratelimit.redis")})
	opts.Shared = rl
	opts.Counters = nil
	opts.FlushInterval = 0
	opts.SharedFailClosed = a.effective.RedisFailClosed != nil && *a.effective.RedisFailClosed
	opts.OnChange = rl.Announce
	return rl
}

// registerRateLimitMetrics registers modelgate_ratelimit_redis_fallback_total
// (admissions decided without Redis because it did not answer) and
// modelgate_ratelimit_redis_up (1 while admissions go through Redis, 0
// while they fall back or without Redis), reading the app's engine when
// scraped.
func (a *App) registerRateLimitMetrics(ctx caddy.Context) error {
	reg := ctx.GetMetricsRegistry()
	if reg == nil {
		return nil
	}
	fallbacks := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "modelgate_ratelimit_redis_fallback_total",
		Help: "Rate-limit admissions decided per process (or refused, fail-closed) because Redis did not answer.",
	}, func() float64 {
		if e := a.limiterRef.opened.Load(); e != nil {
			return float64(e.SharedFallbacks())
		}
		return 0
	})
	up := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "modelgate_ratelimit_redis_up",
		Help: "1 while rate-limit admissions go through Redis, 0 while they fall back or Redis is not configured.",
	}, func() float64 {
		if e := a.limiterRef.opened.Load(); e != nil && e.SharedHealthy() {
			return 1
		}
		return 0
	})
	for _, c := range []prometheus.Collector{fallbacks, up} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
