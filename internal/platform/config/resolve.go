package config

import (
	"errors"
	"fmt"
	"strings"
)

// Resolve layers the configuration, lowest precedence first: built-in
// defaults, the YAML config file, the Caddy app config, the environment.
// It then applies the environment's type-level base URLs, fills provider
// defaults and validates the result. It returns the effective config and
// human-readable warnings about settings that were adjusted or have no
// effect; an error lists every invalid setting.
func Resolve(yaml, app Config, env Env) (Config, []string, error) {
	var errs []error
	for _, layer := range []struct {
		name string
		ps   Providers
	}{{"the config file", yaml.Providers}, {"the app config", app.Providers}, {"the environment", env.Config.Providers}} {
		seen := map[string]bool{}
		for _, p := range layer.ps {
			if p.Name != "" && seen[p.Name] {
				errs = append(errs, fmt.Errorf("providers.%s: defined more than once in %s", p.Name, layer.name))
			}
			seen[p.Name] = true
		}
	}
	for _, layer := range []*Config{&yaml, &app} {
		if err := foldAdminAliases(layer); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return Config{}, nil, errors.Join(errs...)
	}

	c := Defaults()
	c.Overlay(yaml)
	c.Overlay(app)
	c.Overlay(env.Config)
	for i := range c.Providers {
		fillProviderDefaults(&c.Providers[i], env.DefaultBaseURLs)
	}

	warnings := adjust(&c)
	if err := validate(c); err != nil {
		return Config{}, warnings, err
	}
	return c, warnings, nil
}

// adjust switches off settings that cannot take effect and explains why.
func adjust(c *Config) []string {
	var w []string
	if !c.Admin.EndpointsOn() && Bool(c.Admin.UIEnabled, DefaultAdminUIEnabled) {
		c.Admin.UIEnabled = Ptr(false)
		w = append(w, "admin UI disabled because the admin API is disabled (admin.endpoints_enabled is off)")
	}
	if c.Admin.LiveLogsOn() && !c.Admin.UIOn() {
		w = append(w, "dashboard live logs have no effect because the admin UI is disabled")
	}
	if c.Admin.UnauthenticatedAllowed() && c.MasterKey != "" {
		w = append(w, "admin.allow_unauthenticated has no effect because a master key is set")
	}
	if len(c.Providers) == 0 {
		w = append(w, "no providers configured: add providers to the config or set a provider key such as OPENAI_API_KEY")
	}
	var missing []string
	for _, name := range c.Passthrough.EnabledProviders {
		if _, ok := c.Providers.Get(name); !ok && name != "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		w = append(w, fmt.Sprintf("passthrough.enabled_providers names unconfigured providers: %s", strings.Join(missing, ", ")))
	}
	return w
}
