package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate/responses"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// call is one model request on its way upstream.
type call struct {
	in   ingress
	ep   providers.Endpoint // upstream endpoint
	body []byte             // upstream body, unless parts is set
	// parts, when set, are the upstream body in consecutive pieces, sent
	// without joining them (providers.PartsSender): a member added to a
	// body shared with the audit, or a translated body whose long strings
	// stay in the client's body.
	parts     [][]byte
	provider  providers.Provider
	model     string // upstream model id
	stream    bool
	wantUsage bool // chat clients: the client asked for the usage chunk itself
	// askedUsage: the gateway made a chat stream upstream ask for its
	// usage chunk on the client's behalf, so the upstream's "usage":null
	// on every chunk is the gateway's doing, not the client's.
	askedUsage bool
	// raw: a /p/ passthrough call, whose answer is the provider's own API:
	// the gateway adds nothing to it (no error event) and reads no usage
	// from its streams.
	raw  bool
	info *reqinfo.Info
	tr   *translation // nil: passthrough

	anthropicTokens translate.MessagesUsage // usage of a native Anthropic stream so far
	// svc is the service the call serves, which logs and counts faulty
	// upstream usage (setUsage); nil logs and counts nothing.
	svc *Service
	// usageFault is the last fault of the upstream's usage reported
	// (setUsage); usageRefused: the answer's usage was refused.
	usageFault   catalog.UsageFault
	usageRefused bool

	limits   UpstreamLimits // how the provider's answer is read
	upstream upstreamBody   // the answer's body under limits
	answer   bufferedAnswer // a non-streamed answer read whole for translation
	replay   replayBody     // a stream whose head was held for failover (holdStreamHead)
	failed   *apierr.Error  // the call's failure as the gateway reports it, for the attempt record
	slowdown float64        // the answer is delayed by this factor of the upstream's time
	// failedHeader and failedBody are the upstream's error answer, for
	// the attempt record (keepFailedAnswer).
	failedHeader http.Header
	failedBody   []byte
	// characters is what a speech request is billed by: the characters
	// of its input.
	characters int64
	// started is when the call's upstream request was sent.
	started time.Time
	// revisions are the changes adapting the body made that the client
	// did not ask for; newCall records them on the request.
	revisions []translate.Revision
	// keep stores a Responses answer; nil stores nothing.
	keep *keeping
}

// clientGone is the failure of an upstream call cut short because the
// client went away.
const clientGone = "the client disconnected before the upstream answered"

// notCalled records that c's upstream was not called because of e (why,
// for the record). Unless c is the last target, it returns e for the next
// one; the last answers the client with e. A refusal of the only target
// is not an attempt; one after a failover is, so that the attempts end
// where the request did.
func (c *call) notCalled(w http.ResponseWriter, r *http.Request, e *apierr.Error, why string, last bool) error {
	if !last || len(c.info.Attempts()) > 0 {
		at := reqinfo.Attempt{Provider: c.provider.Name(), ProviderType: c.provider.Type(), Model: c.model,
			StatusCode: e.StatusCode, StartedAt: time.Now()}
		failedWith(&at, e)
		at.Err = "not called: " + why
		at.NotCalled = true
		c.info.AddAttempt(at)
	}
	if !last {
		return e
	}
	c.info.RefusedBeforeUpstream = true
	apierr.WriteFor(w, r, e)
	return nil
}

// recordAttempt records one call of c's provider, begun at started, on
// the request's info: the upstream's status (0 when none answered) and
// why the call failed: c.failed when set, else failure ("" when it did
// not fail).
func (c *call) recordAttempt(started time.Time, status int, failure string) {
	at := reqinfo.Attempt{Provider: c.provider.Name(), ProviderType: c.provider.Type(), Model: c.model, StatusCode: status,
		StartedAt: started, Duration: time.Since(started), Err: failure}
	if a, ok := c.provider.(providers.Addressed); ok {
		at.ServerAddress = a.ServerAddress()
	}
	if c.failed != nil {
		failedWith(&at, c.failed)
	}
	at.ResponseHeader, at.ResponseBody = c.failedHeader, c.failedBody
	c.failedHeader, c.failedBody = nil, nil
	c.info.AddAttempt(at)
}

// sendFailed records c's upstream call, begun at started, that failed
// with err before any answer, and returns the error to answer the client
// with, or nil when the client went away (nobody to answer). The attempt
// and the client get the gateway's fixed words; err's detail goes to the
// log only.
func (s *Service) sendFailed(r *http.Request, c *call, started time.Time, err error) *apierr.Error {
	if r.Context().Err() != nil {
		c.recordAttempt(started, 0, clientGone)
		return nil
	}
	s.logger().Warn("upstream request failed", zap.String("provider", c.provider.Name()), zap.Error(err))
	c.failed = transportError(c.provider.Name(), err)
	c.recordAttempt(started, 0, "")
	return c.failed
}

// answerFailed records e, the failure of c's upstream answer once the
// client's answer had begun (a stream the upstream broke off, with the
// status line already sent), as the call's failure for its attempt record
// and as the request's outcome (apierr.Record): the audit entry carries
// e's status and code rather than the status the client got.
func (c *call) answerFailed(e *apierr.Error) {
	c.failed = e
	apierr.Record(c.info, e)
}

// failedWith records e, the gateway error an upstream call amounts to, as
// the failure of its attempt at.
func failedWith(at *reqinfo.Attempt, e *apierr.Error) {
	at.Err, at.ErrType, at.ErrCode = e.Message, e.Type, ""
	if e.Code != nil {
		at.ErrCode = *e.Code
	}
}

func (s *Service) chatCompletions(w http.ResponseWriter, r *http.Request) {
	s.forward(w, r, ingressChat)
}

func (s *Service) embeddings(w http.ResponseWriter, r *http.Request) {
	s.forward(w, r, ingressEmbeddings)
}

func (s *Service) messages(w http.ResponseWriter, r *http.Request) {
	s.forward(w, r, ingressMessages)
}

func (s *Service) responses(w http.ResponseWriter, r *http.Request) {
	s.forward(w, r, ingressResponses)
}

func (s *Service) countTokens(w http.ResponseWriter, r *http.Request) {
	s.forward(w, r, ingressCountTokens)
}

// forward serves a JSON model request by its plan (Plan; made here when
// no earlier stage made it): it answers a request the plan could not
// resolve with the plan's refusal, adapts the body to the target (as
// sent, or translated onto the provider's shape) and relays the
// upstream's answer. When the target fails in a way failover covers
// (upstream 5xx or 429, timeout, unreachable, a redirect, a saturated
// rule, a spent budget on a priced model, a stream whose first
// meaningful event is such an error: holdStreamHead) and the plan names
// further targets, the next one is tried at once; nothing has reached
// the client by then.
func (s *Service) forward(w http.ResponseWriter, r *http.Request, in ingress) {
	info := reqinfo.From(r.Context())
	if info == nil {
		info = reqinfo.New()
		r = r.WithContext(reqinfo.With(r.Context(), info))
	}
	p := info.Plan()
	if p == nil {
		p = s.makePlan(r, info, in, true)
	}
	if p.Err != nil {
		apierr.WriteFor(w, r, p.Err)
		return
	}
	t, ok := s.planned(p)
	if !ok {
		apierr.WriteFor(w, r, apierr.New(http.StatusServiceUnavailable, apierr.TypeProvider,
			"provider "+p.Target.Provider+" is no longer configured"))
		return
	}
	b := info.Body()
	body := b.Bytes
	if !b.Editable {
		// Shared with the stages that read it (the audit records it):
		// editing it in place (appendMember) copies it.
		body = slices.Clip(body)
	}
	if len(p.Fallbacks) > 0 {
		// The body may be tried on several targets: each gets its own copy.
		body = bytes.Clone(body)
	}
	req := request{in: in, body: b.Bytes, fields: requestFields{b.Fields}, requested: p.Requested, info: info}
	c, err := s.newCall(&req, body, t)
	if err != nil {
		apierr.WriteFor(w, r, err)
		return
	}
	if c.ep == "" { // answered locally (token estimate)
		writeLocal(w, c)
		return
	}
	if refuseOverBudget(w, r, c) {
		return // a spent budget covers the caller and the model is priced; 429 written
	}
	if len(p.Fallbacks) == 0 {
		s.try(w, r, c, true)
		return
	}
	plan := func(sub *request) (*call, error) {
		t, err := s.route(r.Context(), sub.info, sub.requested)
		if err != nil {
			return nil, err
		}
		return s.newCall(sub, bytes.Clone(req.body), t)
	}
	s.failover(w, r, &req, c, p.Fallbacks, plan, func(c *call, last bool) error { return s.try(w, r, c, last) })
}

// try makes one upstream call for c and relays its answer. When last is
// false and the call fails in a way failover covers, before anything was
// written, it writes nothing and returns the error the client would get;
// otherwise it answers the client and returns nil.
func (s *Service) try(w http.ResponseWriter, r *http.Request, c *call, last bool) (failure error) {
	// Speech is relayed as it arrives, so that a client plays the audio
	// while the rest is generated: an event stream (stream_format sse)
	// event by event, audio bytes read by read.
	speech := c.ep == providers.EndpointSpeech && c.tr == nil
	var streamed, relayed bool
	return s.exchange(w, r, c, last, c.send, func(resp *http.Response) bool {
		streamed = (c.stream || speech) && IsEventStream(resp.Header)
		relayed = speech && !streamed
		return streamed || relayed
	}, func(w http.ResponseWriter, resp *http.Response) {
		s.relayAnswer(w, r, resp, c, speech, streamed, relayed)
	})
}

// exchange makes one upstream call for c with send, unless a spent budget
// or a saturated provider or model rule keeps it from being made, and
// hands a good answer to relay with its headers set and its pace kept.
// live reports, from the answer's headers, whether it is relayed as it
// arrives (a stream), which decides how its body is read. Unless c is the
// last target, a model stream's head is held until its first content
// (holdStreamHead), so that one that begins with an error fails over.
// It returns as try does.
func (s *Service) exchange(w http.ResponseWriter, r *http.Request, c *call, last bool,
	send func(context.Context) (*http.Response, error), live func(*http.Response) bool,
	relay func(http.ResponseWriter, *http.Response)) error {
	if e := overBudget(c); e != nil {
		// A failover target whose model is priced, under a spent budget.
		return c.notCalled(w, r, apierr.From(e), "budget exceeded", last)
	}
	adm, rej := s.admit(c)
	if rej != nil {
		// A provider or model rule is saturated; the upstream is never
		// called.
		return c.notCalled(w, r, targetRejected(c.info, c.provider.Name(), rej), rej.Reason, last)
	}
	// Released when the answer is complete (streams included), also on
	// disconnects, aborted streams and panics, charging the tokens this
	// provider used.
	defer func() { adm.Done(usedTokens(c.info)) }()
	// The upstream call has its own context so that a silent upstream can
	// be cancelled (upstreamBody); it ends with the client's.
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	c.limits = s.Upstreams.limitsFor(c.provider.Name())
	started := time.Now()
	sendCtx := context.Context(ctx)
	if s.PropagateTrace {
		sendCtx = providers.WithTracePropagation(ctx)
	}
	resp, err := send(sendCtx)
	c.started = started
	if err != nil {
		e := s.sendFailed(r, c, started, err)
		if e == nil {
			return nil // the client went away; nobody to answer
		}
		if !last {
			return e
		}
		apierr.WriteFor(w, r, e)
		return nil
	}
	streamed := live(resp)
	c.upstream.watch(ctx, cancel, resp.Body, c.limits, streamed, started)
	resp.Body = &c.upstream
	s.setServerTiming(w, c, false)
	defer resp.Body.Close()
	failure := ""
	defer func() {
		c.recordAttempt(started, resp.StatusCode, failure)
	}()
	if e := s.answerError(c, resp); e != nil {
		c.failed = e
		if !last && failsOver(resp.StatusCode) {
			return e
		}
		apierr.WriteFor(w, r, e)
		return nil
	}
	if !last && streamed && c.stream && !c.raw {
		// A stream that fails before its first content fails over as an
		// error answer does; its head waits until that is known.
		switch s.holdStreamHead(r, c, resp) {
		case headFailed:
			return c.failed
		case headClientGone:
			failure = clientGone
			return nil
		}
	}
	copyResponseHeaders(w.Header(), resp.Header, s.Upstreams)
	w.Header().Set("X-Modelgate-Provider", c.provider.Name())
	announceDroppedTools(w.Header(), c.revisions)
	w, release := c.paced(w, r, started)
	defer release()
	relay(w, resp)
	return nil
}

// relayAnswer relays the good answer resp of c's upstream: translated or
// as sent, a stream event by event, relayed speech read by read, anything
// else read whole.
func (s *Service) relayAnswer(w http.ResponseWriter, r *http.Request, resp *http.Response, c *call, speech, streamed, relayed bool) {
	switch {
	case c.tr != nil && streamed:
		relayTranslatedStream(w, resp, c)
	case c.tr != nil:
		body, ok := s.readAnswer(w, r, resp, c)
		if !ok {
			return
		}
		c.answer = bufferedAnswer{b: body}
		resp.Body = &c.answer
		relayTranslatedBody(w, r, resp, c)
	case streamed:
		if speech {
			c.info.Stream = true
		}
		s.relayStream(w, r, resp, c)
		if speech && !c.info.AnswerOpen && c.failed == nil {
			recordUnits(c, nil)
		}
	case relayed:
		w.Header().Del("Content-Length")
		w.WriteHeader(resp.StatusCode)
		if s.copyFlushing(w, r, resp.Body, c) {
			recordUnits(c, nil)
		}
	default:
		if body, ok := s.readAnswer(w, r, resp, c); ok {
			relayBody(w, resp, c, body)
			c.keep.keepNative(body)
		}
	}
}

// failsOver reports whether an upstream answer of status moves a request
// on to its failover targets: 5xx and 429, and a redirect (answered 502
// upstream_redirect: the target cannot serve the call where it is
// configured, as when it is unreachable), never another 4xx.
func failsOver(status int) bool {
	return status >= 500 || status == http.StatusTooManyRequests || providers.IsRedirect(status)
}

// request is what the proxy reads from the client once, for every target
// a request may be tried on.
type request struct {
	in        ingress
	body      []byte // the client's body; never modified once failover is possible
	fields    requestFields
	requested string
	info      *reqinfo.Info
}

// newCall plans the call of req on target t with body (req.body or a
// copy of it, which planning may modify) and records the target on the
// request's info.
func (s *Service) newCall(req *request, body []byte, t routed) (*call, error) {
	var err error
	p, model := t.provider, t.model
	if model != req.requested {
		if body, err = sjson.SetBytes(body, "model", model); err != nil {
			return nil, apierr.InvalidRequest("could not rewrite model: " + err.Error())
		}
	}
	c := &call{in: req.in, body: body, provider: p, model: model, slowdown: t.slowdown, svc: s}
	if req.in == ingressSpeech {
		c.characters = speechCharacters(req.fields.Input)
	}
	var opts gjson.Result // the client's stream_options, read once
	if req.in.streams {
		if c.stream = req.fields.streamOn(); c.stream {
			opts = req.fields.streamOptionsValue()
			c.wantUsage = opts.Get("include_usage").Bool()
		}
	}
	if req.in == ingressResponses {
		if body, c.keep, err = s.prepareResponses(req, p, body); err != nil {
			return nil, err
		}
		c.body = body
	}
	passthrough := body
	if err := s.adapt(c); err != nil {
		return nil, err
	}
	// Chat-shaped streams upstream: ask for the usage chunk. A body
	// translated into parts asks for it already (translate.ChatTarget).
	if c.stream && c.ep == providers.EndpointChat && p.StreamUsageOption() && c.parts == nil {
		if !sameBytes(c.body, passthrough) { // translated: read the new body
			opts = gjson.GetBytes(c.body, "stream_options")
		}
		_, splice := p.(providers.PartsSender)
		if c.body, c.parts, err = requestUsageChunk(c.body, opts, splice); err != nil {
			return nil, apierr.InvalidRequest("could not set stream_options: " + err.Error())
		}
		c.askedUsage = !c.wantUsage
	}
	c.info = req.info
	for _, rv := range c.revisions {
		c.info.AddRevision(reqinfo.Revision{Rewriter: rv.Rewriter, Detail: []byte(rv.Detail)})
	}
	c.info.ResolvedModel = model
	c.info.ProviderName = p.Name()
	c.info.ProviderType = p.Type()
	c.info.Stream = c.stream
	return c, nil
}

// resolve maps the requested model to its provider. While the first model
// listings are still arriving, an unknown name waits for them, up to 15 s;
// afterwards nothing waits, and no timer is set up for it.
func (s *Service) resolve(ctx context.Context, requested string) (providers.Provider, string, error) {
	select {
	case <-s.Registry.Ready():
	default:
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
	}
	return s.Registry.Resolve(ctx, requested)
}

// usageMember is the member that asks a chat stream for its usage chunk.
const usageMember = `"stream_options":{"include_usage":true}`

// requestUsageChunk makes a chat body ask for the final usage chunk.
// Without stream_options it adds the member to the object as it is,
// sparing sjson's parse and copy of a large body: in place when the body
// has room for it (body must not be used afterwards), else, when splice
// is set (the provider is a providers.PartsSender), by returning the body
// unchanged with the parts to send instead (the body up to its closing
// brace, the member, the rest), else in a copy.
func requestUsageChunk(body []byte, opts gjson.Result, splice bool) ([]byte, [][]byte, error) {
	switch {
	case opts.Get("include_usage").Bool():
		return body, nil, nil
	case !opts.Exists():
		if splice && cap(body)-len(body) < len(usageMember)+1 {
			end, sep := providers.MemberSplit(body)
			return body, [][]byte{body[:end], []byte(sep + usageMember), body[end:]}, nil
		}
		return appendMember(body, usageMember), nil, nil
	default:
		b, err := sjson.SetBytes(body, "stream_options.include_usage", true)
		return b, nil, err
	}
}

// appendMember adds member to a JSON object without parsing it. The body
// was checked to be an object whose last byte is its closing brace. It
// inserts in place when obj has spare capacity (readBody leaves some), so
// a large streamed body is not copied; obj must not be used afterwards.
func appendMember(obj []byte, member string) []byte {
	end, sep := providers.MemberSplit(obj)
	add := len(sep) + len(member)
	out := slices.Grow(obj, add)[:len(obj)+add]
	copy(out[end+add:], obj[end:]) // the closing brace and what follows it
	copy(out[end:], sep)
	copy(out[end+len(sep):], member)
	return out
}

// send calls the provider with the call's body (or parts; joined for a
// provider that cannot send them as they are).
func (c *call) send(ctx context.Context) (*http.Response, error) {
	if c.parts != nil {
		if ps, ok := c.provider.(providers.PartsSender); ok {
			return ps.DoParts(ctx, c.ep, c.model, c.parts)
		}
		return c.provider.Do(ctx, c.ep, c.model, bytes.Join(c.parts, nil))
	}
	return c.provider.Do(ctx, c.ep, c.model, c.body)
}

// sameBytes reports whether a and b are the same slice (not equal
// contents): whether planning left the client's body in place.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// readAnswer reads a whole (non-streamed) upstream answer under the
// provider's limits. When that fails it answers the client with a fixed
// message (the cause goes to the log) and reports false.
func (s *Service) readAnswer(w http.ResponseWriter, r *http.Request, resp *http.Response, c *call) ([]byte, bool) {
	var body []byte
	err := errResponseTooLarge
	if resp.ContentLength <= c.limits.MaxResponseBytes {
		body, err = readAllSized(resp.Body, sizeHint(resp.ContentLength))
	}
	if err == nil {
		s.setServerTiming(w, c, true) // the answer is whole now
		return body, true
	}
	if r.Context().Err() == nil { // else the client went away; nobody to answer
		s.answerFailed(w, r, c, err)
	}
	return nil, false
}

// answerFailed logs why reading the upstream answer failed, records it on
// the attempt and sends the client the fixed error for it.
func (s *Service) answerFailed(w http.ResponseWriter, r *http.Request, c *call, err error) {
	e := readError(c.provider.Name(), err)
	c.failed = e
	s.logger().Warn("reading the upstream answer failed", zap.String("provider", c.provider.Name()),
		zap.String("code", *e.Code), zap.Int64("max_response_bytes", c.limits.MaxResponseBytes), zap.Error(err))
	apierr.WriteFor(w, r, e)
}

// relayBody sends a whole (non-streamed) upstream answer and records its
// usage.
func relayBody(w http.ResponseWriter, resp *http.Response, c *call, body []byte) {
	if u, ok := bodyUsage(c.ep, body); ok {
		c.setUsage(u)
	}
	c.noteBodyCost(body)
	recordUnits(c, body)
	w.Header().Del("Content-Length")
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(body)
}

func sizeHint(n int64) int {
	if n <= 0 || n > 64<<20 {
		return 8192
	}
	return int(n)
}

// passedHeaders are the upstream response headers a client gets.
var passedHeaders = []string{"Content-Type", "X-Request-Id", "Request-Id", "Openai-Processing-Ms", "Openai-Version"}

// copyResponseHeaders copies the passedHeaders of src, an upstream
// answer's headers, to dst with every provider credential of u removed
// from their values.
func copyResponseHeaders(dst, src http.Header, u *Upstreams) {
	for _, k := range passedHeaders {
		if v := src.Values(k); len(v) > 0 {
			dst[k] = u.redactValues(v)
		}
	}
}

// IsEventStream reports whether h, a response's headers, declares a
// server-sent-event stream. Media types compare case-insensitively.
func IsEventStream(h http.Header) bool {
	const sse = "text/event-stream"
	ct := h.Get("Content-Type")
	return len(ct) >= len(sse) && strings.EqualFold(ct[:len(sse)], sse)
}

// DroppedToolsHeader is the response header that names, comma-separated,
// the hosted tools the gateway left out of a request because its target
// cannot run them.
const DroppedToolsHeader = "X-Modelgate-Dropped-Tools"

// announceDroppedTools sets DroppedToolsHeader when revisions left tools
// out.
func announceDroppedTools(h http.Header, revisions []translate.Revision) {
	for _, rv := range revisions {
		if rv.Rewriter != responses.DroppedToolsRewriter {
			continue
		}
		var d struct {
			Dropped []string `json:"dropped"`
		}
		if json.Unmarshal([]byte(rv.Detail), &d) == nil && len(d.Dropped) > 0 {
			h.Set(DroppedToolsHeader, strings.Join(d.Dropped, ", "))
		}
	}
}
