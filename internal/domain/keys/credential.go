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

// KeyHeaders are the headers Credential reads a caller's key from, in
// the canonical form Go gives header names, the one that wins first. The
// auth stage removes them once read, so that no later stage or upstream
// sees them.
var KeyHeaders = [...]string{"Authorization", "X-Api-Key"}

// Credential returns the caller's credential from "Authorization: Bearer"
// or, when that is absent, "x-api-key". The second result reports whether
// a credential was sent at all. It picks one header by that order;
// ConflictingCredentials tells whether the headers disagree.
func Credential(h http.Header) (string, bool) {
	if auth := h.Get(KeyHeaders[0]); auth != "" {
		token, bearer := bearerToken(auth)
		if bearer {
			return token, token != ""
		}
		// A present but unusable Authorization header still counts as
		// sent: it wins over x-api-key and fails authentication.
		return "", true
	}
	if key := strings.TrimSpace(h.Get(KeyHeaders[1])); key != "" {
		return key, true
	}
	return "", false
}

// bearerToken returns the trimmed token of a "Bearer" Authorization value
// and whether the scheme is Bearer.
func bearerToken(auth string) (string, bool) {
	scheme, token, ok := strings.Cut(auth, " ")
	if ok && strings.EqualFold(scheme, "Bearer") {
		return strings.TrimSpace(token), true
	}
	return "", false
}

// credentialHeaders are the request headers that carry a caller's key, in
// the canonical form Go gives header names: KeyHeaders, then the
// provider-style ones the gateway does not read keys from.
var credentialHeaders = [...]string{KeyHeaders[0], KeyHeaders[1], "Api-Key", "X-Goog-Api-Key"}

// ConflictingCredentials reports whether the request's credential headers
// contradict each other: one of Authorization, x-api-key, api-key and
// x-goog-api-key sent more than once, or, without Authorization, two of
// the others (empty values aside) carrying different keys. Authorization,
// when sent, wins over the others whatever they carry. Such a request
// gets 400 rather than whichever header would otherwise win.
func ConflictingCredentials(h http.Header) bool {
	for _, name := range credentialHeaders {
		if len(h[name]) > 1 {
			return true
		}
	}
	if vs := h[KeyHeaders[0]]; len(vs) == 1 && strings.TrimSpace(vs[0]) != "" {
		return false
	}
	first := ""
	for _, name := range credentialHeaders[1:] {
		vs := h[name]
		if len(vs) == 0 {
			continue
		}
		// Both values come from the caller: comparing them reveals
		// nothing the caller does not know, so no constant time here.
		switch key := strings.TrimSpace(vs[0]); {
		case key == "":
		case first == "":
			first = key
		case key != first:
			return true
		}
	}
	return false
}
