package config

import "github.com/modelgate/modelgate/internal/gateway/providers"

// The facts about provider types come from the provider-type table of
// package providers; the functions below are the questions configuration
// asks of it.

// KnownType reports whether t names a provider type. Names are
// case-sensitive.
func KnownType(t string) bool {
	_, ok := providers.LookupType(t)
	return ok
}

// KnownTypes returns the provider type names in a fixed order: the order in
// which environment variables register instances, the built-in mock last.
func KnownTypes() []string { return providers.TypeNames() }

// DefaultBaseURL returns the base URL an instance of type t uses when it
// sets none, or "" when the type has no default (its base URL must be
// configured, or it needs none) and for unknown types.
func DefaultBaseURL(t string) string {
	pt, _ := providers.LookupType(t)
	return pt.DefaultBaseURL
}

// TypeNeedsKey reports whether instances of type t need an API key. It is
// false for self-hosted types, the built-in mock and unknown types.
func TypeNeedsKey(t string) bool {
	pt, _ := providers.LookupType(t)
	return pt.NeedsKey
}

// TypeNeedsBaseURL reports whether instances of type t must configure a
// base URL: the type has no default and is not answered in-process.
func TypeNeedsBaseURL(t string) bool {
	pt, ok := providers.LookupType(t)
	return ok && pt.DefaultBaseURL == "" && !pt.InProcess
}

// TypeInProcess reports whether type t is answered in-process by the
// built-in simulator, the only kind of provider that takes latency_ms.
func TypeInProcess(t string) bool {
	pt, _ := providers.LookupType(t)
	return pt.InProcess
}

// DefaultAPIVersion returns the api-version query parameter an instance of
// type t sends when it sets none: "" except for deployment-style types.
func DefaultAPIVersion(t string) string {
	pt, _ := providers.LookupType(t)
	return pt.DefaultAPIVersion
}
