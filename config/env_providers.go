package config

import (
	"fmt"
	"sort"
	"strings"
)

// envProviderTypes are the types that environment variables can register,
// in the order their instances are listed.
var envProviderTypes = []string{
	"openai", "anthropic", "gemini", "groq", "xai", "deepseek", "openrouter",
	"mistral", "elevenlabs", "azure", "ollama", "vllm",
}

func isEnvProviderType(t string) bool {
	for _, e := range envProviderTypes {
		if e == t {
			return true
		}
	}
	return false
}

// envPrefix is the variable prefix of a provider instance: OPENAI for
// openai, OPENAI_TEAM_B for openai-team-b.
func envPrefix(name string) string {
	return strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// envProviders registers the providers described by the environment.
//
// For a type T that needs a key, T_API_KEY registers provider "t" (with
// T_BASE_URL as its base URL if set) and T_BASE_URL, with or without a key,
// becomes the type's default base URL. For ollama and vllm, T_BASE_URL (or
// T_API_KEY) registers provider "t" and is not a type default.
//
// T_<SUFFIX>_API_KEY registers "t-<suffix>" with T_<SUFFIX>_BASE_URL as its
// base URL; for ollama and vllm T_<SUFFIX>_BASE_URL alone also registers it.
// Suffixed instances follow the plain ones, sorted by name.
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
	for _, t := range envProviderTypes {
		prefix := envPrefix(t)
		key, base := vars[prefix+"_API_KEY"], checkURL(prefix+"_BASE_URL")
		if TypeNeedsKey(t) {
			if base != "" {
				baseURLs[t] = base
			}
			if key == "" {
				continue
			}
		} else if key == "" && base == "" {
			continue
		}
		ps = append(ps, Provider{Name: t, Type: t, APIKey: key, BaseURL: base})
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
		typ, suffix, ok := strings.Cut(rest, "_")
		typ = strings.ToLower(typ)
		if !ok || suffix == "" || !isEnvProviderType(typ) {
			continue
		}
		if !keyVar && TypeNeedsKey(typ) {
			continue // a base URL alone does not register a keyed type
		}
		name := typ + "-" + strings.ToLower(strings.ReplaceAll(suffix, "_", "-"))
		if _, done := suffixed[name]; done {
			continue
		}
		suffixed[name] = Provider{
			Name:    name,
			Type:    typ,
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
