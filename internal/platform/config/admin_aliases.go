package config

import (
	"errors"
	"fmt"
	"reflect"
)

// foldAdminAliases moves the switches written in a layer's admin block
// onto their canonical fields and clears the aliases. A layer that sets
// both forms to different values is an error naming both.
func foldAdminAliases(c *Config) error {
	a := &c.Admin
	var errs []error
	fold := func(alias, canonical string, aliasSet, canonicalSet bool, same bool, apply func()) {
		switch {
		case !aliasSet:
		case canonicalSet && !same:
			errs = append(errs, fmt.Errorf("admin.%s and %s disagree; set one of them", alias, canonical))
		default:
			apply()
		}
	}
	fold("gateway_master_key", "master_key", a.GatewayMasterKey != "", c.MasterKey != "",
		a.GatewayMasterKey == c.MasterKey, func() { c.MasterKey = a.GatewayMasterKey })
	fold("logging_enabled", "logging.enabled", a.LoggingEnabled != nil, c.Logging.Enabled != nil,
		c.Logging.Enabled != nil && a.LoggingEnabled != nil && *c.Logging.Enabled == *a.LoggingEnabled,
		func() { c.Logging.Enabled = a.LoggingEnabled })
	fold("enabled_passthrough_providers", "passthrough.enabled_providers", a.EnabledPassthroughProviders != nil,
		c.Passthrough.EnabledProviders != nil,
		reflect.DeepEqual(a.EnabledPassthroughProviders, c.Passthrough.EnabledProviders),
		func() { c.Passthrough.EnabledProviders = a.EnabledPassthroughProviders })
	fold("rate_limits_flush_interval", "rate_limits.flush_interval", a.RateLimitsFlushInterval != nil,
		c.RateLimits.FlushInterval != nil,
		c.RateLimits.FlushInterval != nil && a.RateLimitsFlushInterval != nil && *c.RateLimits.FlushInterval == *a.RateLimitsFlushInterval,
		func() { c.RateLimits.FlushInterval = a.RateLimitsFlushInterval })
	fold("virtual_models", "virtual_models", a.VirtualModels != nil, c.VirtualModels != nil,
		reflect.DeepEqual(a.VirtualModels, c.VirtualModels), func() { c.VirtualModels = a.VirtualModels })
	a.GatewayMasterKey, a.LoggingEnabled, a.EnabledPassthroughProviders = "", nil, nil
	a.RateLimitsFlushInterval, a.VirtualModels = nil, nil
	return errors.Join(errs...)
}
