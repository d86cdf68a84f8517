package caddymodule

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/platform/config"
)

// TestLimiterRef: before Start everything is admitted and available.
func TestLimiterRef(t *testing.T) {
	var l limiterRef
	if _, rej := l.AdmitTarget("p", "m"); rej != nil {
		t.Fatal(rej)
	}
	if _, ok := l.TargetAvailable("p", "m"); !ok || l.StatusFor("/") != nil {
		t.Fatal("unset ref limits")
	}
	e, err := limits.New(limits.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Upsert(limits.Rule{Scope: limits.ScopeProvider, Subject: "p", Period: limits.PeriodConcurrent, MaxRequests: 1}, nil); err != nil {
		t.Fatal(err)
	}
	l.eng.Store(e)
	a, rej := l.AdmitTarget("p", "m")
	if rej != nil {
		t.Fatal(rej)
	}
	if _, ok := l.TargetAvailable("p", "m"); ok {
		t.Fatal("full target available")
	}
	a.Done(0)
	if _, ok := l.TargetAvailable("P", "m"); !ok {
		t.Fatal("released target unavailable")
	}
}

// TestOpenLimiter: the engine is shared per store path, gets this
// config's rules and switches, warns when token caps cannot be enforced,
// and is handed out for enforcement only when rate limiting is on.
func TestOpenLimiter(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	newApp := func(usageOn, limitsOn bool, rules ...limits.Rule) *App {
		a := &App{logger: zap.New(core), storePath: t.Name(), rateRules: rules, limiterRef: new(limiterRef)}
		a.effective.Usage.Enabled = config.Ptr(usageOn)
		a.effective.RateLimits.Enabled = config.Ptr(limitsOn)
		return a
	}
	tokens := limits.Rule{Scope: limits.ScopeUserPath, Subject: "/t", Period: limits.PeriodMinute, MaxTokens: 10}
	a := newApp(false, true, tokens)
	if err := a.openLimiter(); err != nil {
		t.Fatal(err)
	}
	if a.Limiter() == nil || a.Limits() != a.Limiter() || len(a.Limits().Rules()) != 1 {
		t.Fatal("engine not handed out")
	}
	if logs.FilterMessageSnippet("not enforced because usage tracking is off").Len() != 1 {
		t.Fatalf("no token warning: %v", logs.All())
	}
	// A second config on the same store shares the engine; switched off,
	// it manages rules but enforces nothing.
	b := newApp(true, false)
	if err := b.openLimiter(); err != nil {
		t.Fatal(err)
	}
	if b.Limits() != a.Limits() || b.Limiter() != nil || len(b.Limits().Rules()) != 0 {
		t.Fatal("engine not shared, or enforced while off")
	}
	if err := a.releaseLimiter(); err != nil {
		t.Fatal(err)
	}
	if err := b.releaseLimiter(); err != nil {
		t.Fatal(err)
	}
	if err := b.releaseLimiter(); err != nil {
		t.Fatal("second release:", err)
	}
}

// TestJSONConfigRefusesBadRule: a bad rule in the Caddy JSON config is
// refused where Caddy decodes the app, naming the entry.
func TestJSONConfigRefusesBadRule(t *testing.T) {
	for doc, want := range map[string]string{
		`{"rate_limits":{"providers":[{"provider":"openai","rpm":-1}]}}`:                         "rate_limits.providers[0] (openai): rpm: must be a positive integer",
		`{"rate_limits":{"user_paths":[{"user_path":"/a","period":"weekly","max_requests":1}]}}`: "rate_limits.user_paths[0] (/a): invalid rate-limit rule: period:",
		`{"virtual_models":[{"source":"fast","slowdown":50}]}`:                                   "virtual_models[0] (fast): slowdown:",
		`{"failover":{"gpt-4o":[]}}`:                                                             `failover["gpt-4o"]: targets: needs at least one target`,
	} {
		cfg := &caddy.Config{AppsRaw: caddy.ModuleMap{"modelgate": json.RawMessage(doc)}}
		err := caddy.Validate(cfg)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
}

// TestVirtualModelErrorNamesItsSetting: a virtual model whose target names
// an unknown provider aborts the load naming the setting it came from:
// the VIRTUAL_MODELS variable, or virtual_models in the config.
func TestVirtualModelErrorNamesItsSetting(t *testing.T) {
	bad := `[{"source":"a","targets":[{"provider":"nope","model":"x"}]}]`
	t.Setenv("VIRTUAL_MODELS", bad)
	cfg := &caddy.Config{AppsRaw: caddy.ModuleMap{"modelgate": json.RawMessage(`{}`)}}
	if err := caddy.Validate(cfg); err == nil || !strings.Contains(err.Error(), `VIRTUAL_MODELS: virtual model "a": targets[0].provider: unknown provider "nope"`) {
		t.Errorf("from the environment: %v", err)
	}
	t.Setenv("VIRTUAL_MODELS", "")
	cfg = &caddy.Config{AppsRaw: caddy.ModuleMap{"modelgate": json.RawMessage(`{"virtual_models":` + bad + `}`)}}
	if err := caddy.Validate(cfg); err == nil || !strings.Contains(err.Error(), `virtual_models: virtual model "a"`) ||
		strings.Contains(err.Error(), "VIRTUAL_MODELS") {
		t.Errorf("from the config: %v", err)
	}
}
