// Package keys authenticates callers and manages API keys: the gateway
// master key, and managed keys (sk_mg_ followed by 32 base62 characters)
// that are shown once at creation and stored only as SHA-256 hashes. Every
// comparison of a secret runs in constant time over fixed-size hashes, and
// no key ever appears in a log line or an error message.
package keys

import (
	"net/http"
	"strings"
)

// Credential returns the caller's credential from "Authorization: Bearer"
// or, when that is absent, "x-api-key". The second result reports whether
// a credential was sent at all.
func Credential(h http.Header) (string, bool) {
	if auth := h.Get("Authorization"); auth != "" {
		scheme, token, ok := strings.Cut(auth, " ")
		if ok && strings.EqualFold(scheme, "Bearer") {
			token = strings.TrimSpace(token)
			return token, token != ""
		}
		// A present but unusable Authorization header still counts as
		// sent: it wins over x-api-key and fails authentication.
		return "", true
	}
	if key := strings.TrimSpace(h.Get("X-Api-Key")); key != "" {
		return key, true
	}
	return "", false
}
