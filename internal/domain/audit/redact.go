package audit

import (
	"net/http"
	"strings"

	"github.com/modelgate/modelgate/internal/domain/keys"
)

// Redacted replaces the value of a header that carries a secret.
const Redacted = "[REDACTED]"

// secretHeaders are always redacted (lower case).
var secretHeaders = map[string]bool{
	"authorization":       true,
	"proxy-authorization": true,
	"x-api-key":           true,
	"api-key":             true,
	"xi-api-key":          true,
	"x-goog-api-key":      true,
	"cookie":              true,
	"set-cookie":          true,
}

// MinSecretLen is the shortest provider key the Redactor looks for inside
// header values; shorter ones would match ordinary text.
const MinSecretLen = 8

// Redactor turns HTTP headers into the recorded header object with secrets
// replaced by "[REDACTED]": the headers authorization,
// proxy-authorization, x-api-key, api-key, xi-api-key, x-goog-api-key,
// cookie and set-cookie; every header whose value contains a managed key
// (recognized by its prefix, keys.KeyPrefix, so also the one the request
// presented), one of the configured provider keys or one of the gateway's
// own keys; and, in sec-websocket-protocol, the key of an
// openai-insecure-api-key.<key> subprotocol (the other subprotocols stay
// readable). The zero value redacts the named headers and managed keys
// only. It is safe for concurrent use.
type Redactor struct {
	secrets []string
	// body masks secrets in bodies (see MaskSecrets); nil: by shape only.
	body *bodySecrets
}

// NewRedactor returns a Redactor that also redacts header values containing
// any of secrets (provider API keys) or any of own (the gateway's own
// keys, such as the master key). Provider keys shorter than MinSecretLen
// are ignored; own keys are looked for whatever their length, since a
// short master key still opens the whole gateway. Empty strings and
// duplicates are ignored. MaskSecrets masks own keys as gateway_key and
// provider keys by value too (see newBodySecrets).
func NewRedactor(secrets []string, own ...string) *Redactor {
	r := &Redactor{body: newBodySecrets(secrets, own)}
	seen := make(map[string]bool, len(secrets)+len(own))
	add := func(s string, minLen int) {
		if len(s) >= minLen && s != "" && !seen[s] {
			seen[s] = true
			r.secrets = append(r.secrets, s)
		}
	}
	for _, s := range secrets {
		add(s, MinSecretLen)
	}
	for _, s := range own {
		add(s, 1)
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
		if lname == "sec-websocket-protocol" {
			v = redactProtocols(v)
		}
		if secretHeaders[lname] || strings.Contains(v, keys.KeyPrefix) || r.containsSecret(v) {
			v = Redacted
		}
		out[lname] = v
	}
	return out
}

// keyProtocol starts the WebSocket subprotocol in which browser clients
// of OpenAI's realtime API offer a key: openai-insecure-api-key.<key>.
const keyProtocol = "openai-insecure-api-key."

// redactProtocols returns a Sec-WebSocket-Protocol value (a comma-separated
// list of subprotocols) with the key of every openai-insecure-api-key.<key>
// subprotocol replaced by [REDACTED]. A value that holds that name
// anywhere but at the start of a subprotocol is redacted whole.
func redactProtocols(v string) string {
	lower := strings.ToLower(v)
	if !strings.Contains(lower, keyProtocol) {
		return v
	}
	parts := strings.Split(v, ",")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		switch at := strings.Index(strings.ToLower(p), keyProtocol); {
		case at == 0:
			p = p[:len(keyProtocol)] + Redacted
		case at > 0:
			return Redacted
		}
		parts[i] = p
	}
	return strings.Join(parts, ", ")
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

// containsSecret reports whether v contains a configured provider key or
// one of the gateway's own keys.
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
		"Sec-Websocket-Protocol", "Transfer-Encoding", "User-Agent", "Via", "X-Accel-Buffering", "X-Api-Key", "Xi-Api-Key",
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
