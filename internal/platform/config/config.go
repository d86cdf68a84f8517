// Package config holds Modelgate's configuration schema and the rules for
// layering it: built-in defaults, the YAML config file, the Caddy app config
// (Caddyfile or JSON) and environment variables, highest precedence last.
//
// The package does not import Caddy; the caddymodule package feeds it.
package config

import (
	"github.com/modelgate/modelgate/internal/domain/sessions"
	"github.com/modelgate/modelgate/internal/domain/vmodels"
)

// Config is the whole gateway configuration. The same structure is the YAML
// file's schema and is embedded in the Caddy app's JSON config, so a setting
// has one name everywhere. Optional booleans and numbers are pointers so that
// a layer can tell "not set" from "set to the zero value".
type Config struct {
	// Storage is the path of the embedded bbolt database file.
	// Default ./data/modelgate.db; env MODELGATE_DATA_PATH.
	Storage string `yaml:"storage,omitempty" json:"storage,omitempty"`

	// Postgres is a PostgreSQL connection string (a postgres:// URL or
	// key=value DSN). When set, keys, rules, budgets, virtual models,
	// failover routes, audit, usage, files and batches live in PostgreSQL
	// instead of the bbolt file, so several gateway processes share them.
	// Caddyfile `storage postgres <dsn>`; env MODELGATE_POSTGRES_DSN.
	Postgres string `yaml:"postgres,omitempty" json:"postgres,omitempty"`

	// Redis is a redis:// (or rediss://) URL. When set, rate-limit windows,
	// concurrency slots, budget spend, response-cache entries, session pins
	// and the fan-out of live-log events and admin changes go through Redis,
	// so limits hold across gateway processes. Env MODELGATE_REDIS_URL.
	Redis string `yaml:"redis,omitempty" json:"redis,omitempty"`

	// RedisPrefix starts every Redis key and pub/sub channel name the
	// gateway uses; default "modelgate:". Processes that are meant to act
	// as one gateway must share it; gateways (or tests) sharing one Redis
	// server apart give each a prefix of its own. Env MODELGATE_REDIS_PREFIX.
	RedisPrefix string `yaml:"redis_prefix,omitempty" json:"redis_prefix,omitempty"`

	// RedisFailClosed makes admission answer 503 while Redis is
	// unreachable. By default (false) admission falls back to per-process
	// counters, with a warning and a metric, until Redis returns.
	// Env MODELGATE_REDIS_FAIL_CLOSED.
	RedisFailClosed *bool `yaml:"redis_fail_closed,omitempty" json:"redis_fail_closed,omitempty"`

	// MasterKey is the gateway master credential; it always has admin
	// access. Env GATEWAY_MASTER_KEY.
	MasterKey string `yaml:"master_key,omitempty" json:"master_key,omitempty"`

	// Server holds request-handling settings.
	Server Server `yaml:"server,omitempty" json:"server,omitzero"`

	// Admin holds the admin API and dashboard switches.
	Admin Admin `yaml:"admin,omitempty" json:"admin,omitzero"`

	// Logging holds the audit-log settings.
	Logging Logging `yaml:"logging,omitempty" json:"logging,omitzero"`

	// Usage holds the usage-tracking settings.
	Usage Usage `yaml:"usage,omitempty" json:"usage,omitzero"`

	// Cache holds the response-cache settings.
	Cache Cache `yaml:"cache,omitempty" json:"cache,omitzero"`

	// Responses holds the stored-responses settings (POST /v1/responses
	// with store, GET and DELETE /v1/responses/{id}).
	Responses Responses `yaml:"responses,omitempty" json:"responses,omitzero"`

	// Providers are the upstream provider instances, in configuration order.
	// Order matters: a bare model name served by several providers routes to
	// the first of them.
	Providers Providers `yaml:"providers,omitempty" json:"providers,omitempty"`

	// VirtualModels are declarative virtual models (aliases and access
	// policies), read-only to the admin API. Rows are merged by source
	// across layers: the environment (VIRTUAL_MODELS, a JSON array) wins
	// over the app config, which wins over the YAML file.
	VirtualModels vmodels.List `yaml:"virtual_models,omitempty" json:"virtual_models,omitempty"`

	// Failover maps a primary model ("provider/model" or "model") to the
	// ordered selectors tried when it fails.
	Failover vmodels.Failover `yaml:"failover,omitempty" json:"failover,omitempty"`

	// PricingOverrides are the operator's prices per provider and model,
	// used in place of the catalog's for every new request (cost source
	// "override"); read-only to the admin API (source "config"). Rows are
	// merged by provider and model across layers: the app config wins
	// over the YAML file.
	PricingOverrides []PricingOverride `yaml:"pricing_overrides,omitempty" json:"pricing_overrides,omitempty"`

	// RateLimits holds rate-limit settings and seeded rules.
	RateLimits RateLimits `yaml:"rate_limits,omitempty" json:"rate_limits,omitzero"`

	// Budgets holds budget settings and seeded budgets.
	Budgets Budgets `yaml:"budgets,omitempty" json:"budgets,omitzero"`

	// SessionLimits limits one detected session per user path: its
	// requests, spend and repeated answers (see docs/sessions.md). Limits
	// written through /admin/session-limits replace these per user path.
	SessionLimits []sessions.Limit `yaml:"session_limits,omitempty" json:"session_limits,omitempty"`

	// Passthrough holds the /p/<provider>/ passthrough settings.
	Passthrough Passthrough `yaml:"passthrough,omitempty" json:"passthrough,omitzero"`

	// Realtime bounds realtime sessions (idle and maximum duration).
	Realtime Realtime `yaml:"realtime,omitempty" json:"realtime,omitzero"`

	// Tracing says what the gateway adds to OpenTelemetry traces beyond
	// each request's attributes.
	Tracing Tracing `yaml:"tracing,omitempty" json:"tracing,omitzero"`

	// Entitlements lists paid features that are switched on, such as
	// quota_templates. Env GATEWAY_ENTITLEMENTS (comma-separated).
	Entitlements []string `yaml:"entitlements,omitempty" json:"entitlements,omitempty"`

	// SecretPolicies decide, per user path, what happens to a model
	// request whose body holds a credential (the kinds
	// logging.redact_secrets masks in stored bodies): by default it is
	// sent as it is. Caddyfile: secret_policy <user_path> block|mask|allow.
	SecretPolicies []SecretPolicy `yaml:"secret_policies,omitempty" json:"secret_policies,omitempty"`
}

// Server holds request-handling settings.
type Server struct {
	// UserPathHeader is the request header that carries the caller's user
	// path. Default X-Modelgate-User-Path; env USER_PATH_HEADER.
	UserPathHeader string `yaml:"user_path_header,omitempty" json:"user_path_header,omitempty"`

	// MaxRequestBodyBytes caps the size of a model request body; larger
	// bodies get 413. Default 32 MiB; env MAX_REQUEST_BODY_BYTES.
	MaxRequestBodyBytes int64 `yaml:"max_request_body_bytes,omitempty" json:"max_request_body_bytes,omitempty"`

	// ModelsRefreshSeconds is how often provider model listings are
	// refreshed in the background. Default 300.
	ModelsRefreshSeconds int `yaml:"models_refresh_seconds,omitempty" json:"models_refresh_seconds,omitempty"`

	// ModelsTimeoutSeconds bounds one provider's model listing request.
	// Default 10.
	ModelsTimeoutSeconds int `yaml:"models_timeout_seconds,omitempty" json:"models_timeout_seconds,omitempty"`

	// GCMinHeapBytes is the heap size below which no garbage collection
	// starts; above it the collector keeps Go's pacing (a collection
	// whenever the heap has doubled since the last). A gateway keeps few
	// MiB live but allocates fast, so without it collections come every
	// few dozen milliseconds. It costs no memory once the live heap is
	// half of it or more. Default 32 MiB; 0 leaves the collector's pacing
	// alone, as does an explicit GOGC environment variable. Env
	// GC_MIN_HEAP_BYTES.
	GCMinHeapBytes *int64 `yaml:"gc_min_heap_bytes,omitempty" json:"gc_min_heap_bytes,omitempty"`

	// ServerTiming adds the standard Server-Timing header to every answer
	// of a model endpoint: the gateway's own time (gateway) and the
	// provider's (upstream), so a client or a browser's developer tools
	// show what the gateway added. Default off; env SERVER_TIMING_ENABLED;
	// Caddyfile `server_timing on`.
	ServerTiming *bool `yaml:"server_timing,omitempty" json:"server_timing,omitempty"`

	// MetricsUserPathDepth is how many leading segments of a caller's
	// user path the Prometheus metrics label requests with: 1 labels
	// /team/alice/agent as /team, 0 leaves the user path out of every
	// label. It bounds the metrics' cardinality: a series per user path
	// prefix, never one per caller, key or session. Default 1; env
	// METRICS_USER_PATH_DEPTH.
	MetricsUserPathDepth *int `yaml:"metrics_user_path_depth,omitempty" json:"metrics_user_path_depth,omitempty"`
}

// Admin holds the admin API and dashboard switches.
type Admin struct {
	// EndpointsEnabled turns the admin REST API on or off (default on).
	// Env ADMIN_ENDPOINTS_ENABLED.
	EndpointsEnabled *bool `yaml:"endpoints_enabled,omitempty" json:"endpoints_enabled,omitempty"`

	// UIEnabled turns the dashboard on or off (default on). It is forced
	// off, with a warning, when the admin API is off. Env ADMIN_UI_ENABLED.
	UIEnabled *bool `yaml:"ui_enabled,omitempty" json:"ui_enabled,omitempty"`

	// LiveLogsEnabled makes the dashboard open the live log stream.
	// Env DASHBOARD_LIVE_LOGS_ENABLED.
	LiveLogsEnabled *bool `yaml:"live_logs_enabled,omitempty" json:"live_logs_enabled,omitempty"`

	// LegacyAlias is auto, on or off: how /admin/api/v1/* is served.
	// Env ADMIN_LEGACY_ALIAS.
	LegacyAlias string `yaml:"legacy_alias,omitempty" json:"legacy_alias,omitempty"`

	// AllowUnauthenticated lets /admin/* through when no master key and no
	// managed key exist. Off by default.
	AllowUnauthenticated *bool `yaml:"allow_unauthenticated,omitempty" json:"allow_unauthenticated,omitempty"`

	// The gateway's other switches may also be written in the admin
	// block, named like their environment variables. Each is the
	// same setting as its section's field; Resolve folds them in, and a
	// layer that sets both forms differently is an error.

	// GatewayMasterKey is MasterKey (GATEWAY_MASTER_KEY).
	GatewayMasterKey string `yaml:"gateway_master_key,omitempty" json:"gateway_master_key,omitempty"`
	// LoggingEnabled is logging.enabled (LOGGING_ENABLED).
	LoggingEnabled *bool `yaml:"logging_enabled,omitempty" json:"logging_enabled,omitempty"`
	// EnabledPassthroughProviders is passthrough.enabled_providers
	// (ENABLED_PASSTHROUGH_PROVIDERS).
	EnabledPassthroughProviders []string `yaml:"enabled_passthrough_providers,omitempty" json:"enabled_passthrough_providers,omitempty"`
	// RateLimitsFlushInterval is rate_limits.flush_interval
	// (RATE_LIMITS_FLUSH_INTERVAL).
	RateLimitsFlushInterval *int `yaml:"rate_limits_flush_interval,omitempty" json:"rate_limits_flush_interval,omitempty"`
	// VirtualModels is virtual_models (VIRTUAL_MODELS).
	VirtualModels vmodels.List `yaml:"virtual_models,omitempty" json:"virtual_models,omitempty"`
}

// Logging holds the audit-log settings.
type Logging struct {
	// Enabled turns audit logging on or off (default on). Env LOGGING_ENABLED.
	Enabled *bool `yaml:"enabled,omitempty" json:"enabled,omitempty"`
	// LogBodies records request and response bodies in audit entries
	// (default on). Env LOGGING_LOG_BODIES.
	LogBodies *bool `yaml:"log_bodies,omitempty" json:"log_bodies,omitempty"`
	// LogHeaders records request and response headers, secrets redacted
	// (default on). Env LOGGING_LOG_HEADERS.
	LogHeaders *bool `yaml:"log_headers,omitempty" json:"log_headers,omitempty"`
	// RetentionDays is how long audit entries are kept, in days (default
	// 30); 0 keeps them forever. Env LOGGING_RETENTION_DAYS.
	RetentionDays *int `yaml:"retention_days,omitempty" json:"retention_days,omitempty"`
	// MaxBodyBytes caps a recorded body; larger ones are marked too big.
	MaxBodyBytes *int64 `yaml:"max_body_bytes,omitempty" json:"max_body_bytes,omitempty"`
	// RedactSecrets replaces credentials in recorded bodies (provider,
	// gateway, AWS, GitHub, GitLab and Slack keys, JWTs, private keys,
	// .env secrets) with [REDACTED:<kind>] before they are stored
	// (default on); what is sent upstream is unchanged by it (see
	// SecretPolicies). Env LOGGING_REDACT_SECRETS.
	RedactSecrets *bool `yaml:"redact_secrets,omitempty" json:"redact_secrets,omitempty"`
}

// Usage holds the usage-tracking settings.
type Usage struct {
	// Enabled turns usage tracking on or off (default on).
	// Env USAGE_ENABLED.
	Enabled *bool `yaml:"enabled,omitempty" json:"enabled,omitempty"`
	// RetentionDays is how long usage records are kept, in days (default
	// 90); 0 keeps them forever. Daily aggregates outlive the records.
	// Env USAGE_RETENTION_DAYS.
	RetentionDays *int `yaml:"retention_days,omitempty" json:"retention_days,omitempty"`
}

// Responses holds the stored-responses settings.
type Responses struct {
	// Enabled keeps the responses that ask to be stored (store, true
	// unless the request sets it false), so that GET /v1/responses/{id}
	// and previous_response_id find them (default on). Off, nothing is
	// stored and previous_response_id reaches native providers only.
	// Env RESPONSES_STORE_ENABLED.
	Enabled *bool `yaml:"enabled,omitempty" json:"enabled,omitempty"`
	// RetentionDays is how long a stored response is kept, in days
	// (default 30, at least 1). Env RESPONSES_RETENTION_DAYS.
	RetentionDays *int `yaml:"retention_days,omitempty" json:"retention_days,omitempty"`
}

// Cache holds the response-cache settings.
type Cache struct {
	// Enabled turns the response cache on (default off).
	// Env RESPONSE_CACHE_ENABLED (also CACHE_ENABLED).
	Enabled *bool `yaml:"enabled,omitempty" json:"enabled,omitempty"`
	// TTLSeconds is how long a cached response is served (default 3600).
	// Env RESPONSE_CACHE_TTL_SECONDS.
	TTLSeconds *int `yaml:"ttl_seconds,omitempty" json:"ttl_seconds,omitempty"`
	// MaxBytes caps the total size of the cached responses (default 256
	// MiB); the least recently used go first. Env RESPONSE_CACHE_MAX_BYTES.
	MaxBytes *int64 `yaml:"max_bytes,omitempty" json:"max_bytes,omitempty"`
	// MaxEntryBytes caps the body of one cached response (default 1 MiB,
	// or max_bytes when that is smaller); at most max_bytes. An answer
	// that outgrows it stops being buffered at once and passes through
	// uncached. Env RESPONSE_CACHE_MAX_ENTRY_BYTES.
	MaxEntryBytes *int64 `yaml:"max_entry_bytes,omitempty" json:"max_entry_bytes,omitempty"`
	// Scope is who shares an entry: "user_path" (default: only requests
	// of the same user path) or "global" (every caller).
	// Env RESPONSE_CACHE_SCOPE.
	Scope string `yaml:"scope,omitempty" json:"scope,omitempty"`
}

// Passthrough holds the /p/<provider>/ passthrough settings.
type Passthrough struct {
	// EnabledProviders lists the provider names usable through
	// /p/<provider>/. Env ENABLED_PASSTHROUGH_PROVIDERS (comma-separated).
	EnabledProviders []string `yaml:"enabled_providers,omitempty" json:"enabled_providers,omitempty"`
}
