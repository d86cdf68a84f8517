package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/modelgate/modelgate/internal/gateway/providers"
)

// envTypes returns the provider types that environment variables can
// register, in the order their instances are listed.
func envTypes() []providers.TypeInfo {
	var out []providers.TypeInfo
	for _, t := range providers.Types() {
		if t.EnvPrefix != "" {
			out = append(out, t)
		}
	}
	return out
}

// envInstance splits the variable stem rest (a name without its _API_KEY
// or _BASE_URL ending) into the type whose prefix it starts with, compared
// without regard to case, and the instance suffix that follows the prefix
// and an underscore. ok is false when no type's prefix fits or the suffix
// is empty.
func envInstance(types []providers.TypeInfo, rest string) (t providers.TypeInfo, suffix string, ok bool) {
	for _, c := range types {
		n := len(c.EnvPrefix)
		if len(rest) > n+1 && rest[n] == '_' && strings.EqualFold(rest[:n], c.EnvPrefix) &&
			(!ok || n > len(t.EnvPrefix)) {
			t, suffix, ok = c, rest[n+1:], true
		}
	}
	return t, suffix, ok
}

// envPrefix is the variable prefix of a provider instance: OPENAI for
// openai, OPENAI_TEAM_B for openai-team-b.
func envPrefix(name string) string {
	return strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// envProviders registers the providers described by the environment, for
// every type with an environment prefix T in the provider-type table.
//
// For a type that needs a key, T_API_KEY registers provider "t" (with
// T_BASE_URL as its base URL if set) and T_BASE_URL, with or without a key,
// becomes the type's default base URL. For a type that needs no key
// (ollama, vllm), T_BASE_URL (or T_API_KEY) registers provider "t" and is
// not a type default.
//
// T_<SUFFIX>_API_KEY registers "t-<suffix>" with T_<SUFFIX>_BASE_URL as its
// base URL; for a type that needs no key T_<SUFFIX>_BASE_URL alone also
// registers it. Suffixed instances follow the plain ones, sorted by name.
func envProviders(vars map[string]string) (Providers, map[string]string, []error) {
	var errs []error
	checkURL := func(name string) string {
		v := vars[name]
		if v != "" {
			if err := checkHTTPURL(v); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
			}
		}
		return v
	}

	var ps Providers
	baseURLs := map[string]string{}
	types := envTypes()
	for _, t := range types {
		key, base := vars[t.EnvPrefix+"_API_KEY"], checkURL(t.EnvPrefix+"_BASE_URL")
		if t.NeedsKey {
			if base != "" {
				baseURLs[t.Name] = base
			}
			if key == "" {
				continue
			}
		} else if key == "" && base == "" {
			continue
		}
		ps = append(ps, Provider{Name: t.Name, Type: t.Name, APIKey: key, BaseURL: base})
	}

	vnames := make([]string, 0, len(vars))
	for v := range vars {
		vnames = append(vnames, v)
	}
	sort.Strings(vnames)
	suffixed := map[string]Provider{}
	for _, v := range vnames {
		var rest string
		var keyVar bool
		if r, ok := strings.CutSuffix(v, "_API_KEY"); ok {
			rest, keyVar = r, true
		} else if r, ok := strings.CutSuffix(v, "_BASE_URL"); ok {
			rest = r
		} else {
			continue
		}
		t, suffix, ok := envInstance(types, rest)
		if !ok {
			continue
		}
		if !keyVar && t.NeedsKey {
			continue // a base URL alone does not register a keyed type
		}
		name := t.Name + "-" + strings.ToLower(strings.ReplaceAll(suffix, "_", "-"))
		if _, done := suffixed[name]; done {
			continue
		}
		suffixed[name] = Provider{
			Name:    name,
			Type:    t.Name,
			APIKey:  vars[rest+"_API_KEY"],
			BaseURL: checkURL(rest + "_BASE_URL"),
		}
	}
	names := make([]string, 0, len(suffixed))
	for n := range suffixed {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ps = append(ps, suffixed[n])
	}
	if len(baseURLs) == 0 {
		baseURLs = nil
	}
	return ps, baseURLs, errs
}
