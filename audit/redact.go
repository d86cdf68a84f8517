package audit

import (
	"net/http"
	"strings"
)

// Redacted replaces the value of a header that carries a secret.
const Redacted = "[REDACTED]"

// secretHeaders are always redacted (lower case).
var secretHeaders = map[string]bool{
	"authorization":       true,
	"proxy-authorization": true,
	"x-api-key":           true,
	"api-key":             true,
	"x-goog-api-key":      true,
	"cookie":              true,
	"set-cookie":          true,
}

// MinSecretLen is the shortest provider key the Redactor looks for inside
// header values; shorter ones would match ordinary text.
const MinSecretLen = 8

// Redactor turns HTTP headers into the recorded header object with secrets
// replaced by "[REDACTED]": the headers authorization,
// proxy-authorization, x-api-key, api-key, x-goog-api-key, cookie and
// set-cookie, and every header whose value contains one of the configured
// provider keys. The zero value redacts the named headers only. It is safe
// for concurrent use.
type Redactor struct {
	secrets []string
}

// NewRedactor returns a Redactor that also redacts header values containing
// any of secrets (provider API keys). Secrets shorter than MinSecretLen and
// duplicates are ignored.
func NewRedactor(secrets []string) *Redactor {
	r := &Redactor{}
	seen := make(map[string]bool, len(secrets))
	for _, s := range secrets {
		if len(s) >= MinSecretLen && !seen[s] {
			seen[s] = true
			r.secrets = append(r.secrets, s)
		}
	}
	return r
}

// Headers returns h as the recorded object: lower-case names, several
// values joined by ", ", secrets redacted. It returns nil for no headers.
func (r *Redactor) Headers(h http.Header) map[string]string {
	if len(h) == 0 {
		return nil
	}
	out := make(map[string]string, len(h))
	for name, vals := range h {
		lname := strings.ToLower(name)
		v := strings.Join(vals, ", ")
		if secretHeaders[lname] || r.containsSecret(v) {
			v = Redacted
		}
		out[lname] = v
	}
	return out
}

// containsSecret reports whether v contains a configured provider key.
func (r *Redactor) containsSecret(v string) bool {
	if r == nil {
		return false
	}
	for _, s := range r.secrets {
		if strings.Contains(v, s) {
			return true
		}
	}
	return false
}
