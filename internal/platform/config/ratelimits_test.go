package config

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/limits"
)

func TestSeededRateLimitRules(t *testing.T) {
	var c Config
	c.Providers = Providers{{Name: "OpenAI-EU", Type: "openai"}}
	c.RateLimits.UserPaths = []limits.RuleSpec{
		{UserPath: "/team/", RPM: 10}, // the same key as SET_RATE_LIMIT_TEAM's
		{UserPath: "/team", Period: limits.PeriodHour, MaxTokens: 500},
	}
	c.RateLimits.Models = []limits.RuleSpec{{Model: "openai/gpt-4o", Concurrent: 3}}
	env, err := FromEnv([]string{"PATH=/bin", "SET_RATE_LIMIT_TEAM=rpm=3", "SET_PROVIDER_RATE_LIMIT_OPENAI_EU=concurrent=2"})
	if err != nil {
		t.Fatal(err)
	}
	rules, err := c.SeededRateLimitRules(env)
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

func TestSeededRateLimitRulesErrors(t *testing.T) {
	tmplVar := `SET_RATE_LIMIT_CUSTOMERS=[{"period":"minute","max_requests":5,"per_child":true}]`
	var yamlTmpl Config
	yamlTmpl.RateLimits.UserPaths = []limits.RuleSpec{{UserPath: "/customers", RPM: 5, PerChild: true}}
	for _, c := range []struct {
		name string
		cfg  Config
		env  []string
		want string
	}{
		{"env template", Config{}, []string{"SET_RATE_LIMIT_OK=rpm=1", tmplVar}, "SET_RATE_LIMIT_CUSTOMERS: per_child"},
		{"yaml template", yamlTmpl, nil, "rate_limits.user_paths[0] (/customers): per_child"},
	} {
		env, err := FromEnv(c.env)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.cfg.SeededRateLimitRules(env)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, limits.ErrQuotaTemplatesNotEntitled) {
			t.Errorf("%s: %v, want %q and ErrQuotaTemplatesNotEntitled", c.name, err, c.want)
		}
	}
	// With the entitlement both load.
	yamlTmpl.Entitlements = []string{EntitlementQuotaTemplates}
	env, err := FromEnv([]string{"SET_RATE_LIMIT_CUSTOMERS__EU=" + strings.SplitN(tmplVar, "=", 2)[1]})
	if err != nil {
		t.Fatal(err)
	}
	if rules, err := yamlTmpl.SeededRateLimitRules(env); err != nil || len(rules) != 2 {
		t.Fatalf("entitled: %v %v", rules, err)
	}
}

// TestProviderRuleForUnknownProvider: a provider rule naming no
// configured provider (a typo that would protect nothing) is refused,
// naming the variable or entry and the providers there are.
func TestProviderRuleForUnknownProvider(t *testing.T) {
	c := Config{Providers: Providers{{Name: "openai", Type: "openai"}, {Name: "groq", Type: "groq"}}}
	env, err := FromEnv([]string{"SET_PROVIDER_RATE_LIMIT_OPNAI=rpm=5"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SeededRateLimitRules(env); err == nil ||
		err.Error() != `SET_PROVIDER_RATE_LIMIT_OPNAI: subject: no provider named "opnai" (configured: openai, groq)` {
		t.Errorf("env: %v", err)
	}
	c.RateLimits.Providers = []limits.RuleSpec{{Provider: "nope", RPM: 5}}
	if _, err := c.SeededRateLimitRules(Env{}); err == nil || !strings.Contains(err.Error(), `rate_limits.providers[0]`) ||
		!strings.Contains(err.Error(), `no provider named "nope"`) {
		t.Errorf("yaml: %v", err)
	}
	c.RateLimits.Providers = []limits.RuleSpec{{Provider: "GROQ", RPM: 5}}
	if rules, err := c.SeededRateLimitRules(Env{}); err != nil || len(rules) != 1 {
		t.Errorf("a provider named in another case: %v %v", rules, err)
	}
}

// TestRateLimitEnvErrors: a bad seeding variable is refused where the
// environment is read, naming the variable.
func TestRateLimitEnvErrors(t *testing.T) {
	for env, want := range map[string]string{
		"SET_RATE_LIMIT_TEAM__A=rpm=lots":                           "SET_RATE_LIMIT_TEAM__A: rpm:",
		"SET_PROVIDER_RATE_LIMIT_OPENAI=rps=3":                      "SET_PROVIDER_RATE_LIMIT_OPENAI: unknown cap",
		`SET_RATE_LIMIT_X=[{"user_path":"/y","rpm":1}]`:             "SET_RATE_LIMIT_X: subject:",
		`SET_RATE_LIMIT_X=[{"period":"minute","max_requests":1.5}]`: "SET_RATE_LIMIT_X: JSON",
	} {
		_, err := FromEnv([]string{env})
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q", env, err, want)
		}
	}
	// Two variables naming the same rule.
	_, err := FromEnv([]string{"SET_RATE_LIMIT_TEAM=rpm=1", "SET_RATE_LIMIT_team=rpm=2"})
	if err == nil || !strings.Contains(err.Error(), "SET_RATE_LIMIT_TEAM") || !strings.Contains(err.Error(), "SET_RATE_LIMIT_team") {
		t.Fatalf("duplicate: %v", err)
	}
}

// TestRateLimitsYAMLErrors: a bad rule in the YAML file is refused when
// the file is read, naming the line and the entry.
func TestRateLimitsYAMLErrors(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{"rate_limits:\n  user_paths:\n    - user_path: /ok\n      rpm: 1\n    - user_path: /team\n      period: week\n      max_requests: 1\n",
			"line 5: rate_limits.user_paths[1] (/team): invalid rate-limit rule: period:"},
		{"rate_limits:\n  providers:\n    - provider: openai\n      rpm: 1\n      per_child: true\n",
			"line 3: rate_limits.providers[0] (openai): invalid rate-limit rule: per_child:"},
		{"rate_limits:\n  models:\n    - model: gpt\n      colour: red\n", "line 4: field colour not found"},
		{"rate_limits:\n  user_paths:\n    - user_path: /a\n      period: minute\n      max_requests: 1.5\n",
			"line 5: rate_limits.user_paths[0].max_requests: 1.5 is not an integer"},
		{"rate_limits:\n  user_paths:\n    - user_path: /a\n      rpm: 1\n    - user_path: /a/\n      period: minute\n      max_tokens: 5\n",
			"line 5: rate_limits.user_paths[1] (/a/): invalid rate-limit rule: user_path \"/a\" minute is also defined by rate_limits.user_paths[0] (/a)"},
		{"rate_limits:\n  user_paths:\n    - user_path: /a//b\n      rpm: 1\n", "line 3: rate_limits.user_paths[0] (/a//b): invalid rate-limit rule: subject: user path has an empty segment"},
	} {
		_, err := ParseYAML([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.doc, err, c.want)
		}
	}
	// The typed lists decode.
	c, err := ParseYAML([]byte("rate_limits:\n  user_paths:\n    - user_path: /team\n      rpm: 60\n      tpd: 1e6\n"))
	if err != nil || len(c.RateLimits.UserPaths) != 1 || c.RateLimits.UserPaths[0].TPD != 1000000 {
		t.Fatalf("%+v %v", c.RateLimits, err)
	}
}

// TestRateLimitsJSONErrors: the Caddy JSON config refuses a bad rule and
// an unknown field where it is decoded, naming the entry.
func TestRateLimitsJSONErrors(t *testing.T) {
	for doc, want := range map[string]string{
		`{"rate_limits":{"user_paths":[{"user_path":"/x","period":"week","max_requests":1}]}}`: "rate_limits.user_paths[0] (/x): invalid rate-limit rule: period:",
		`{"rate_limits":{"models":[{"model":"m","rpm":1,"colour":"red"}]}}`:                    `rate_limits: json: unknown field "colour"`,
		`{"rate_limits":{"providers":[{"provider":"p","rpm":-1}]}}`:                            "rate_limits.providers[0] (p): rpm: must be a positive integer",
	} {
		var c Config
		err := json.Unmarshal([]byte(doc), &c)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
	var c Config
	if err := json.Unmarshal([]byte(`{"rate_limits":{"enabled":false,"flush_interval":2,"user_paths":[{"user_path":"/t","rpm":5}]}}`), &c); err != nil {
		t.Fatal(err)
	}
	if c.RateLimits.On() || *c.RateLimits.FlushInterval != 2 || c.RateLimits.UserPaths[0].RPM != 5 {
		t.Fatalf("%+v", c.RateLimits)
	}
}
