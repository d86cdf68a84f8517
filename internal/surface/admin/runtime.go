package admin

import (
	"net/http"
	"time"
)

// APIVersion is the version of the admin API description: info.version of
// the OpenAPI document and api_version of the runtime config.
const APIVersion = "1.0"

// RuntimeConfig is the answer of GET /admin/runtime/config: the effective
// feature switches, version and providers. It never holds a secret: the
// master key and provider credentials appear only as "is one configured".
type RuntimeConfig struct {
	// Version is the gateway's release version.
	Version string `json:"version"`
	// APIVersion is the API description's version.
	APIVersion string `json:"api_version"`
	// ServerTime is the gateway's clock, UTC.
	ServerTime time.Time `json:"server_time"`
	// Features are the on/off switches, by their environment names'
	// lower-case form, with their effective values.
	Features map[string]bool `json:"features"`
	// Settings are the other non-secret settings in force.
	Settings RuntimeSettings `json:"settings"`
	// Providers are the provider instances in service.
	Providers []ProviderInfo `json:"providers"`
}

// RuntimeSettings are the non-boolean settings of RuntimeConfig.
type RuntimeSettings struct {
	// UserPathHeader is the request header carrying the user path.
	UserPathHeader string `json:"user_path_header"`
	// LegacyAlias is auto, on or off.
	LegacyAlias string `json:"legacy_alias"`
	// LegacyAliasSunset is when auto mode stops serving /admin/api/v1/.
	LegacyAliasSunset time.Time `json:"legacy_alias_sunset"`
	// LegacyAliasServed reports whether /admin/api/v1/ answers now.
	LegacyAliasServed bool `json:"legacy_alias_served"`
	// RateLimitsFlushInterval is the seconds between counter snapshots.
	RateLimitsFlushInterval int `json:"rate_limits_flush_interval"`
	// PassthroughProviders may be used through /p/<provider>/.
	PassthroughProviders []string `json:"passthrough_providers"`
	// Entitlements are the paid features switched on.
	Entitlements []string `json:"entitlements"`
	// Storage is where keys, rules, budgets, virtual models, audit and
	// usage are kept: "bbolt" (the embedded file) or "postgres".
	Storage string `json:"storage"`
	// Redis reports whether counters, concurrency slots, budget spend,
	// cache entries and the live log fan-out go through Redis, shared
	// with the other gateway processes on it.
	Redis bool `json:"redis"`
}

// Runtime returns the runtime configuration at now.
func (h *Handler) Runtime(now time.Time) RuntimeConfig {
	c := h.opts.Config
	providers := h.opts.Providers
	if providers == nil {
		providers = []ProviderInfo{}
	}
	nonNil := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	return RuntimeConfig{
		Version:    h.opts.Version,
		APIVersion: APIVersion,
		ServerTime: now.UTC(),
		Features: map[string]bool{
			"master_key_configured":       c.MasterKey != "",
			"admin_endpoints_enabled":     c.Admin.EndpointsOn(),
			"admin_ui_enabled":            c.Admin.UIOn(),
			"admin_allow_unauthenticated": c.Admin.UnauthenticatedAllowed(),
			"dashboard_live_logs_enabled": c.Admin.LiveLogsOn(),
			"logging_enabled":             c.Logging.On(),
			"usage_enabled":               c.Usage.On(),
			"cache_enabled":               c.Cache.On(),
			"rate_limits_enabled":         c.RateLimits.On(),
			"budgets_enabled":             c.BudgetsEnforced(),
		},
		Settings: RuntimeSettings{
			UserPathHeader:          c.Server.UserPathHeader,
			LegacyAlias:             c.Admin.LegacyAliasMode(),
			LegacyAliasSunset:       h.opts.Sunset,
			LegacyAliasServed:       h.legacyServed(now),
			RateLimitsFlushInterval: int(c.RateLimits.FlushEvery() / time.Second),
			PassthroughProviders:    nonNil(c.Passthrough.EnabledProviders),
			Entitlements:            nonNil(c.Entitlements),
			Storage:                 storageKind(c.Postgres),
			Redis:                   c.Redis != "",
		},
		Providers: providers,
	}
}

// storageKind names the storage of a gateway configured with the
// PostgreSQL connection string dsn ("" for none).
func storageKind(dsn string) string {
	if dsn != "" {
		return "postgres"
	}
	return "bbolt"
}

func (h *Handler) runtimeConfig(w http.ResponseWriter, _ *http.Request, _ params) {
	writeJSON(w, http.StatusOK, h.Runtime(h.opts.Now()))
}
