package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/domain/vmodels"
)

// Env is the result of reading the environment: a partial Config holding
// only what environment variables set, plus type-level base URL overrides.
type Env struct {
	// Config holds only the fields set by environment variables, including
	// the providers registered from <TYPE>_API_KEY and friends.
	Config Config
	// DefaultBaseURLs maps a provider type to the base URL given by
	// <TYPE>_BASE_URL, for the types where that variable does not itself
	// register a provider (every type except ollama and vllm). Resolve uses
	// it for every provider of the type that sets no base_url.
	DefaultBaseURLs map[string]string

	// rateLimits are the rules of the SET_RATE_LIMIT_* and
	// SET_PROVIDER_RATE_LIMIT_* variables, each with its variable's name
	// (see Config.SeededRateLimitRules).
	rateLimits []limits.SeededRule
}

// envSetting binds one environment variable to the Config field it sets.
type envSetting struct {
	name  string
	apply func(c *Config, v string) error
}

// envSettings are the non-provider variables, in the order they are read.
var envSettings = []envSetting{
	{"GATEWAY_MASTER_KEY", func(c *Config, v string) error { c.MasterKey = v; return nil }},
	{"MODELGATE_DATA_PATH", func(c *Config, v string) error { c.Storage = v; return nil }},
	{"MODELGATE_POSTGRES_DSN", func(c *Config, v string) error { c.Postgres = v; return nil }},
	{"MODELGATE_REDIS_URL", func(c *Config, v string) error { c.Redis = v; return nil }},
	{"MODELGATE_REDIS_PREFIX", func(c *Config, v string) error { c.RedisPrefix = v; return nil }},
	{"MODELGATE_REDIS_FAIL_CLOSED", boolSetter(func(c *Config) **bool { return &c.RedisFailClosed })},
	{"USER_PATH_HEADER", func(c *Config, v string) error { c.Server.UserPathHeader = v; return nil }},
	{"SERVER_TIMING_ENABLED", boolSetter(func(c *Config) **bool { return &c.Server.ServerTiming })},
	{"TRACING_CAPTURE_CONTENT", boolSetter(func(c *Config) **bool { return &c.Tracing.CaptureContent })},
	{"TRACING_PROPAGATE_UPSTREAM", boolSetter(func(c *Config) **bool { return &c.Tracing.PropagateUpstream })},
	{"MAX_REQUEST_BODY_BYTES", func(c *Config, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return fmt.Errorf("%q is not a positive integer", v)
		}
		c.Server.MaxRequestBodyBytes = n
		return nil
	}},
	{"GC_MIN_HEAP_BYTES", func(c *Config, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("%q is not a non-negative integer", v)
		}
		c.Server.GCMinHeapBytes = &n
		return nil
	}},
	{"METRICS_USER_PATH_DEPTH", func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > MaxMetricsUserPathDepth {
			return fmt.Errorf("%q is not an integer from 0 to %d", v, MaxMetricsUserPathDepth)
		}
		c.Server.MetricsUserPathDepth = &n
		return nil
	}},
	{"ADMIN_ENDPOINTS_ENABLED", boolSetter(func(c *Config) **bool { return &c.Admin.EndpointsEnabled })},
	{"ADMIN_UI_ENABLED", boolSetter(func(c *Config) **bool { return &c.Admin.UIEnabled })},
	{"DASHBOARD_LIVE_LOGS_ENABLED", boolSetter(func(c *Config) **bool { return &c.Admin.LiveLogsEnabled })},
	{"ADMIN_LEGACY_ALIAS", func(c *Config, v string) error {
		v = strings.ToLower(v)
		if !validLegacyAlias(v) {
			return fmt.Errorf("%q is not one of auto, on, off", v)
		}
		c.Admin.LegacyAlias = v
		return nil
	}},
	{"ADMIN_ALLOW_UNAUTHENTICATED", boolSetter(func(c *Config) **bool { return &c.Admin.AllowUnauthenticated })},
	{"LOGGING_ENABLED", boolSetter(func(c *Config) **bool { return &c.Logging.Enabled })},
	{"LOGGING_LOG_BODIES", boolSetter(func(c *Config) **bool { return &c.Logging.LogBodies })},
	{"LOGGING_LOG_HEADERS", boolSetter(func(c *Config) **bool { return &c.Logging.LogHeaders })},
	{"LOGGING_REDACT_SECRETS", boolSetter(func(c *Config) **bool { return &c.Logging.RedactSecrets })},
	{"LOGGING_RETENTION_DAYS", daysSetter(func(c *Config) **int { return &c.Logging.RetentionDays })},
	{"USAGE_ENABLED", boolSetter(func(c *Config) **bool { return &c.Usage.Enabled })},
	{"USAGE_RETENTION_DAYS", daysSetter(func(c *Config) **int { return &c.Usage.RetentionDays })},
	{"RESPONSES_STORE_ENABLED", boolSetter(func(c *Config) **bool { return &c.Responses.Enabled })},
	{"RESPONSES_RETENTION_DAYS", daysSetter(func(c *Config) **int { return &c.Responses.RetentionDays })},
	{"CACHE_ENABLED", boolSetter(func(c *Config) **bool { return &c.Cache.Enabled })},
	{"RESPONSE_CACHE_ENABLED", boolSetter(func(c *Config) **bool { return &c.Cache.Enabled })},
	{"RESPONSE_CACHE_TTL_SECONDS", func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("%q is not a non-negative integer number of seconds", v)
		}
		c.Cache.TTLSeconds = &n
		return nil
	}},
	{"RESPONSE_CACHE_MAX_BYTES", func(c *Config, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return fmt.Errorf("%q is not a positive integer", v)
		}
		c.Cache.MaxBytes = &n
		return nil
	}},
	{"RESPONSE_CACHE_MAX_ENTRY_BYTES", func(c *Config, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return fmt.Errorf("%q is not a positive integer", v)
		}
		c.Cache.MaxEntryBytes = &n
		return nil
	}},
	{"RESPONSE_CACHE_SCOPE", func(c *Config, v string) error { c.Cache.Scope = strings.ToLower(v); return nil }},
	{"RATE_LIMITS_ENABLED", boolSetter(func(c *Config) **bool { return &c.RateLimits.Enabled })},
	{"RATE_LIMITS_FLUSH_INTERVAL", func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("%q is not a non-negative integer number of seconds", v)
		}
		c.RateLimits.FlushInterval = &n
		return nil
	}},
	{"BUDGETS_ENABLED", boolSetter(func(c *Config) **bool { return &c.Budgets.Enabled })},
	{"ENABLED_PASSTHROUGH_PROVIDERS", func(c *Config, v string) error {
		c.Passthrough.EnabledProviders = splitList(v)
		return nil
	}},
	{"VIRTUAL_MODELS", func(c *Config, v string) error {
		var l vmodels.List
		if err := json.Unmarshal([]byte(v), &l); err != nil {
			return err
		}
		c.VirtualModels = l
		return nil
	}},
	{"GATEWAY_ENTITLEMENTS", func(c *Config, v string) error {
		list := splitList(v)
		for _, e := range list {
			if !knownEntitlement(e) {
				return fmt.Errorf("unknown entitlement %q (known: %s)", e, strings.Join(knownEntitlements, ", "))
			}
		}
		c.Entitlements = list
		return nil
	}},
}

// FromEnv reads the gateway's environment variables from environ, given in
// os.Environ() form. Empty (or blank) variables count as unset and values
// are trimmed. Every malformed variable is reported, each error naming the
// variable and its bad value.
func FromEnv(environ []string) (Env, error) {
	vars := envMap(environ)
	var env Env
	var errs []error
	for _, s := range envSettings {
		v, ok := vars[s.name]
		if !ok {
			continue
		}
		if err := s.apply(&env.Config, v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.name, err))
		}
	}
	ps, baseURLs, perrs := envProviders(vars)
	errs = append(errs, perrs...)
	rules, rerr := limits.RulesFromEnv(environ)
	if rerr != nil {
		errs = append(errs, rerr)
	}
	if len(errs) > 0 {
		return Env{}, errors.Join(errs...)
	}
	env.rateLimits = rules
	env.Config.Providers = ps
	env.DefaultBaseURLs = baseURLs
	return env, nil
}

// envMap turns KEY=value pairs into a map, dropping blank values. As with
// os.Getenv, the first occurrence of a key wins.
func envMap(environ []string) map[string]string {
	vars := make(map[string]string, len(environ))
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if _, dup := vars[k]; dup {
			continue
		}
		vars[k] = strings.TrimSpace(v)
	}
	for k, v := range vars {
		if v == "" {
			delete(vars, k)
		}
	}
	return vars
}

// ParseBool parses a boolean setting: true/false, 1/0, yes/no or on/off,
// in any case.
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1", "yes", "on":
		return true, nil
	case "false", "0", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean (use true/false, 1/0, yes/no or on/off)", s)
}

func boolSetter(field func(c *Config) **bool) func(c *Config, v string) error {
	return func(c *Config, v string) error {
		b, err := ParseBool(v)
		if err != nil {
			return err
		}
		*field(c) = &b
		return nil
	}
}

// splitList splits a comma-separated value, trimming items and dropping
// empty ones. The result is never nil, so a value of only commas sets an
// explicitly empty list.
func splitList(v string) []string {
	out := []string{}
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// daysSetter parses a non-negative whole number of days into the field.
func daysSetter(field func(c *Config) **int) func(c *Config, v string) error {
	return func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("%q is not a non-negative integer number of days", v)
		}
		*field(c) = &n
		return nil
	}
}
