package proxy

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"io"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqbody"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// Passthrough configures /p/<provider>/<path>, the providers' own APIs
// relayed unchanged.
type Passthrough struct {
	// Enabled lists the provider instance names or provider types usable
	// there; every other provider answers 404.
	Enabled []string
	// GatewayHeaders are request headers meant for the gateway (the
	// user-path header), never relayed.
	GatewayHeaders []string
}

// passthroughPrefix starts every passthrough path.
const passthroughPrefix = "/p/"

// hopByHop are the headers of one connection, never relayed (RFC 9110
// 7.6.1, and the proxy variants in use).
var hopByHop = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// clientCredentials are the request headers that may carry the client's
// credential for the gateway, or any provider's; none is relayed. The
// provider's own credential header is added by its adapter.
var clientCredentials = []string{"Authorization", "X-Api-Key", "Api-Key", "Xi-Api-Key", "X-Goog-Api-Key", "Cookie"}

// passthrough serves /p/<provider>/<path>: any method, relayed to <path>
// below the provider's API root with the provider's credential. The
// client's credentials, the gateway's own headers and hop-by-hop headers
// are removed; the query, body and answer (streams included) pass
// unchanged, but for provider credentials, removed from the answer's
// headers and from error answers, and a Retry-After added to a 429 that
// has none (providers.RetryAfter, else 1). Redirects are relayed, never
// followed. An event stream is relayed whole event by whole event; an
// answer the upstream breaks off (reset, cut, silent past the idle
// timeout) aborts the client's connection, as on native streams, so that
// the client never takes it for complete. A leading v1/ segment is dropped when the API root already
// ends in /v1 and is refused (404) when it does not. A path segment that
// decodes to . or .., or that hides a slash or backslash, is refused, so
// nothing can leave the API root. The model of a JSON body is recorded
// and checked against the access policies (403 model_access_denied); a
// call without one is checked against the policy covering every model of
// the provider. A spent budget refuses a priced model, and a call without
// a model unless it is a GET or HEAD (429 budget_exceeded). The usage of
// a JSON answer is recorded.
func (s *Service) passthrough(w http.ResponseWriter, r *http.Request) {
	p, rl, path, err := s.passthroughTarget(r)
	if err != nil {
		apierr.WriteFor(w, r, err)
		return
	}
	c := &call{provider: p, info: reqinfo.From(r.Context()), raw: true, svc: s}
	if c.info == nil {
		c.info = reqinfo.New()
	}
	c.info.ProviderName, c.info.ProviderType = p.Name(), p.Type()
	body, length, err := s.passthroughBody(w, r, c)
	if err != nil {
		apierr.WriteFor(w, r, err)
		return
	}
	// The access policies apply as on the model endpoints, so that
	// passthrough is no way around them: to the model a JSON body names,
	// and to a call whose model the gateway does not read (a form, a
	// file, a listing) the policy covering every model of the provider
	// (provider/* or *), since such a call may run any of them.
	if c.info.VirtualModels {
		if _, err := s.VirtualModels.Access(c.info.UserPath, p.Name(), c.model); err != nil {
			apierr.WriteFor(w, r, accessDenied(cmp.Or(c.model, p.Name()+"/*")))
			return
		}
	}
	// A spent budget refuses a priced model as on the model endpoints,
	// and a call that may change state (not GET or HEAD) whose model the
	// gateway does not read as well: it may run any priced model of the
	// provider. A read runs no model and is served.
	if c.model == "" && c.info.BudgetExceeded != nil && r.Method != http.MethodGet && r.Method != http.MethodHead {
		c.info.RefusedBeforeUpstream = true
		apierr.WriteFor(w, r, c.info.BudgetExceeded)
		return
	}
	if refuseOverBudget(w, r, c) {
		return
	}
	adm, ok := s.admitTarget(w, r, c)
	if !ok {
		return
	}
	defer func() { adm.Done(usedTokens(c.info)) }()
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	c.limits = s.Upstreams.limitsFor(p.Name())
	started := time.Now()
	resp, err := rl.Relay(ctx, providers.RawRequest{Method: r.Method, Path: path, RawQuery: r.URL.RawQuery,
		Header: s.relayedHeader(r.Header, rl.AuthHeader()), Body: body, ContentLength: length})
	if err != nil {
		if be := streamedBodyFailure(body); be != nil {
			// The client's body, streamed, was too long or did not
			// arrive in time (which also cancelled the request's
			// context: the client is not gone).
			c.failed = apierr.From(bodyError(be, s.MaxBodyBytes))
			c.recordAttempt(started, 0, "")
			apierr.WriteFor(w, r, c.failed)
		} else if e := s.sendFailed(r, c, started, err); e != nil {
			apierr.WriteFor(w, r, e)
		}
		return
	}
	// An error answer or a redirect is read whole, whatever its type, so
	// that a credential the upstream quotes in it can be removed.
	whole := isJSON(resp.Header.Get("Content-Type")) || resp.StatusCode >= 300
	c.stream = IsEventStream(resp.Header)
	c.info.Stream = c.stream
	c.upstream.watch(ctx, cancel, resp.Body, c.limits, !whole, started)
	resp.Body = &c.upstream
	defer resp.Body.Close()
	defer func() {
		c.recordAttempt(started, resp.StatusCode, "")
	}()
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		// The upstream's own words may quote part of its credential.
		apierr.WriteFor(w, r, upstreamError(p.Name(), resp, s.Upstreams))
		return
	}
	// The upstream's headers may quote its key as its body may.
	s.Upstreams.redactHeader(resp.Header)
	h := w.Header()
	for k, v := range resp.Header {
		h[k] = v
	}
	removeHopByHop(h)
	h.Del("Content-Length")
	h.Set("X-Modelgate-Provider", p.Name())
	if resp.StatusCode == http.StatusTooManyRequests && h.Get("Retry-After") == "" {
		h.Set("Retry-After", cmp.Or(providers.RetryAfter(resp.Header, time.Now()), "1"))
	}
	if whole {
		answer, ok := s.readAnswer(w, r, resp, c)
		if !ok {
			return
		}
		if u, ok := anyUsage(answer, p.Shape() == providers.ShapeMessages); ok && resp.StatusCode < 300 {
			c.setUsage(u)
			c.noteBodyCost(answer)
		}
		if resp.StatusCode >= 300 {
			answer = s.Upstreams.redactBody(answer)
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(answer)
		return
	}
	if c.stream {
		s.relayStream(w, r, resp, c)
		return
	}
	w.WriteHeader(resp.StatusCode)
	s.copyFlushing(w, r, resp.Body, c)
}

// passthroughTarget finds the provider and the upstream path of a
// passthrough request, or the 404 or 400 that refuses it.
func (s *Service) passthroughTarget(r *http.Request) (providers.Provider, providers.Relayer, string, error) {
	escaped := r.URL.EscapedPath()
	rest, ok := strings.CutPrefix(escaped, passthroughPrefix)
	if !ok {
		return nil, nil, "", apierr.UnknownRoute("unknown route: " + r.Method + " " + r.URL.Path)
	}
	name, path, _ := strings.Cut(rest, "/")
	if dec, err := url.PathUnescape(name); err == nil {
		name = dec
	}
	p := s.passthroughProvider(name)
	rl, relays := p.(providers.Relayer)
	if p == nil || !relays {
		return nil, nil, "", apierr.NotFound("passthrough is not enabled for provider " + quoteName(name)).
			WithCode("passthrough_not_enabled")
	}
	segs := strings.Split(path, "/")
	for _, seg := range segs {
		dec, err := url.PathUnescape(seg)
		if err != nil || dec == "." || dec == ".." || strings.ContainsAny(dec, "/\\") {
			return nil, nil, "", apierr.InvalidRequest("passthrough paths must not contain . or .. segments or encoded slashes").
				WithCode("invalid_path")
		}
	}
	if segs[0] == "v1" {
		if !strings.HasSuffix(rl.BaseURL(), "/v1") {
			return nil, nil, "", apierr.UnknownRoute("provider " + p.Name() + " has no /v1 API root here; " +
				"write the path as the provider's API reference does below " + rl.BaseURL())
		}
		path = strings.Join(segs[1:], "/")
	}
	return p, rl, path, nil
}

// passthroughProvider returns the enabled provider named name (an
// instance name, or a type: its first instance), or nil.
func (s *Service) passthroughProvider(name string) providers.Provider {
	if name == "" || len(s.Passthrough.Enabled) == 0 {
		return nil
	}
	p, ok := s.Registry.Provider(name)
	if !ok {
		for _, q := range s.Registry.Providers() {
			if q.Type() == name {
				p, ok = q, true
				break
			}
		}
	}
	if !ok || !(slices.Contains(s.Passthrough.Enabled, p.Name()) || slices.Contains(s.Passthrough.Enabled, p.Type())) {
		return nil
	}
	return p
}

// quoteName quotes a client-given provider name for a message, shortened.
func quoteName(s string) string {
	if len(s) > 64 {
		s = s[:64]
	}
	return `"` + strings.ToValidUTF8(s, "") + `"`
}

// streamedBodyFailure returns why the client's body, streamed upstream by
// passthroughBody, could not be read whole: it was too long
// (http.MaxBytesError) or did not arrive in time (apierr.TimedOut); nil
// otherwise, a client that went away included.
func streamedBodyFailure(body io.Reader) error {
	cb, _ := body.(*clientBody)
	err := cb.failure()
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) || apierr.TimedOut(err) {
		return err
	}
	return nil
}

// passthroughBody returns the body to relay and its length. A JSON body is
// read whole (up to MaxBodyBytes) so that its model is recorded and
// budgets and model limits apply to it; any other body streams through,
// capped at MaxBodyBytes.
func (s *Service) passthroughBody(w http.ResponseWriter, r *http.Request, c *call) (io.Reader, int64, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, 0, nil
	}
	max := s.MaxBodyBytes
	if max > 0 && r.ContentLength > max {
		return nil, 0, tooLarge(max)
	}
	if !isJSON(r.Header.Get("Content-Type")) {
		if max > 0 {
			return &clientBody{r: http.MaxBytesReader(w, r.Body, max)}, r.ContentLength, nil
		}
		return &clientBody{r: r.Body}, r.ContentLength, nil
	}
	var src io.Reader = r.Body
	if max > 0 {
		src = io.LimitReader(r.Body, max+1)
	}
	b, err := io.ReadAll(src)
	if err != nil {
		return nil, 0, bodyError(err, max)
	}
	if max > 0 && int64(len(b)) > max {
		return nil, 0, tooLarge(max)
	}
	// A member the gateway reads (model, stream) sent twice is refused as
	// on the model endpoints: the upstream may take another one than the
	// one model limits and budgets applied to.
	if _, err := reqbody.Scan(b); err != nil {
		var se *reqbody.Error
		if errors.As(err, &se) && se.Code == "duplicate_field" {
			return nil, 0, scanError(err)
		}
	}
	if m := gjson.GetBytes(b, "model"); m.Type == gjson.String {
		// Access policies and budgets see the model as sent; what is
		// recorded (audit index, usage aggregates) is bounded: an
		// over-long model is cut and marked (catalog.RecordedModelID).
		c.model = m.Str
		rec := catalog.RecordedModelID(m.Str)
		c.info.RequestedModel, c.info.ResolvedModel = rec, rec
	}
	return bytes.NewReader(b), int64(len(b)), nil
}

// relayedHeader is the client's request header without hop-by-hop
// headers, credentials, the gateway's own headers and Accept-Encoding (the
// answer is read for its usage; its bytes pass unchanged either way).
func (s *Service) relayedHeader(in http.Header, providerAuth string) http.Header {
	h := in.Clone()
	removeHopByHop(h)
	for _, k := range clientCredentials {
		h.Del(k)
	}
	h.Del(providerAuth)
	for _, k := range s.Passthrough.GatewayHeaders {
		h.Del(k)
	}
	h.Del("Accept-Encoding")
	h.Del("Content-Length")
	for k := range h {
		if strings.HasPrefix(k, "X-Modelgate-") {
			delete(h, k)
		}
	}
	return h
}

// removeHopByHop deletes the hop-by-hop headers of h and those its
// Connection header names.
func removeHopByHop(h http.Header) {
	for _, v := range h.Values("Connection") {
		for _, name := range strings.Split(v, ",") {
			if name = textproto.TrimString(name); name != "" {
				h.Del(name)
			}
		}
	}
	for _, k := range hopByHop {
		h.Del(k)
	}
}

// isJSON reports whether a Content-Type is JSON (application/json or a
// +json type).
func isJSON(ct string) bool {
	ct, _, _ = strings.Cut(strings.ToLower(ct), ";")
	ct = strings.TrimSpace(ct)
	return ct == "application/json" || strings.HasSuffix(ct, "+json")
}

// copyFlushing relays an answer that is not read whole (audio, files) as
// it arrives, flushing after every read, and reports whether the whole of
// it reached the client. When the upstream breaks off (a reset, a cut,
// the idle timeout) the client's connection is aborted (abortAnswer), so
// that it does not take what it got for the whole answer.
func (s *Service) copyFlushing(w http.ResponseWriter, r *http.Request, body io.Reader, c *call) (complete bool) {
	c.info.AnswerOpen = true
	rc := http.NewResponseController(w)
	buf := make([]byte, 32<<10)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return false
			}
			if ferr := rc.Flush(); ferr != nil && !errors.Is(ferr, http.ErrNotSupported) {
				return false // the client is gone; the answer stays open
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				c.info.AnswerOpen = false
				return true
			}
			if r.Context().Err() != nil {
				return false // the client is gone; nobody to tell
			}
			c.answerFailed(readError(c.provider.Name(), err))
			s.logger().Warn("relayed answer broke off", zap.String("provider", c.provider.Name()), zap.Error(err))
			abortAnswer()
		}
	}
}
