package config

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
)

func TestFromEnvProviders(t *testing.T) {
	tests := []struct {
		name     string
		environ  []string
		want     Providers
		baseURLs map[string]string
	}{
		{
			name:    "none",
			environ: []string{"PATH=/bin", "HOME=/root"},
		},
		{
			name: "fixed order regardless of environ order",
			environ: []string{
				"VLLM_BASE_URL=http://gpu:8000/v1", "GROQ_API_KEY=g", "OPENAI_API_KEY=o",
				"AZURE_API_KEY=az", "AZURE_BASE_URL=https://res.openai.azure.com", "ANTHROPIC_API_KEY=a",
				"OLLAMA_BASE_URL=http://box:11434/v1", "ELEVENLABS_API_KEY=e", "MISTRAL_API_KEY=m",
				"OPENROUTER_API_KEY=or", "DEEPSEEK_API_KEY=d", "XAI_API_KEY=x", "GEMINI_API_KEY=ge",
			},
			want: Providers{
				{Name: "openai", Type: "openai", APIKey: "o"},
				{Name: "anthropic", Type: "anthropic", APIKey: "a"},
				{Name: "gemini", Type: "gemini", APIKey: "ge"},
				{Name: "groq", Type: "groq", APIKey: "g"},
				{Name: "xai", Type: "xai", APIKey: "x"},
				{Name: "deepseek", Type: "deepseek", APIKey: "d"},
				{Name: "openrouter", Type: "openrouter", APIKey: "or"},
				{Name: "mistral", Type: "mistral", APIKey: "m"},
				{Name: "elevenlabs", Type: "elevenlabs", APIKey: "e"},
				{Name: "azure", Type: "azure", APIKey: "az", BaseURL: "https://res.openai.azure.com"},
				{Name: "ollama", Type: "ollama", BaseURL: "http://box:11434/v1"},
				{Name: "vllm", Type: "vllm", BaseURL: "http://gpu:8000/v1"},
			},
			baseURLs: map[string]string{"azure": "https://res.openai.azure.com"},
		},
		{
			name:     "base URL without key is only a type default",
			environ:  []string{"GROQ_BASE_URL=https://groq.internal/v1"},
			baseURLs: map[string]string{"groq": "https://groq.internal/v1"},
		},
		{
			name:     "base URL with key also sets the instance",
			environ:  []string{"OPENAI_API_KEY=k", "OPENAI_BASE_URL=https://proxy/v1"},
			want:     Providers{{Name: "openai", Type: "openai", APIKey: "k", BaseURL: "https://proxy/v1"}},
			baseURLs: map[string]string{"openai": "https://proxy/v1"},
		},
		{
			name: "suffixed instances after plain ones, sorted",
			environ: []string{
				"OPENAI_TEAM_B_API_KEY=tb", "OPENAI_TEAM_B_BASE_URL=https://b/v1", "GROQ_FAST_API_KEY=gf",
				"OPENAI_API_KEY=o", "ANTHROPIC_X_API_KEY=ax", "OLLAMA_GPU_BASE_URL=http://gpu:11434/v1",
			},
			want: Providers{
				{Name: "openai", Type: "openai", APIKey: "o"},
				{Name: "anthropic-x", Type: "anthropic", APIKey: "ax"},
				{Name: "groq-fast", Type: "groq", APIKey: "gf"},
				{Name: "ollama-gpu", Type: "ollama", BaseURL: "http://gpu:11434/v1"},
				{Name: "openai-team-b", Type: "openai", APIKey: "tb", BaseURL: "https://b/v1"},
			},
		},
		{
			name:    "unrelated and keyless-suffix variables ignored",
			environ: []string{"FOO_BAR_API_KEY=x", "OPENAI_TEAM_BASE_URL=https://t", "MOCK_API_KEY=m", "OPENAI__API_KEY=z"},
		},
		{
			name:    "empty and blank values are unset",
			environ: []string{"OPENAI_API_KEY=", "GROQ_API_KEY=   ", "OLLAMA_BASE_URL="},
		},
		{
			name:    "values are trimmed; first occurrence wins",
			environ: []string{"OPENAI_API_KEY= k1\n", "OPENAI_API_KEY=k2"},
			want:    Providers{{Name: "openai", Type: "openai", APIKey: "k1"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := FromEnv(tt.environ)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(env.Config.Providers, tt.want) {
				t.Errorf("providers = %+v\nwant %+v", env.Config.Providers, tt.want)
			}
			if !reflect.DeepEqual(env.DefaultBaseURLs, tt.baseURLs) {
				t.Errorf("DefaultBaseURLs = %v, want %v", env.DefaultBaseURLs, tt.baseURLs)
			}
		})
	}
}

func TestFromEnvSettings(t *testing.T) {
	env, err := FromEnv([]string{
		"GATEWAY_MASTER_KEY=mk",
		"MODELGATE_DATA_PATH=/var/db",
		"MODELGATE_POSTGRES_DSN=postgres://gw@db/mg",
		"MODELGATE_REDIS_URL=redis://cache:6379/0",
		"MODELGATE_REDIS_PREFIX=team-a:",
		"MODELGATE_REDIS_FAIL_CLOSED=true",
		"USER_PATH_HEADER=X-Path",
		"MAX_REQUEST_BODY_BYTES=1024",
		"GC_MIN_HEAP_BYTES=0",
		"ADMIN_ENDPOINTS_ENABLED=No",
		"ADMIN_UI_ENABLED=0",
		"DASHBOARD_LIVE_LOGS_ENABLED=ON",
		"ADMIN_LEGACY_ALIAS=Off",
		"ADMIN_ALLOW_UNAUTHENTICATED=yes",
		"LOGGING_ENABLED=false",
		"USAGE_ENABLED=FALSE",
		"LOGGING_LOG_BODIES=no",
		"LOGGING_LOG_HEADERS=off",
		"LOGGING_REDACT_SECRETS=off",
		"LOGGING_RETENTION_DAYS=7",
		"USAGE_RETENTION_DAYS=0",
		"CACHE_ENABLED=1",
		"RATE_LIMITS_ENABLED=off",
		"RATE_LIMITS_FLUSH_INTERVAL=0",
		"BUDGETS_ENABLED=true",
		"ENABLED_PASSTHROUGH_PROVIDERS= openai, ,anthropic ,",
		"GATEWAY_ENTITLEMENTS=quota_templates",
		`VIRTUAL_MODELS=[{"source":"alias","strategy":"cost","targets":[{"provider":"openai","model":"gpt-4o"}],"session_affinity":false}]`,
		"SET_BUDGET_X=ignored",
	})
	if err != nil {
		t.Fatal(err)
	}
	f, tr := Ptr(false), Ptr(true)
	want := Config{
		MasterKey:       "mk",
		Storage:         "/var/db",
		Postgres:        "postgres://gw@db/mg",
		Redis:           "redis://cache:6379/0",
		RedisPrefix:     "team-a:",
		RedisFailClosed: tr,
		Server:          Server{UserPathHeader: "X-Path", MaxRequestBodyBytes: 1024, GCMinHeapBytes: Ptr(int64(0))},
		Admin: Admin{EndpointsEnabled: f, UIEnabled: f, LiveLogsEnabled: tr, LegacyAlias: "off",
			AllowUnauthenticated: tr},
		Logging:      Logging{Enabled: f, LogBodies: f, LogHeaders: f, RetentionDays: Ptr(7), RedactSecrets: f},
		Usage:        Usage{Enabled: f, RetentionDays: Ptr(0)},
		Cache:        Cache{Enabled: tr},
		RateLimits:   RateLimits{Enabled: f, FlushInterval: Ptr(0)},
		Budgets:      Budgets{Enabled: tr},
		Passthrough:  Passthrough{EnabledProviders: []string{"openai", "anthropic"}},
		Entitlements: []string{"quota_templates"},
		VirtualModels: vmodels.List{{Source: "alias", Strategy: vmodels.StrategyCost,
			Targets: []vmodels.Target{{Provider: "openai", Model: "gpt-4o"}}, SessionAffinity: f}},
	}
	if !reflect.DeepEqual(env.Config, want) {
		t.Fatalf("config = %+v\nwant   %+v", env.Config, want)
	}
}

func TestFromEnvEmptyIsUnset(t *testing.T) {
	env, err := FromEnv([]string{"ADMIN_UI_ENABLED=", "RATE_LIMITS_FLUSH_INTERVAL=", "GATEWAY_MASTER_KEY="})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(env, Env{}) {
		t.Fatalf("got %+v, want empty Env", env)
	}
}

func TestFromEnvCommasOnlyIsEmptyList(t *testing.T) {
	env, err := FromEnv([]string{"ENABLED_PASSTHROUGH_PROVIDERS=, ,"})
	if err != nil {
		t.Fatal(err)
	}
	if p := env.Config.Passthrough.EnabledProviders; p == nil || len(p) != 0 {
		t.Fatalf("EnabledProviders = %#v, want empty non-nil", p)
	}
}

func TestFromEnvErrors(t *testing.T) {
	tests := []struct {
		env  string
		want []string
	}{
		{"ADMIN_UI_ENABLED=maybe", []string{"ADMIN_UI_ENABLED", `"maybe"`, "not a boolean"}},
		{"LOGGING_ENABLED=2", []string{"LOGGING_ENABLED", `"2"`}},
		{"USAGE_RETENTION_DAYS=-1", []string{"USAGE_RETENTION_DAYS", `"-1"`}},
		{"CACHE_ENABLED=enabled", []string{"CACHE_ENABLED", `"enabled"`}},
		{"RATE_LIMITS_FLUSH_INTERVAL=-1", []string{"RATE_LIMITS_FLUSH_INTERVAL", `"-1"`, "non-negative"}},
		{"RATE_LIMITS_FLUSH_INTERVAL=1s", []string{"RATE_LIMITS_FLUSH_INTERVAL", `"1s"`}},
		{"MAX_REQUEST_BODY_BYTES=0", []string{"MAX_REQUEST_BODY_BYTES", "positive"}},
		{"MAX_REQUEST_BODY_BYTES=lots", []string{"MAX_REQUEST_BODY_BYTES", `"lots"`}},
		{"GC_MIN_HEAP_BYTES=-1", []string{"GC_MIN_HEAP_BYTES", "non-negative"}},
		{"ADMIN_LEGACY_ALIAS=sometimes", []string{"ADMIN_LEGACY_ALIAS", `"sometimes"`, "auto, on, off"}},
		{"GATEWAY_ENTITLEMENTS=quota_templates,sso", []string{"GATEWAY_ENTITLEMENTS", `"sso"`}},
		{"GROQ_BASE_URL=ftp://x", []string{"GROQ_BASE_URL", `"ftp://x" is not an http(s) URL`}},
		{"OLLAMA_BASE_URL=localhost:11434", []string{"OLLAMA_BASE_URL", "not an http(s) URL"}},
		{"OPENAI_TEAM_API_KEY=k", nil}, // control: valid
	}
	for _, tt := range tests {
		t.Run(tt.env, func(t *testing.T) {
			_, err := FromEnv([]string{tt.env})
			if tt.want == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestFromEnvReportsAllErrors(t *testing.T) {
	_, err := FromEnv([]string{"ADMIN_UI_ENABLED=x", "BUDGETS_ENABLED=y"})
	if err == nil || !strings.Contains(err.Error(), "ADMIN_UI_ENABLED") || !strings.Contains(err.Error(), "BUDGETS_ENABLED") {
		t.Fatalf("error = %v, want both variables", err)
	}
}

func TestParseBool(t *testing.T) {
	for in, want := range map[string]bool{
		"true": true, "TRUE": true, "1": true, "yes": true, "On": true,
		"false": false, "False": false, "0": false, "NO": false, "off": false,
	} {
		got, err := ParseBool(in)
		if err != nil || got != want {
			t.Errorf("ParseBool(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "y", "t", "2", "enabled"} {
		if _, err := ParseBool(in); err == nil {
			t.Errorf("ParseBool(%q): no error", in)
		}
	}
}

func TestResponseCacheEnv(t *testing.T) {
	env, err := FromEnv([]string{"CACHE_ENABLED=false", "RESPONSE_CACHE_ENABLED=true", "RESPONSE_CACHE_TTL_SECONDS=60",
		"RESPONSE_CACHE_MAX_BYTES=1024", "RESPONSE_CACHE_MAX_ENTRY_BYTES=512", "RESPONSE_CACHE_SCOPE=Global"})
	if err != nil {
		t.Fatal(err)
	}
	c := env.Config.Cache
	if !c.On() || c.TTL() != time.Minute || c.Limit() != 1024 || c.EntryLimit() != 512 || !c.Global() {
		t.Errorf("cache settings from the environment: %+v", c)
	}
	for _, v := range []string{"RESPONSE_CACHE_MAX_BYTES=0", "RESPONSE_CACHE_MAX_ENTRY_BYTES=0", "RESPONSE_CACHE_MAX_ENTRY_BYTES=1MiB"} {
		name, _, _ := strings.Cut(v, "=")
		if _, err := FromEnv([]string{v}); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", v, err)
		}
	}
	_, _, err = Resolve(mustYAML(t, "cache: {scope: everyone}"), Config{}, Env{})
	if err == nil || !strings.Contains(err.Error(), "cache.scope") {
		t.Errorf("bad scope: %v", err)
	}
}
