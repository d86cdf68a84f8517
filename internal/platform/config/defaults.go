package config

import "strings"

// Built-in defaults, the lowest configuration layer.
const (
	// DefaultStorage is the default bbolt database path.
	DefaultStorage = "./data/modelgate.db"
	// DefaultUserPathHeader is the default user-path request header.
	DefaultUserPathHeader = "X-Modelgate-User-Path"
	// DefaultMaxRequestBodyBytes is the default model request body cap (32 MiB).
	DefaultMaxRequestBodyBytes int64 = 32 << 20
	// DefaultModelsRefreshSeconds is the default model listing refresh period.
	DefaultModelsRefreshSeconds = 300
	// DefaultGCMinHeapBytes is the default of server.gc_min_heap_bytes.
	DefaultGCMinHeapBytes int64 = 32 << 20
	// DefaultModelsTimeoutSeconds is the default model listing timeout.
	DefaultModelsTimeoutSeconds = 10
	// DefaultMetricsUserPathDepth is the default of
	// server.metrics_user_path_depth: user paths are labelled by their
	// first segment.
	DefaultMetricsUserPathDepth = 1
	// MaxMetricsUserPathDepth is the largest server.metrics_user_path_depth
	// taken.
	MaxMetricsUserPathDepth = 8

	// DefaultAdminEndpointsEnabled is the default of admin.endpoints_enabled.
	DefaultAdminEndpointsEnabled = true
	// DefaultAdminUIEnabled is the default of admin.ui_enabled.
	DefaultAdminUIEnabled = true
	// DefaultLiveLogsEnabled is the default of admin.live_logs_enabled.
	DefaultLiveLogsEnabled = false
	// DefaultLegacyAlias is the default of admin.legacy_alias.
	DefaultLegacyAlias = LegacyAliasAuto
	// DefaultAllowUnauthenticated is the default of admin.allow_unauthenticated.
	DefaultAllowUnauthenticated = false

	// DefaultLoggingEnabled is the default of logging.enabled.
	DefaultLoggingEnabled = true
	// DefaultLogBodies is the default of logging.log_bodies.
	DefaultLogBodies = true
	// DefaultLogHeaders is the default of logging.log_headers.
	DefaultLogHeaders = true
	// DefaultRedactSecrets is the default of logging.redact_secrets.
	DefaultRedactSecrets = true
	// DefaultRetentionDays is the default of logging.retention_days.
	DefaultRetentionDays = 30
	// DefaultLogMaxBodyBytes is the default of logging.max_body_bytes (1 MiB).
	DefaultLogMaxBodyBytes int64 = 1 << 20

	// DefaultUsageEnabled is the default of usage.enabled.
	DefaultUsageEnabled = true
	// DefaultResponsesEnabled is the default of responses.enabled.
	DefaultResponsesEnabled = true
	// DefaultResponsesRetentionDays is the default of
	// responses.retention_days.
	DefaultResponsesRetentionDays = 30
	// DefaultUsageRetentionDays is the default of usage.retention_days.
	DefaultUsageRetentionDays = 90

	// DefaultCacheEnabled is the default of cache.enabled.
	DefaultCacheEnabled = false
	// DefaultCacheTTLSeconds is the default of cache.ttl_seconds.
	DefaultCacheTTLSeconds = 3600
	// DefaultCacheMaxBytes is the default of cache.max_bytes.
	DefaultCacheMaxBytes = int64(256 << 20)
	// DefaultCacheMaxEntryBytes is the default of cache.max_entry_bytes
	// (lowered to cache.max_bytes when that is smaller). Not set by
	// Defaults, so that validation can tell a value given from it.
	DefaultCacheMaxEntryBytes = int64(1 << 20)
	// DefaultCacheScope is the default of cache.scope.
	DefaultCacheScope = CacheScopeUserPath

	// DefaultRateLimitsEnabled is the default of rate_limits.enabled.
	DefaultRateLimitsEnabled = true
	// DefaultFlushInterval is the default of rate_limits.flush_interval.
	DefaultFlushInterval = 1

	// DefaultBudgetsEnabled is the default of budgets.enabled.
	DefaultBudgetsEnabled = true

	// DefaultProviderTimeoutSeconds is the default of a provider's
	// timeout_seconds.
	DefaultProviderTimeoutSeconds = 300
	// DefaultModelsMode is the default of a provider's models_mode.
	DefaultModelsMode = ModelsModeFallback
)

// Values of admin.legacy_alias.
const (
	// LegacyAliasAuto serves /admin/api/v1/* only when it does not clash.
	LegacyAliasAuto = "auto"
	// LegacyAliasOn always serves /admin/api/v1/*.
	LegacyAliasOn = "on"
	// LegacyAliasOff never serves /admin/api/v1/*.
	LegacyAliasOff = "off"
)

// Values of a provider's models_mode.
const (
	// ModelsModeFallback uses the configured models only when the upstream
	// listing fails or is empty.
	ModelsModeFallback = "fallback"
	// ModelsModeAllowlist serves exactly the configured models.
	ModelsModeAllowlist = "allowlist"
)

// Defaults returns the built-in defaults as a Config, the lowest layer that
// Resolve starts from. It has no providers; provider defaults depend on each
// provider's type and are filled by Resolve.
func Defaults() Config {
	return Config{
		Storage: DefaultStorage,
		Server: Server{
			UserPathHeader:       DefaultUserPathHeader,
			MaxRequestBodyBytes:  DefaultMaxRequestBodyBytes,
			ModelsRefreshSeconds: DefaultModelsRefreshSeconds,
			ModelsTimeoutSeconds: DefaultModelsTimeoutSeconds,
			GCMinHeapBytes:       Ptr(DefaultGCMinHeapBytes),
		},
		Admin: Admin{
			EndpointsEnabled:     Ptr(DefaultAdminEndpointsEnabled),
			UIEnabled:            Ptr(DefaultAdminUIEnabled),
			LiveLogsEnabled:      Ptr(DefaultLiveLogsEnabled),
			LegacyAlias:          DefaultLegacyAlias,
			AllowUnauthenticated: Ptr(DefaultAllowUnauthenticated),
		},
		Logging: Logging{
			Enabled:       Ptr(DefaultLoggingEnabled),
			LogBodies:     Ptr(DefaultLogBodies),
			LogHeaders:    Ptr(DefaultLogHeaders),
			RetentionDays: Ptr(DefaultRetentionDays),
			MaxBodyBytes:  Ptr(DefaultLogMaxBodyBytes),
			RedactSecrets: Ptr(DefaultRedactSecrets),
		},
		Usage:     Usage{Enabled: Ptr(DefaultUsageEnabled), RetentionDays: Ptr(DefaultUsageRetentionDays)},
		Responses: Responses{Enabled: Ptr(DefaultResponsesEnabled), RetentionDays: Ptr(DefaultResponsesRetentionDays)},
		Cache: Cache{
			Enabled:    Ptr(DefaultCacheEnabled),
			TTLSeconds: Ptr(DefaultCacheTTLSeconds),
			MaxBytes:   Ptr(DefaultCacheMaxBytes),
			Scope:      DefaultCacheScope,
		},
		RateLimits: RateLimits{
			Enabled:       Ptr(DefaultRateLimitsEnabled),
			FlushInterval: Ptr(DefaultFlushInterval),
		},
		Budgets: Budgets{Enabled: Ptr(DefaultBudgetsEnabled)},
	}
}

// fillProviderDefaults completes one provider: the type from the name, the
// base URL from the type-level overrides or the type's default (trailing
// slashes removed, so callers can append paths), the timeout,
// the models mode and, for azure, the API version. Providers whose type is
// unknown are left for validation to report.
func fillProviderDefaults(p *Provider, baseURLs map[string]string) {
	if p.Type == "" && KnownType(p.Name) {
		p.Type = p.Name
	}
	if p.BaseURL == "" {
		if u := baseURLs[p.Type]; u != "" {
			p.BaseURL = u
		} else {
			p.BaseURL = DefaultBaseURL(p.Type)
		}
	}
	p.BaseURL = strings.TrimRight(p.BaseURL, "/")
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = DefaultProviderTimeoutSeconds
	}
	if p.ModelsMode == "" {
		p.ModelsMode = DefaultModelsMode
	}
	if p.APIVersion == "" {
		p.APIVersion = DefaultAPIVersion(p.Type)
	}
}
