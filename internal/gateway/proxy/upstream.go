package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// Defaults of UpstreamLimits.
const (
	// DefaultReadIdleTimeout is the default longest silence of an
	// upstream between two reads of its answer.
	DefaultReadIdleTimeout = 60 * time.Second
	// DefaultMaxResponseBytes is the default cap of a non-streamed
	// upstream answer (64 MiB).
	DefaultMaxResponseBytes int64 = 64 << 20
	// DefaultMaxEventBytes is the default cap of one server-sent event of
	// an upstream stream (8 MiB).
	DefaultMaxEventBytes int64 = 8 << 20
)

// UpstreamLimits bound how the gateway reads one provider's answers once
// the upstream has sent its response headers. Zero or negative fields
// take the defaults.
type UpstreamLimits struct {
	// ReadIdleTimeout is the longest wait for the next bytes of an answer
	// or stream. When it passes, the upstream call is cancelled and the
	// client gets 504 provider_error, code upstream_timeout, or, on a
	// stream already started, an error event in its stream's shape.
	// Default DefaultReadIdleTimeout.
	ReadIdleTimeout time.Duration
	// Timeout caps a whole non-streamed answer, from sending the request
	// to its last byte, with the same outcome as ReadIdleTimeout (the
	// provider's timeout). Streams are bounded by ReadIdleTimeout only.
	// Zero: no cap besides ReadIdleTimeout.
	Timeout time.Duration
	// MaxResponseBytes caps a non-streamed answer; a larger one gets 502
	// provider_error, code upstream_response_too_large, and is never held
	// whole. Default DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// MaxEventBytes caps one server-sent event of a stream; a larger one
	// ends the stream with an error event of that code. Default
	// DefaultMaxEventBytes.
	MaxEventBytes int64
}

// withDefaults fills the unset fields.
func (l UpstreamLimits) withDefaults() UpstreamLimits {
	if l.ReadIdleTimeout <= 0 {
		l.ReadIdleTimeout = DefaultReadIdleTimeout
	}
	if l.Timeout < 0 {
		l.Timeout = 0
	}
	if l.MaxResponseBytes <= 0 {
		l.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if l.MaxEventBytes <= 0 {
		l.MaxEventBytes = DefaultMaxEventBytes
	}
	return l
}

// Upstreams holds what the proxy needs to know about the configured
// provider instances beyond the adapters: the read limits of each, and
// their credentials, which it only ever strips from text it relays. The
// credentials cannot be read back out.
type Upstreams struct {
	limits  map[string]UpstreamLimits
	secrets []string
}

// NewUpstreams returns the read limits by provider instance name (an
// instance missing from limits gets the defaults) and the provider
// credentials to strip from relayed upstream text. Empty credentials are
// ignored.
func NewUpstreams(limits map[string]UpstreamLimits, secrets []string) *Upstreams {
	u := &Upstreams{limits: make(map[string]UpstreamLimits, len(limits))}
	for name, l := range limits {
		u.limits[name] = l.withDefaults()
	}
	for _, s := range secrets {
		if s = strings.TrimSpace(s); s != "" {
			u.secrets = append(u.secrets, s)
		}
	}
	// Longest first, so that a key containing another is removed whole.
	sort.Slice(u.secrets, func(i, j int) bool { return len(u.secrets[i]) > len(u.secrets[j]) })
	return u
}

// defaultLimits are the limits of a provider nobody configured.
var defaultLimits = UpstreamLimits{}.withDefaults()

// limitsFor returns the read limits of the named provider instance.
func (u *Upstreams) limitsFor(provider string) UpstreamLimits {
	if u != nil {
		if l, ok := u.limits[provider]; ok {
			return l
		}
	}
	return defaultLimits
}

// redactBody removes every configured provider credential from an
// answer's body; b itself when it holds none.
func (u *Upstreams) redactBody(b []byte) []byte {
	if u == nil {
		return b
	}
	for _, secret := range u.secrets {
		if bytes.Contains(b, []byte(secret)) {
			return []byte(u.redact(string(b)))
		}
	}
	return b
}

// redactValues replaces each of vs, the values of one header, that holds
// a configured provider credential by audit.Redacted, in place, and
// returns vs: the rule the audit applies to the headers it stores, so a
// header relayed, recorded with an attempt or stored reads the same.
func (u *Upstreams) redactValues(vs []string) []string {
	if u == nil || len(u.secrets) == 0 {
		return vs
	}
	for i, v := range vs {
		for _, secret := range u.secrets {
			if strings.Contains(v, secret) {
				vs[i] = audit.Redacted
				break
			}
		}
	}
	return vs
}

// redactHeader replaces every value of h that holds a configured provider
// credential by audit.Redacted, in place, and returns h: an upstream's
// headers relayed or recorded as they came may quote its key as its body
// may.
func (u *Upstreams) redactHeader(h http.Header) http.Header {
	if u == nil || len(u.secrets) == 0 {
		return h
	}
	for _, vs := range h {
		u.redactValues(vs)
	}
	return h
}

// redact removes every configured provider credential from s.
func (u *Upstreams) redact(s string) string {
	if u == nil {
		return s
	}
	for _, secret := range u.secrets {
		if strings.Contains(s, secret) {
			s = strings.ReplaceAll(s, secret, providers.Redacted)
		}
	}
	return s
}

// CodeSecretInRequest is the error code of a request a secret policy
// refuses because its body holds a credential.
const CodeSecretInRequest = "secret_in_request"

// RewriterMaskSecrets names the request revision of a body whose
// credentials a secret policy masked before it was sent.
const RewriterMaskSecrets = "mask_secrets"

// applySecretPolicy applies the secret policy of the caller's user path
// to the request body on info: block refuses a body that holds a
// credential, naming its kind; mask puts the body with each credential
// replaced by [REDACTED:<kind>] on info in its place (every later stage
// and the upstream get that one) and records a revision. It returns the
// fields of the body that goes on.
func (s *Service) applySecretPolicy(info *reqinfo.Info, fields requestFields) (requestFields, error) {
	if s.SecretAction == nil {
		return fields, nil
	}
	action := s.SecretAction(info.UserPath)
	if action != audit.SecretBlock && action != audit.SecretMask {
		return fields, nil
	}
	b := info.Body()
	masked, n, kind := s.Secrets.MaskSecretsNamed(b.Bytes)
	if n == 0 {
		return fields, nil
	}
	if action == audit.SecretBlock {
		return fields, apierr.InvalidRequest(fmt.Sprintf(
			"the request holds a credential (%s); the secret policy of user path %s refuses requests that do: remove it and send again",
			kind, info.UserPath)).WithCode(CodeSecretInRequest)
	}
	info.SetBody(masked)
	detail, _ := json.Marshal(map[string]any{"masked": n, "first_kind": kind})
	info.AddRevision(reqinfo.Revision{Rewriter: RewriterMaskSecrets, Detail: detail})
	nb := info.Body()
	if nb.ScanErr != nil {
		return fields, scanError(nb.ScanErr)
	}
	return requestFields{nb.Fields}, nil
}
