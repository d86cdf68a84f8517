package config

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// EntitlementQuotaTemplates is the paid entitlement that per_child
// rate-limit templates need.
const EntitlementQuotaTemplates = "quota_templates"

// knownEntitlements are the entitlement names the gateway understands.
var knownEntitlements = []string{EntitlementQuotaTemplates}

func knownEntitlement(e string) bool {
	for _, k := range knownEntitlements {
		if k == e {
			return true
		}
	}
	return false
}

func validLegacyAlias(v string) bool {
	return v == LegacyAliasAuto || v == LegacyAliasOn || v == LegacyAliasOff
}

// validate checks a resolved config and reports every problem, each naming
// the setting and why it is wrong.
func validate(c Config) error {
	var errs []error
	bad := func(setting, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", setting, fmt.Sprintf(format, args...)))
	}
	nonNegative := func(setting string, n int64) {
		if n < 0 {
			bad(setting, "must not be negative, got %d", n)
		}
	}

	if c.Storage == "" {
		bad("storage", "must not be empty")
	}
	if !validHeaderName(c.Server.UserPathHeader) {
		bad("server.user_path_header", "%q is not a valid HTTP header name", c.Server.UserPathHeader)
	}
	if c.Server.MaxRequestBodyBytes <= 0 {
		bad("server.max_request_body_bytes", "must be positive, got %d", c.Server.MaxRequestBodyBytes)
	}
	nonNegative("server.models_refresh_seconds", int64(c.Server.ModelsRefreshSeconds))
	nonNegative("server.models_timeout_seconds", int64(c.Server.ModelsTimeoutSeconds))
	if c.Server.GCMinHeapBytes != nil {
		nonNegative("server.gc_min_heap_bytes", *c.Server.GCMinHeapBytes)
	}
	if d := c.Server.MetricsUserPathDepth; d != nil && (*d < 0 || *d > MaxMetricsUserPathDepth) {
		bad("server.metrics_user_path_depth", "must be from 0 to %d, got %d", MaxMetricsUserPathDepth, *d)
	}

	if !validLegacyAlias(c.Admin.LegacyAlias) {
		bad("admin.legacy_alias", "%q is not one of auto, on, off", c.Admin.LegacyAlias)
	}
	nonNegative("logging.retention_days", int64(Int(c.Logging.RetentionDays, 0)))
	nonNegative("logging.max_body_bytes", Int64(c.Logging.MaxBodyBytes, 0))
	nonNegative("usage.retention_days", int64(Int(c.Usage.RetentionDays, 0)))
	if d := c.Responses.RetentionDays; d != nil && *d < 1 {
		bad("responses.retention_days", "must be at least 1, got %d", *d)
	}
	nonNegative("cache.ttl_seconds", int64(Int(c.Cache.TTLSeconds, 0)))
	if Int64(c.Cache.MaxBytes, 1) <= 0 {
		bad("cache.max_bytes", "must be positive, got %d", *c.Cache.MaxBytes)
	}
	if n := c.Cache.MaxEntryBytes; n != nil && *n <= 0 {
		bad("cache.max_entry_bytes", "must be positive, got %d", *n)
	} else if n != nil && *n > c.Cache.Limit() {
		bad("cache.max_entry_bytes", "%d is larger than cache.max_bytes (%d): one entry cannot exceed the whole cache", *n, c.Cache.Limit())
	}
	if s := c.Cache.Scope; s != "" && s != CacheScopeUserPath && s != CacheScopeGlobal {
		bad("cache.scope", "%q is not one of user_path, global", s)
	}
	nonNegative("rate_limits.flush_interval", int64(Int(c.RateLimits.FlushInterval, 0)))

	errs = append(errs, validateProviders(c.Providers)...)
	errs = append(errs, validateSecretPolicies(c.SecretPolicies)...)

	for i, name := range c.Passthrough.EnabledProviders {
		if name == "" {
			bad(fmt.Sprintf("passthrough.enabled_providers[%d]", i), "must not be empty")
		}
	}
	if c.Redis != "" {
		if err := checkRedisURL(c.Redis); err != nil {
			bad("redis", "%v", err)
		}
	}
	for _, e := range c.Entitlements {
		if !knownEntitlement(e) {
			bad("entitlements", "unknown entitlement %q (known: %s)", e, strings.Join(knownEntitlements, ", "))
		}
	}
	return errors.Join(errs...)
}

// validateProviders checks every provider instance.
func validateProviders(ps Providers) []error {
	var errs []error
	seen := map[string]bool{}
	for i, p := range ps {
		at := "providers." + p.Name
		bad := func(field, format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s.%s: %s", at, field, fmt.Sprintf(format, args...)))
		}
		if p.Name == "" {
			errs = append(errs, fmt.Errorf("providers[%d].name: must not be empty", i))
			continue
		}
		if !validProviderName(p.Name) {
			bad("name", "%q may contain only lowercase letters, digits, '_', '.' and '-'", p.Name)
		}
		if len(p.Name) > MaxProviderNameLen {
			bad("name", "is %d bytes long; the longest accepted is %d", len(p.Name), MaxProviderNameLen)
		}
		if seen[p.Name] {
			bad("name", "%q is defined more than once", p.Name)
		}
		seen[p.Name] = true

		switch {
		case p.Type == "":
			errs = append(errs, fmt.Errorf("provider %s: type is required (the name is not a known type; set %s.type to one of %s)",
				p.Name, at, strings.Join(KnownTypes(), ", ")))
			continue
		case !KnownType(p.Type):
			bad("type", "unknown provider type %q (known: %s)", p.Type, strings.Join(KnownTypes(), ", "))
			continue
		}

		if p.BaseURL != "" {
			if err := checkHTTPURL(p.BaseURL); err != nil {
				bad("base_url", "%v", err)
			}
		} else if TypeNeedsBaseURL(p.Type) {
			bad("base_url", "required for type %s (%s)", p.Type, supplyHint(p, "base_url", "_BASE_URL"))
		}
		if p.APIKey == "" && TypeNeedsKey(p.Type) {
			bad("api_key", "required for type %s (%s)", p.Type, supplyHint(p, "api_key", "_API_KEY"))
		}
		switch p.ModelsMode {
		case ModelsModeFallback:
		case ModelsModeAllowlist:
			if len(p.Models) == 0 {
				bad("models", "models_mode allowlist needs a non-empty models list")
			}
		default:
			bad("models_mode", "%q is not one of fallback, allowlist", p.ModelsMode)
		}
		for j, m := range p.Models {
			if strings.TrimSpace(m) == "" {
				bad(fmt.Sprintf("models[%d]", j), "must not be empty")
			}
		}
		if p.TimeoutSeconds < 0 {
			bad("timeout_seconds", "must not be negative, got %d", p.TimeoutSeconds)
		}
		if p.ReadIdleTimeoutMS < 0 {
			bad("read_idle_timeout_ms", "must not be negative, got %d", p.ReadIdleTimeoutMS)
		}
		if p.MaxResponseBytes < 0 {
			bad("max_response_bytes", "must not be negative, got %d", p.MaxResponseBytes)
		}
		if p.MaxEventBytes < 0 {
			bad("max_event_bytes", "must not be negative, got %d", p.MaxEventBytes)
		}
		if p.LatencyMS < 0 {
			bad("latency_ms", "must not be negative, got %d", p.LatencyMS)
		} else if p.LatencyMS != 0 && !TypeInProcess(p.Type) {
			bad("latency_ms", "only valid for type mock, not %s", p.Type)
		}
	}
	return errs
}

// supplyHint tells where a missing provider setting can come from: the
// config file, or the environment variable that would register the instance.
func supplyHint(p Provider, field, varSuffix string) string {
	if p.Name == p.Type || strings.HasPrefix(p.Name, p.Type+"-") {
		return fmt.Sprintf("set %s in the config or the %s environment variable", field, envPrefix(p.Name)+varSuffix)
	}
	return fmt.Sprintf("set %s in the config", field)
}

// checkRedisURL checks that s is a redis://, rediss:// or unix:// URL.
// The URL is never quoted: it may carry the password.
func checkRedisURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return errors.New("does not parse as a URL; check its syntax (not shown: it may contain the password)")
	case u.Scheme != "redis" && u.Scheme != "rediss" && u.Scheme != "unix":
		return fmt.Errorf("the URL's scheme is %q; want redis, rediss or unix", u.Scheme)
	}
	return nil
}

// checkHTTPURL reports whether s is an absolute http or https URL with a host.
func checkHTTPURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL", s)
	}
	return nil
}

// MaxProviderNameLen is the longest provider name, in bytes. The name is
// part of storage keys (usage aggregates, audit hours, the audit index),
// so it is bounded like every value that becomes one.
const MaxProviderNameLen = 128

// validProviderName reports whether name uses only [a-z0-9_.-] and is not
// a path element such as "." or "..".
func validProviderName(name string) bool {
	if name == "" || name == "." || name == ".." {
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '.', r == '-':
		default:
			return false
		}
	}
	return true
}

// validHeaderName reports whether s is an RFC 9110 token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
