package config

import (
	"reflect"
	"strings"
	"testing"
)

func mustEnv(t *testing.T, environ ...string) Env {
	t.Helper()
	env, err := FromEnv(environ)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func mustYAML(t *testing.T, doc string) Config {
	t.Helper()
	c, err := ParseYAML([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestResolvePrecedence(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		app     Config
		environ []string
		get     func(Config) any
		want    any
	}{
		{
			name:    "storage: env beats app and yaml",
			yaml:    "storage: /yaml.db",
			app:     Config{Storage: "/app.db"},
			environ: []string{"MODELGATE_DATA_PATH=/env.db"},
			get:     func(c Config) any { return c.Storage },
			want:    "/env.db",
		},
		{
			name: "storage: app beats yaml",
			yaml: "storage: /yaml.db",
			app:  Config{Storage: "/app.db"},
			get:  func(c Config) any { return c.Storage },
			want: "/app.db",
		},
		{
			name: "storage: yaml beats default",
			yaml: "storage: /yaml.db",
			get:  func(c Config) any { return c.Storage },
			want: "/yaml.db",
		},
		{
			name: "storage: default",
			get:  func(c Config) any { return c.Storage },
			want: DefaultStorage,
		},
		{
			name:    "bool: env false beats app and yaml true",
			yaml:    "cache: {enabled: true}",
			app:     Config{Cache: Cache{Enabled: Ptr(true)}},
			environ: []string{"CACHE_ENABLED=false"},
			get:     func(c Config) any { return c.Cache.On() },
			want:    false,
		},
		{
			name: "bool: app false beats yaml true",
			yaml: "usage: {enabled: true}",
			app:  Config{Usage: Usage{Enabled: Ptr(false)}},
			get:  func(c Config) any { return c.Usage.On() },
			want: false,
		},
		{
			name: "bool: yaml false beats default true",
			yaml: "budgets: {enabled: false}",
			get:  func(c Config) any { return c.Budgets.On() },
			want: false,
		},
		{
			name:    "int: env zero beats app and yaml",
			yaml:    "rate_limits: {flush_interval: 5}",
			app:     Config{RateLimits: RateLimits{FlushInterval: Ptr(7)}},
			environ: []string{"RATE_LIMITS_FLUSH_INTERVAL=0"},
			get:     func(c Config) any { return *c.RateLimits.FlushInterval },
			want:    0,
		},
		{
			name: "int: yaml zero retention beats default 30",
			yaml: "logging: {retention_days: 0}",
			get:  func(c Config) any { return *c.Logging.RetentionDays },
			want: 0,
		},
		{
			name:    "provider key: env beats app and yaml",
			yaml:    "providers: {openai: {api_key: y}}",
			app:     Config{Providers: Providers{{Name: "openai", APIKey: "a"}}},
			environ: []string{"OPENAI_API_KEY=e"},
			get:     func(c Config) any { return c.Providers[0].APIKey },
			want:    "e",
		},
		{
			name: "provider key: app beats yaml",
			yaml: "providers: {openai: {api_key: y}}",
			app:  Config{Providers: Providers{{Name: "openai", APIKey: "a"}}},
			get:  func(c Config) any { return c.Providers[0].APIKey },
			want: "a",
		},
		{
			name:    "type-level base URL fills providers of the type without one",
			yaml:    "providers:\n  groq: {api_key: k}\n  groq2: {type: groq, api_key: k, base_url: 'https://own/v1'}\n",
			environ: []string{"GROQ_BASE_URL=https://groq.internal/v1/"},
			get:     func(c Config) any { return [2]string{c.Providers[0].BaseURL, c.Providers[1].BaseURL} },
			want:    [2]string{"https://groq.internal/v1", "https://own/v1"},
		},
		{
			name:    "OLLAMA_BASE_URL registers ollama but is no type default",
			yaml:    "providers:\n  local: {type: ollama}\n",
			environ: []string{"OLLAMA_BASE_URL=http://box:11434/v1"},
			get: func(c Config) any {
				return [2]string{c.Providers[0].BaseURL, c.Providers[1].Name + " " + c.Providers[1].BaseURL}
			},
			want: [2]string{"http://localhost:11434/v1", "ollama http://box:11434/v1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, err := Resolve(mustYAML(t, tt.yaml), tt.app, mustEnv(t, tt.environ...))
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.get(c); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestResolveDefaults(t *testing.T) {
	c, _, err := Resolve(Config{}, Config{}, Env{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Storage != "./data/modelgate.db" || c.Server.UserPathHeader != "X-Modelgate-User-Path" ||
		c.Server.MaxRequestBodyBytes != 32<<20 || c.Server.ModelsRefreshSeconds != 300 || c.Server.ModelsTimeoutSeconds != 10 {
		t.Errorf("server defaults: %+v", c)
	}
	a := c.Admin
	if !*a.EndpointsEnabled || !*a.UIEnabled || *a.LiveLogsEnabled || a.LegacyAlias != "auto" || *a.AllowUnauthenticated {
		t.Errorf("admin defaults: %+v", a)
	}
	l := c.Logging
	if !*l.Enabled || !*l.LogBodies || !*l.LogHeaders || !*l.RedactSecrets || *l.RetentionDays != 30 || *l.MaxBodyBytes != 1<<20 {
		t.Errorf("logging defaults: %+v", l)
	}
	if !*c.Usage.Enabled || *c.Cache.Enabled || *c.Cache.TTLSeconds != 3600 || *c.Cache.MaxBytes != 256<<20 || c.Cache.Scope != "user_path" ||
		!*c.RateLimits.Enabled || *c.RateLimits.FlushInterval != 1 || !*c.Budgets.Enabled {
		t.Errorf("feature defaults: %+v", c)
	}
}

func TestResolveProviderDefaults(t *testing.T) {
	yaml := mustYAML(t, `
providers:
  openai: {api_key: k}
  az: {type: azure, api_key: k, base_url: "https://res.openai.azure.com/"}
  mock:
  gem: {type: gemini, api_key: k, timeout_seconds: 20, models_mode: allowlist, models: [g]}
`)
	c, _, err := Resolve(yaml, Config{}, Env{})
	if err != nil {
		t.Fatal(err)
	}
	want := Providers{
		{Name: "openai", Type: "openai", APIKey: "k", BaseURL: "https://api.openai.com/v1", ModelsMode: "fallback", TimeoutSeconds: 300},
		{Name: "az", Type: "azure", APIKey: "k", BaseURL: "https://res.openai.azure.com", ModelsMode: "fallback", APIVersion: "2024-10-21", TimeoutSeconds: 300},
		{Name: "mock", Type: "mock", ModelsMode: "fallback", TimeoutSeconds: 300},
		{Name: "gem", Type: "gemini", APIKey: "k", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", Models: []string{"g"}, ModelsMode: "allowlist", TimeoutSeconds: 20},
	}
	if !reflect.DeepEqual(c.Providers, want) {
		t.Fatalf("got  %+v\nwant %+v", c.Providers, want)
	}
}

func TestResolveProviderOrder(t *testing.T) {
	yaml := mustYAML(t, "providers:\n  zeta: {type: mock}\n  groq: {api_key: y}\n  alpha: {type: mock}\n")
	app := Config{Providers: Providers{{Name: "beta", Type: "mock"}, {Name: "alpha", LatencyMS: 1}}}
	env := mustEnv(t, "OPENAI_TEAM_B_API_KEY=t", "OPENAI_API_KEY=o", "GROQ_API_KEY=g", "ANTHROPIC_API_KEY=a")
	c, _, err := Resolve(yaml, app, env)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range c.Providers {
		names = append(names, p.Name)
	}
	want := []string{"zeta", "groq", "alpha", "beta", "openai", "anthropic", "openai-team-b"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("order = %v, want %v", names, want)
	}
	if g, _ := c.Providers.Get("groq"); g.APIKey != "g" {
		t.Errorf("groq key = %q, want env's", g.APIKey)
	}
	if a, _ := c.Providers.Get("alpha"); a.LatencyMS != 1 || a.Type != "mock" {
		t.Errorf("alpha = %+v, want app's latency over yaml's type", a)
	}
}

func TestResolveWarnings(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		environ []string
		want    []string
		check   func(Config) bool
	}{
		{
			name:    "UI disabled with the admin API",
			yaml:    "providers: {mock: }",
			environ: []string{"ADMIN_ENDPOINTS_ENABLED=false"},
			want:    []string{"admin UI disabled because the admin API is disabled (admin.endpoints_enabled is off)"},
			check:   func(c Config) bool { return !*c.Admin.UIEnabled && !c.Admin.UIOn() },
		},
		{
			name:    "UI already off: no warning",
			yaml:    "providers: {mock: }\nadmin: {ui_enabled: false}",
			environ: []string{"ADMIN_ENDPOINTS_ENABLED=false"},
		},
		{
			name: "live logs without UI",
			yaml: "providers: {mock: }\nadmin: {ui_enabled: false, live_logs_enabled: true}",
			want: []string{"dashboard live logs have no effect because the admin UI is disabled"},
		},
		{
			name:    "allow_unauthenticated with a master key",
			yaml:    "providers: {mock: }\nadmin: {allow_unauthenticated: true}",
			environ: []string{"GATEWAY_MASTER_KEY=mk"},
			want:    []string{"admin.allow_unauthenticated has no effect because a master key is set"},
		},
		{
			name: "no providers",
			want: []string{"no providers configured: add providers to the config or set a provider key such as OPENAI_API_KEY"},
		},
		{
			name: "passthrough to unknown provider",
			yaml: "providers: {mock: }\npassthrough: {enabled_providers: [mock, nope, other]}",
			want: []string{"passthrough.enabled_providers names unconfigured providers: nope, other"},
		},
		{
			name: "clean",
			yaml: "providers: {mock: }",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, w, err := Resolve(mustYAML(t, tt.yaml), Config{}, mustEnv(t, tt.environ...))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(w, tt.want) {
				t.Fatalf("warnings = %q, want %q", w, tt.want)
			}
			if tt.check != nil && !tt.check(c) {
				t.Fatalf("config not adjusted: %+v", c.Admin)
			}
		})
	}
}

func TestResolveDuplicateInLayer(t *testing.T) {
	app := Config{Providers: Providers{{Name: "mock"}, {Name: "mock"}}}
	_, _, err := Resolve(Config{}, app, Env{})
	if err == nil || !strings.Contains(err.Error(), "providers.mock: defined more than once in the app config") {
		t.Fatalf("error = %v", err)
	}
}
