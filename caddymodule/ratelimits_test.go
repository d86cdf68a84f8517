package caddymodule

import (
	"errors"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/modelgate/modelgate/config"
	"github.com/modelgate/modelgate/limits"
)

func TestRateLimitRules(t *testing.T) {
	var c config.Config
	c.RateLimits.UserPaths = []any{
		map[string]any{"user_path": "/team", "rpm": 10},
		map[string]any{"user_path": "/team", "period": "hour", "max_tokens": 500},
	}
	c.RateLimits.Models = []any{map[string]any{"model": "openai/gpt-4o", "concurrent": 3}}
	env := []string{"PATH=/bin", "SET_RATE_LIMIT_TEAM=rpm=3", "SET_PROVIDER_RATE_LIMIT_OPENAI_EU=concurrent=2"}
	rules, err := rateLimitRules(c, env)
	if err != nil {
		t.Fatal(err)
	}
	got := map[limits.Key]limits.Rule{}
	for _, r := range rules {
		got[r.Key()] = r
	}
	if len(rules) != 4 ||
		got[limits.Key{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodMinute}].MaxRequests != 3 || // env wins
		got[limits.Key{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodHour}].MaxTokens != 500 ||
		got[limits.Key{Scope: limits.ScopeProvider, Subject: "openai-eu", Period: limits.PeriodConcurrent}].MaxRequests != 2 ||
		got[limits.Key{Scope: limits.ScopeModel, Subject: "openai/gpt-4o", Period: limits.PeriodConcurrent}].MaxRequests != 3 {
		t.Fatalf("rules %+v", rules)
	}
}

func TestRateLimitRulesErrors(t *testing.T) {
	tmpl := `SET_RATE_LIMIT_CUSTOMERS=[{"period":"minute","max_requests":5,"per_child":true}]`
	var yamlTmpl config.Config
	yamlTmpl.RateLimits.UserPaths = []any{map[string]any{"user_path": "/customers", "rpm": 5, "per_child": true}}
	for _, c := range []struct {
		name string
		cfg  config.Config
		env  []string
		want string
	}{
		{"malformed env", config.Config{}, []string{"SET_RATE_LIMIT_TEAM__A=rpm=lots"}, "SET_RATE_LIMIT_TEAM__A"},
		{"unknown cap", config.Config{}, []string{"SET_PROVIDER_RATE_LIMIT_OPENAI=rps=3"}, "SET_PROVIDER_RATE_LIMIT_OPENAI"},
		{"env template", config.Config{}, []string{"SET_RATE_LIMIT_OK=rpm=1", tmpl}, "SET_RATE_LIMIT_CUSTOMERS: per_child"},
		{"yaml template", yamlTmpl, nil, `rate_limits: user_path "/customers" minute: per_child`},
	} {
		_, err := rateLimitRules(c.cfg, c.env)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if strings.Contains(c.name, "template") && !errors.Is(err, limits.ErrQuotaTemplatesNotEntitled) {
			t.Errorf("%s: %v is not ErrQuotaTemplatesNotEntitled", c.name, err)
		}
	}
	// With the entitlement both load.
	yamlTmpl.Entitlements = []string{"quota_templates"}
	if rules, err := rateLimitRules(yamlTmpl, []string{"SET_RATE_LIMIT_CUSTOMERS__EU=" + strings.SplitN(tmpl, "=", 2)[1]}); err != nil || len(rules) != 2 {
		t.Fatalf("entitled: %v %v", rules, err)
	}
}

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
