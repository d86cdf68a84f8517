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
		lname := lowerName(name)
		v := strings.Join(vals, ", ")
		if secretHeaders[lname] || r.containsSecret(v) {
			v = Redacted
		}
		out[lname] = v
	}
	return out
}

// WithRemoved adds to recorded, headers as Headers returned them, a
// header the request carried that an earlier stage removed (a caller's
// key, once read): recorded as sent, its value redacted. It returns the
// headers, made when recorded is nil.
func WithRemoved(recorded map[string]string, name string) map[string]string {
	if recorded == nil {
		recorded = make(map[string]string, 1)
	}
	recorded[lowerName(name)] = Redacted
	return recorded
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

// commonLower maps the canonical form of headers that most requests and
// answers carry to their lower-case name, so recording them allocates no
// new name.
var commonLower = func() map[string]string {
	names := []string{
		"Accept", "Accept-Encoding", "Accept-Language", "Anthropic-Beta", "Anthropic-Version",
		"Authorization", "Cache-Control", "Connection", "Content-Length", "Content-Type",
		"Cookie", "Date", "Openai-Organization", "Openai-Processing-Ms", "Openai-Project",
		"Openai-Version", "Origin", "Referer", "Request-Id", "Server", "Set-Cookie",
		"Transfer-Encoding", "User-Agent", "Via", "X-Accel-Buffering", "X-Api-Key",
		"X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Modelgate-Provider",
		"X-Modelgate-Session-Id", "X-Modelgate-User-Path", "X-Ratelimit-Limit-Requests",
		"X-Ratelimit-Limit-Tokens", "X-Ratelimit-Remaining-Requests", "X-Ratelimit-Remaining-Tokens",
		"X-Ratelimit-Reset-Requests", "X-Ratelimit-Reset-Tokens", "X-Request-Id", "X-Stainless-Arch",
		"X-Stainless-Lang", "X-Stainless-Os", "X-Stainless-Package-Version", "X-Stainless-Retry-Count",
		"X-Stainless-Runtime", "X-Stainless-Runtime-Version", "X-Stainless-Timeout",
	}
	m := make(map[string]string, len(names))
	for _, n := range names {
		m[n] = strings.ToLower(n)
	}
	return m
}()

// lowerName is name in lower case.
func lowerName(name string) string {
	if l, ok := commonLower[name]; ok {
		return l
	}
	return strings.ToLower(name)
}
