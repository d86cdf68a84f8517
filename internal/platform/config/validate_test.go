package config

import (
	"strings"
	"testing"
)

func TestResolveValidation(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		app     Config
		environ []string
		want    string // "" means valid
	}{
		{name: "valid", yaml: "providers: {openai: {api_key: k}, mock: , local: {type: ollama}}"},
		{
			name: "empty provider name",
			app:  Config{Providers: Providers{{Type: "mock"}}},
			want: "providers[0].name: must not be empty",
		},
		{
			name: "upper-case provider name",
			yaml: "providers: {Team: {type: mock}}",
			want: `providers.Team.name: "Team" may contain only lowercase letters`,
		},
		{
			name: "slash in provider name",
			app:  Config{Providers: Providers{{Name: "a/b", Type: "mock"}}},
			want: `providers.a/b.name: "a/b" may contain only`,
		},
		{
			name: "provider name too long",
			app:  Config{Providers: Providers{{Name: strings.Repeat("p", MaxProviderNameLen+1), Type: "mock"}}},
			want: "name: is 129 bytes long; the longest accepted is 128",
		},
		{
			name: "dot-dot provider name",
			yaml: "providers: {'..': {type: mock}}",
			want: `providers....name: ".." may contain only`,
		},
		{
			name: "type required",
			yaml: "providers: {team: {api_key: k}}",
			want: "provider team: type is required",
		},
		{
			name: "unknown type",
			yaml: "providers: {team: {type: bedrock}}",
			want: `providers.team.type: unknown provider type "bedrock"`,
		},
		{
			name: "bad base URL scheme",
			yaml: "providers: {openai: {api_key: k, base_url: 'ftp://x'}}",
			want: `providers.openai.base_url: "ftp://x" is not an http(s) URL`,
		},
		{
			name: "relative base URL",
			yaml: "providers: {openai: {api_key: k, base_url: '/v1'}}",
			want: `providers.openai.base_url: "/v1" is not an http(s) URL`,
		},
		{
			name: "azure base URL required",
			yaml: "providers: {azure: {api_key: k}}",
			want: "providers.azure.base_url: required for type azure (set base_url in the config or the AZURE_BASE_URL environment variable)",
		},
		{
			name: "api key required names the env var",
			yaml: "providers: {openai: {}}",
			want: "providers.openai.api_key: required for type openai (set api_key in the config or the OPENAI_API_KEY environment variable)",
		},
		{
			name: "api key required for suffixed instance",
			yaml: "providers: {groq-team-b: {type: groq}}",
			want: "GROQ_TEAM_B_API_KEY",
		},
		{
			name: "api key required for free-form name",
			yaml: "providers: {work: {type: anthropic}}",
			want: "providers.work.api_key: required for type anthropic (set api_key in the config)",
		},
		{
			name:    "env suffixed azure without base URL",
			environ: []string{"AZURE_EAST_API_KEY=k"},
			want:    "providers.azure-east.base_url: required for type azure (set base_url in the config or the AZURE_EAST_BASE_URL environment variable)",
		},
		{
			name: "keyless types need no key",
			yaml: "providers: {ollama: , vllm: , mock: }",
		},
		{
			name: "bad models_mode",
			yaml: "providers: {mock: {models_mode: only}}",
			want: `providers.mock.models_mode: "only" is not one of fallback, allowlist`,
		},
		{
			name: "allowlist needs models",
			yaml: "providers: {mock: {models_mode: allowlist}}",
			want: "providers.mock.models: models_mode allowlist needs a non-empty models list",
		},
		{
			name: "empty model name",
			yaml: "providers: {mock: {models: [a, '']}}",
			want: "providers.mock.models[1]: must not be empty",
		},
		{
			name: "negative timeout",
			yaml: "providers: {mock: {timeout_seconds: -1}}",
			want: "providers.mock.timeout_seconds: must not be negative",
		},
		{
			name:    "redis URL of another scheme",
			environ: []string{"MODELGATE_REDIS_URL=http://u:pw-secret@cache:6379/0"},
			want:    `redis: the URL's scheme is "http"; want redis, rediss or unix`,
		},
		{
			name: "redis URL that does not parse",
			app:  Config{Redis: "redis://u:pw%zz@cache:6379"},
			want: "redis: does not parse as a URL",
		},
		{name: "redis URL", yaml: "redis: rediss://u:p@cache:6380/2", app: Config{Providers: Providers{{Name: "mock", Type: "mock"}}}},
		{
			name: "negative read idle timeout",
			yaml: "providers: {mock: {read_idle_timeout_ms: -5}}",
			want: "providers.mock.read_idle_timeout_ms: must not be negative",
		},
		{
			name: "negative response cap",
			app:  Config{Providers: Providers{{Name: "mock", Type: "mock", MaxResponseBytes: -1}}},
			want: "providers.mock.max_response_bytes: must not be negative",
		},
		{
			name: "negative event cap",
			yaml: "providers: {mock: {max_event_bytes: -1}}",
			want: "providers.mock.max_event_bytes: must not be negative",
		},
		{
			name: "negative latency",
			yaml: "providers: {mock: {latency_ms: -5}}",
			want: "providers.mock.latency_ms: must not be negative",
		},
		{
			name: "latency on non-mock",
			yaml: "providers: {openai: {api_key: k, latency_ms: 5}}",
			want: "providers.openai.latency_ms: only valid for type mock",
		},
		{
			name: "bad legacy alias",
			yaml: "admin: {legacy_alias: sometimes}",
			want: `admin.legacy_alias: "sometimes" is not one of auto, on, off`,
		},
		{
			name: "bad user path header",
			yaml: "server: {user_path_header: 'X User'}",
			want: `server.user_path_header: "X User" is not a valid HTTP header name`,
		},
		{
			name: "negative body limit",
			app:  Config{Server: Server{MaxRequestBodyBytes: -1}},
			want: "server.max_request_body_bytes: must be positive",
		},
		{
			name: "negative models refresh",
			yaml: "server: {models_refresh_seconds: -1}",
			want: "server.models_refresh_seconds: must not be negative",
		},
		{
			name: "negative retention",
			yaml: "logging: {retention_days: -1}",
			want: "logging.retention_days: must not be negative",
		},
		{
			name: "negative log body cap",
			yaml: "logging: {max_body_bytes: -1}",
			want: "logging.max_body_bytes: must not be negative",
		},
		{
			name: "negative cache ttl",
			yaml: "cache: {ttl_seconds: -1}",
			want: "cache.ttl_seconds: must not be negative",
		},
		{
			name: "zero cache entry cap",
			yaml: "cache: {max_entry_bytes: 0}",
			want: "cache.max_entry_bytes: must be positive, got 0",
		},
		{
			name: "cache entry cap over the cache cap",
			yaml: "cache: {max_bytes: 1000, max_entry_bytes: 1001}",
			want: "cache.max_entry_bytes: 1001 is larger than cache.max_bytes (1000)",
		},
		{
			name: "cache entry cap equal to the cache cap",
			yaml: "cache: {max_bytes: 1000, max_entry_bytes: 1000}",
		},
		{
			name: "small cache cap without an entry cap",
			yaml: "cache: {max_bytes: 1000}",
		},
		{
			name: "negative flush interval",
			yaml: "rate_limits: {flush_interval: -1}",
			want: "rate_limits.flush_interval: must not be negative",
		},
		{
			name: "unknown entitlement",
			yaml: "entitlements: [quota_templates, sso]",
			want: `entitlements: unknown entitlement "sso" (known: quota_templates)`,
		},
		{
			name: "empty passthrough entry",
			yaml: "passthrough: {enabled_providers: ['']}",
			want: "passthrough.enabled_providers[0]: must not be empty",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Resolve(mustYAML(t, tt.yaml), tt.app, mustEnv(t, tt.environ...))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.want != "" && err == nil:
				t.Fatalf("no error, want %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestValidationReportsEveryProblem(t *testing.T) {
	_, _, err := Resolve(mustYAML(t, "admin: {legacy_alias: x}\ncache: {ttl_seconds: -1}\nproviders: {openai: {}}"), Config{}, Env{})
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{"admin.legacy_alias", "cache.ttl_seconds", "providers.openai.api_key"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %s", err, w)
		}
	}
}

func TestValidHeaderName(t *testing.T) {
	for s, want := range map[string]bool{
		"X-Modelgate-User-Path": true, "x_path": true, "A1!#$%&'*+-.^_`|~": true,
		"": false, "X Path": false, "X:Path": false, "X-Päth": false, "X\tY": false,
	} {
		if got := validHeaderName(s); got != want {
			t.Errorf("validHeaderName(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestRedisURLErrorHidesPassword: an invalid Redis URL is refused at
// start (and by modelgate validate) without quoting it.
func TestRedisURLErrorHidesPassword(t *testing.T) {
	for _, u := range []string{"http://u:pw-secret@cache:6379/0", "redis://u:pw-secret%zz@cache:6379"} {
		_, _, err := Resolve(Config{}, Config{Redis: u, Providers: Providers{{Name: "mock", Type: "mock"}}}, mustEnv(t))
		if err == nil || strings.Contains(err.Error(), "pw-secret") {
			t.Errorf("%s: error %v", u, err)
		}
	}
}
