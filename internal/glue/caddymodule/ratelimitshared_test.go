package caddymodule

import (
	"context"
	"testing"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/platform/config"
	"github.com/modelgate/modelgate/internal/storage/store/redisstore"
	"github.com/modelgate/modelgate/internal/testkit/redistest"
)

// TestOpenLimiterWithRedis: with Redis the engine of each app counts in
// Redis, so two apps ("processes") share one window; fail-closed comes
// from the config; an app without Redis gets an engine of its own.
func TestOpenLimiterWithRedis(t *testing.T) {
	url, prefix := redistest.New(t)
	rule := limits.Rule{Scope: limits.ScopeUserPath, Subject: "/", Period: limits.PeriodMinute, MaxRequests: 3}
	newApp := func(name, redisURL string, failClosed bool) *App {
		t.Helper()
		c, err := redisstore.Open(context.Background(), redisstore.Options{URL: redisURL, Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Destruct() })
		a := &App{logger: zap.NewNop(), storePath: t.Name() + name, rateRules: []limits.Rule{rule}, limiterRef: new(limiterRef), redis: c}
		a.effective.Redis = redisURL
		a.effective.RateLimits.Enabled = config.Ptr(true)
		a.effective.RedisFailClosed = config.Ptr(failClosed)
		if err := a.openLimiter(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = a.releaseLimiter() })
		return a
	}
	p1, p2 := newApp("p1", url, false), newApp("p2", url, false)
	admitted := 0
	for i := 0; i < 10; i++ {
		p := p1
		if i%2 == 1 {
			p = p2
		}
		if a, rej := p.Limiter().AdmitUserPath("/u"); rej == nil {
			admitted++
			a.Done(0)
		}
	}
	if admitted != 3 {
		t.Fatalf("two processes admitted %d under one shared max 3", admitted)
	}
	down := newApp("down", "redis://127.0.0.1:1/0", true)
	_, rej := down.Limiter().AdmitUserPath("/u")
	if rej == nil || !rej.Unavailable {
		t.Fatalf("fail-closed with Redis down: %+v", rej)
	}
	if down.limiterRef.opened.Load().SharedFallbacks() != 1 {
		t.Fatal("fallback not counted")
	}
	local := &App{logger: zap.NewNop(), storePath: t.Name() + "p1", rateRules: []limits.Rule{rule}, limiterRef: new(limiterRef)}
	local.effective.RateLimits.Enabled = config.Ptr(true)
	if err := local.openLimiter(); err != nil {
		t.Fatal(err)
	}
	defer local.releaseLimiter()
	if local.Limits() == p1.Limits() || local.Limits().SharedHealthy() {
		t.Fatal("an app without Redis shares the Redis engine")
	}
}
