package config

import "time"

// Ptr returns a pointer to v; handy for building configs in code.
func Ptr[T any](v T) *T { return &v }

// Bool returns *p, or def when p is nil.
func Bool(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}

// Int returns *p, or def when p is nil.
func Int(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// Int64 returns *p, or def when p is nil.
func Int64(p *int64, def int64) int64 {
	if p == nil {
		return def
	}
	return *p
}

func seconds(n, def int) time.Duration {
	if n == 0 {
		n = def
	}
	return time.Duration(n) * time.Second
}

// ModelsRefresh is how often provider model listings are refreshed.
func (s Server) ModelsRefresh() time.Duration {
	return seconds(s.ModelsRefreshSeconds, DefaultModelsRefreshSeconds)
}

// GCMinHeap is the heap size, in bytes, below which no garbage collection
// starts; 0 leaves the collector's pacing alone.
func (s Server) GCMinHeap() int64 {
	if s.GCMinHeapBytes == nil {
		return DefaultGCMinHeapBytes
	}
	return *s.GCMinHeapBytes
}

// MetricsUserPathDepthOr is how many user path segments the metrics
// label requests with: MetricsUserPathDepth, or
// DefaultMetricsUserPathDepth when unset.
func (s Server) MetricsUserPathDepthOr() int {
	if s.MetricsUserPathDepth == nil {
		return DefaultMetricsUserPathDepth
	}
	return *s.MetricsUserPathDepth
}

// ServerTimingOn reports whether model answers carry Server-Timing
// (ServerTiming; off when unset).
func (s Server) ServerTimingOn() bool { return s.ServerTiming != nil && *s.ServerTiming }

// ModelsTimeout bounds one provider's model listing request.
func (s Server) ModelsTimeout() time.Duration {
	return seconds(s.ModelsTimeoutSeconds, DefaultModelsTimeoutSeconds)
}

// EndpointsOn reports whether the admin REST API is enabled.
func (a Admin) EndpointsOn() bool { return Bool(a.EndpointsEnabled, DefaultAdminEndpointsEnabled) }

// UIOn reports whether the dashboard is enabled. It is false whenever the
// admin API is off.
func (a Admin) UIOn() bool { return a.EndpointsOn() && Bool(a.UIEnabled, DefaultAdminUIEnabled) }

// LiveLogsOn reports whether the dashboard opens the live log stream.
func (a Admin) LiveLogsOn() bool { return Bool(a.LiveLogsEnabled, DefaultLiveLogsEnabled) }

// UnauthenticatedAllowed reports whether admin.allow_unauthenticated is on.
func (a Admin) UnauthenticatedAllowed() bool {
	return Bool(a.AllowUnauthenticated, DefaultAllowUnauthenticated)
}

// LegacyAliasMode returns auto, on or off.
func (a Admin) LegacyAliasMode() string {
	if a.LegacyAlias == "" {
		return DefaultLegacyAlias
	}
	return a.LegacyAlias
}

// On reports whether audit logging is enabled.
func (l Logging) On() bool { return Bool(l.Enabled, DefaultLoggingEnabled) }

// BodiesOn reports whether bodies are recorded in audit entries.
func (l Logging) BodiesOn() bool { return Bool(l.LogBodies, DefaultLogBodies) }

// HeadersOn reports whether headers are recorded in audit entries.
func (l Logging) HeadersOn() bool { return Bool(l.LogHeaders, DefaultLogHeaders) }

// RedactSecretsOn reports whether credentials in recorded bodies are
// masked before they are stored.
func (l Logging) RedactSecretsOn() bool { return Bool(l.RedactSecrets, DefaultRedactSecrets) }

// Retention is how long audit entries are kept; 0 keeps them forever.
func (l Logging) Retention() time.Duration {
	return time.Duration(Int(l.RetentionDays, DefaultRetentionDays)) * 24 * time.Hour
}

// BodyLimit is the largest body, in bytes, recorded in an audit entry.
func (l Logging) BodyLimit() int64 { return Int64(l.MaxBodyBytes, DefaultLogMaxBodyBytes) }

// On reports whether usage tracking is enabled.
func (u Usage) On() bool { return Bool(u.Enabled, DefaultUsageEnabled) }

// Days is how many days usage records are kept; 0 keeps them forever.
func (u Usage) Days() int { return Int(u.RetentionDays, DefaultUsageRetentionDays) }

// On reports whether responses that ask to be stored are kept.
func (r Responses) On() bool { return Bool(r.Enabled, DefaultResponsesEnabled) }

// Retention is how long a stored response is kept.
func (r Responses) Retention() time.Duration {
	return time.Duration(max(Int(r.RetentionDays, DefaultResponsesRetentionDays), 1)) * 24 * time.Hour
}

// Days is how many days audit entries are kept; 0 keeps them forever.
func (l Logging) Days() int { return Int(l.RetentionDays, DefaultRetentionDays) }

// On reports whether the response cache is enabled.
func (c Cache) On() bool { return Bool(c.Enabled, DefaultCacheEnabled) }

// TTL is how long a cached response is served.
func (c Cache) TTL() time.Duration {
	return time.Duration(Int(c.TTLSeconds, DefaultCacheTTLSeconds)) * time.Second
}

// Cache scopes.
const (
	// CacheScopeUserPath shares an entry only within one user path.
	CacheScopeUserPath = "user_path"
	// CacheScopeGlobal shares an entry across every caller.
	CacheScopeGlobal = "global"
)

// Limit is the size cap of the cached responses in bytes.
func (c Cache) Limit() int64 { return Int64(c.MaxBytes, DefaultCacheMaxBytes) }

// EntryLimit is the size cap of one cached response body in bytes:
// max_entry_bytes, or when unset the default lowered to Limit.
func (c Cache) EntryLimit() int64 {
	if c.MaxEntryBytes != nil {
		return *c.MaxEntryBytes
	}
	return min(DefaultCacheMaxEntryBytes, c.Limit())
}

// Global reports whether entries are shared across user paths.
func (c Cache) Global() bool { return c.Scope == CacheScopeGlobal }

// On reports whether rate limiting is enabled.
func (r RateLimits) On() bool { return Bool(r.Enabled, DefaultRateLimitsEnabled) }

// FlushEvery is the period between counter snapshots; 0 means no periodic
// write.
func (r RateLimits) FlushEvery() time.Duration {
	return time.Duration(Int(r.FlushInterval, DefaultFlushInterval)) * time.Second
}

// On reports whether budget management is enabled.
func (b Budgets) On() bool { return Bool(b.Enabled, DefaultBudgetsEnabled) }

// BudgetsEnforced reports whether budgets refuse spent requests: budget
// management enabled and usage tracking on, since spend comes from usage
// records. With usage tracking off, budgets can still be managed.
func (c Config) BudgetsEnforced() bool { return c.Budgets.On() && c.Usage.On() }

// Timeout bounds the wait for the upstream's response headers and the
// whole of a non-streamed answer.
func (p Provider) Timeout() time.Duration {
	return seconds(p.TimeoutSeconds, DefaultProviderTimeoutSeconds)
}

// Latency is the mock provider's artificial delay before the first byte.
func (p Provider) Latency() time.Duration { return time.Duration(p.LatencyMS) * time.Millisecond }

// Mode returns the provider's models mode, fallback when unset.
func (p Provider) Mode() string {
	if p.ModelsMode == "" {
		return DefaultModelsMode
	}
	return p.ModelsMode
}
