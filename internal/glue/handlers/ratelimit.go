package handlers

import (
	"bufio"
	"net"
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/domain/sessions"
	"github.com/modelgate/modelgate/internal/gateway/proxy"
	"github.com/modelgate/modelgate/internal/glue/caddymodule"
	"github.com/modelgate/modelgate/internal/glue/reqmetrics"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
	"github.com/modelgate/modelgate/internal/request/userpath"
)

func init() {
	caddy.RegisterModule(RateLimit{})
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*RateLimit)(nil)
	_ caddyhttp.MiddlewareHandler = (*RateLimit)(nil)
)

// RateLimit (modelgate_rate_limit) enforces the user-path rate-limit rules
// on the model endpoints, for the user path the auth stage settled on. How
// a request counts is its route's RateLimit in the route table (package
// routes):
//
//   - A breach answers 429 rate_limit_error, code rate_limit_exceeded,
//     with Retry-After and the x-ratelimit-* headers; nothing is counted.
//   - An admitted request carries the x-ratelimit-* headers of the most
//     constrained matching rule, holds its concurrency slots until the
//     answer is complete (streams included; also on disconnects and
//     panics) and is charged its total tokens then.
//   - Routes that count nothing (GET /v1/usage, /v1/models, /health,
//     /admin/*, count_tokens, unknown routes) and requests the response
//     cache answered pass uncounted; a batch submission counts one request
//     and holds no slot.
//
// On the budgeted routes the stage also checks the spend budgets, before
// the user-path rules. A batch submission (and any budgeted route whose
// model the proxy does not resolve) a spent budget covers is refused here;
// on the model endpoints the verdict is recorded and the proxy refuses
// once the model is resolved, unless it has no price. Either way a request
// a budget refuses counts against no rate limit: see admitBudget.
//
// Before all that, a model request whose session reached a session limit
// (package sessions) is refused with 429 session_limit_exceeded; an
// admitted one counts against its session once answered.
//
// Provider and model rules are enforced by modelgate_provider_proxy,
// against the target that actually serves the request.
type RateLimit struct {
	app *caddymodule.App
}

// CaddyModule returns the Caddy module information.
func (RateLimit) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.modelgate_rate_limit",
		New: func() caddy.Module { return new(RateLimit) },
	}
}

// Provision connects the handler to the modelgate app.
func (h *RateLimit) Provision(ctx caddy.Context) (err error) {
	h.app, err = loadApp(ctx)
	return err
}

// ServeHTTP enforces the user-path rules and passes the request on.
func (h *RateLimit) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	rt, found := reqinfo.Route(r)
	kind := classify(rt, found)
	if kind == routes.CountNone {
		return next.ServeHTTP(w, r)
	}
	gw, err := started(h.app, r)
	if err != nil {
		apierr.WriteFor(w, r, notReady())
		return nil
	}
	info, r := requestInfo(r)
	w, done, ok := admitSession(gw.Sessions, kind, w, r, info)
	if !ok {
		return nil
	}
	if done != nil {
		// Deferred so that the session counts the request however it
		// ends.
		defer done()
	}
	return serveLimited(gw.Budgets, budgetCheckFor(rt), gw.Limiter, kind, w, r, next)
}

// serveLimited serves r with next under the budgets of bs as check says
// (bs nil: budgets are off), then under the user-path rate limits of eng.
// A request a budget refuses counts against no rate limit.
func serveLimited(bs *budgets.Service, check budgetCheck, eng *limits.Engine, kind routes.Counting, w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	pre := userPathAdmission{eng: eng, kind: kind}
	if bs != nil && check != budgetOff {
		var info *reqinfo.Info
		info, r = requestInfo(r)
		path, ok := admitBudget(bs, check, &pre, w, r, info)
		if !ok {
			return nil
		}
		pre.end = budgetEnd{bs: bs, path: path, info: info}
		// Deferred so that the spend is charged however the request ends:
		// normally, on a client disconnect (a stream cut short is charged
		// for what it used), or panicking; unless limitUserPath settled
		// it with its release.
		defer pre.end.finish()
	}
	return limitUserPath(eng, kind, &pre, w, r, next)
}

// userPathAdmission is a user-path admission that the budget stage may
// make before limitUserPath runs, together with the request's budget
// reservation, so that both are one round trip to a shared backend (see
// reserveBudget); and the budgeted request's end, which the admission's
// release may carry along.
type userPathAdmission struct {
	eng  *limits.Engine
	kind routes.Counting
	made bool
	adm  limits.Admission
	rej  *limits.Rejection
	// end is the budgeted request's end; its bs is nil when the request
	// is not budgeted.
	end budgetEnd
}

// admitAlong admits a request on path under the user-path rules, carrying
// along (made in the same round trip when the rules ask the shared
// backend), and keeps the verdict for limitUserPath. It does nothing for
// the requests limitUserPath does not admit through AdmitUserPath.
func (p *userPathAdmission) admitAlong(path string, along *limits.Along) {
	if p == nil || p.eng == nil || p.kind != routes.CountRequestAndSlot {
		return
	}
	p.adm, p.rej = p.eng.AdmitUserPathAlong(path, along)
	p.made = true
}

// cancel gives back an admission admitAlong made: the budget refused the
// request, which then counts against no rate limit.
func (p *userPathAdmission) cancel() {
	if p != nil && p.made && p.rej == nil {
		// A copy, so that the admission does not leave the stack on the
		// paths that admit.
		adm := p.adm
		adm.Cancel()
		p.made, p.adm, p.rej = false, limits.Admission{}, nil
	}
}

// limitUserPath admits r under eng's user-path rules (nil: rate limiting
// is off), or takes the verdict pre holds, and serves it with next,
// releasing the admission when next returns, which for a stream is when
// the stream has ended.
func limitUserPath(eng *limits.Engine, kind routes.Counting, pre *userPathAdmission, w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if eng == nil || kind == routes.CountNone {
		return next.ServeHTTP(w, r)
	}
	info, r := requestInfo(r)
	if info.CacheHit {
		return next.ServeHTTP(w, r)
	}
	path := info.UserPath
	if path == "" {
		path = userpath.Root
	}
	if kind == routes.CountRequest {
		hdr, rej := eng.AdmitBatch(path)
		if rej != nil {
			refuse(w, r, rej)
			return nil
		}
		hdr.Apply(w.Header())
		return next.ServeHTTP(w, r)
	}
	adm, rej := pre.adm, pre.rej
	if !pre.made {
		adm, rej = eng.AdmitUserPath(path)
	}
	if rej != nil {
		refuse(w, r, rej)
		return nil
	}
	// Deferred so that the slots are released and the tokens charged
	// however next ends: normally, on a client disconnect, or panicking.
	// A request a saturated provider or model, or a spent budget, refused
	// in the proxy reached no provider and is given back.
	defer func() {
		if info.RefusedBeforeUpstream {
			adm.Cancel()
			return
		}
		if pre.end.bs == nil {
			adm.Done(totalTokens(info))
			return
		}
		pre.end.settleAlong(func(along *limits.Along) { adm.DoneAlong(totalTokens(info), along) })
	}()
	// Headers go on before next writes the status line.
	adm.Headers().Apply(w.Header())
	return next.ServeHTTP(w, r)
}

// refuse answers a user-path breach: 429 rate_limit_error with
// Retry-After and the x-ratelimit-* headers, in the envelope the route's
// clients expect (Anthropic's on /v1/messages); or 503, code
// rate_limits_unavailable, when the limits could not be checked
// (fail-closed without the shared counter store).
func refuse(w http.ResponseWriter, r *http.Request, rej *limits.Rejection) {
	if rej.Unavailable {
		// Fail-closed without the shared counter store: 503, not 429.
		e := apierr.New(http.StatusServiceUnavailable, apierr.TypeProvider, rej.Reason).WithCode("rate_limits_unavailable")
		e.RetryAfter = int(rej.RetryAfterSeconds())
		apierr.WriteFor(w, r, e)
		return
	}
	rej.Headers.Apply(w.Header())
	if info := reqinfo.From(r.Context()); info != nil {
		info.RateLimitRule = proxy.RuleOf(rej.Rule)
	}
	e := apierr.New(http.StatusTooManyRequests, apierr.TypeRateLimit, rej.Reason).WithCode("rate_limit_exceeded")
	e.RetryAfter = int(rej.RetryAfterSeconds())
	apierr.WriteFor(w, r, e)
}

// totalTokens is the request's total token usage as recorded by the proxy
// (0 when none is known).
func totalTokens(info *reqinfo.Info) int64 {
	u, ok := info.Usage()
	if !ok {
		return 0
	}
	return u.TotalTokens
}

// classify is how the user-path rate limits count a request for rt: its
// RateLimit in the route table. A path no route names, or a method its
// path does not take (ok false), counts nothing: the proxy answers 404 or
// 405.
func classify(rt *routes.Route, ok bool) routes.Counting {
	if !ok {
		return routes.CountNone
	}
	return rt.RateLimit
}

// CodeSessionLimitExceeded is the error code of a request refused because
// its session reached a session limit.
const CodeSessionLimitExceeded = reqmetrics.CodeSessionLimited

// maxSessionCapture is the most of an answer kept to find the tool call
// it asks for; a longer answer repeats nothing.
const maxSessionCapture = 1 << 20

// admitSession admits r under the session limits of g (nil: none) and
// returns the writer to serve it with and a func to call once the answer
// is done; ok is false when the session reached a limit and r was
// answered 429 session_limit_exceeded. Only model requests (counted
// with a slot) are guarded; the session is the one the audit stage
// detected, detected here when no audit stage ran.
func admitSession(g *sessions.Guard, kind routes.Counting, w http.ResponseWriter, r *http.Request, info *reqinfo.Info) (http.ResponseWriter, func(), bool) {
	if g == nil || kind != routes.CountRequestAndSlot || info.CacheHit || !g.Active() {
		return w, nil, true
	}
	if info.SessionID == "" {
		in := audit.SessionInput{UserPath: info.UserPath, Header: r.Header}
		if b := info.Body(); b != nil && b.ScanErr == nil {
			in.Fields = &b.Fields
		}
		info.SessionID = audit.DetectSession(in)
	}
	adm, rej := g.Admit(info.UserPath, info.SessionID)
	if rej != nil {
		info.SessionRule = &reqinfo.Rule{Subject: rej.Scope, Period: rej.Limit}
		e := apierr.New(http.StatusTooManyRequests, apierr.TypeRateLimit, rej.Error()).WithCode(CodeSessionLimitExceeded)
		e.RetryAfter = int(rej.RetryAfter)
		apierr.WriteFor(w, r, e)
		return w, nil, false
	}
	if adm == nil {
		return w, nil, true
	}
	sw := &sessionWriter{ResponseWriter: w}
	shape := routes.ShapeChat
	if rt, ok := reqinfo.Route(r); ok && rt != nil {
		shape = rt.Shape
	}
	return sw, func() { adm.Done(sessionOutcome(info, sw, shape)) }, true
}

// sessionOutcome is how an admitted request went, for its session: a
// request that reached no provider is uncounted; otherwise its cost and
// the signature of its answer (the error, or the tool calls it asks for).
func sessionOutcome(info *reqinfo.Info, sw *sessionWriter, shape routes.Shape) sessions.Outcome {
	called := false
	for _, at := range info.Attempts() {
		called = called || !at.NotCalled
	}
	if !called || info.CacheHit || info.RefusedBeforeUpstream {
		return sessions.Outcome{Uncounted: true}
	}
	var o sessions.Outcome
	if c, ok := info.Cost(); ok {
		o.Cost = c.Total
	}
	switch {
	case info.ErrorStatus != 0:
		o.Signature = sessions.ErrorSignature(info.ErrorStatus, info.ErrorCode, info.ErrorMessage)
	case sw.status >= 400:
		e := gjson.GetBytes(sw.buf, "error")
		code := e.Get("code").String()
		if code == "" {
			code = e.Get("type").String()
		}
		o.Signature = sessions.ErrorSignature(sw.status, code, e.Get("message").String())
	case sw.over:
	case proxy.IsEventStream(sw.Header()):
		o.Signature = sessions.ToolCallSignature(audit.StreamedBody(streamKind(shape), sw.buf))
	default:
		o.Signature = sessions.ToolCallSignature(sw.buf)
	}
	return o
}

// sessionWriter passes an answer on, keeping its status and up to
// maxSessionCapture bytes of its body.
type sessionWriter struct {
	http.ResponseWriter
	status int
	buf    []byte
	over   bool
}

// WriteHeader records the status and passes it on.
func (w *sessionWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write keeps p while the capture has room and passes it on.
func (w *sessionWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if !w.over {
		if len(w.buf)+len(p) > maxSessionCapture {
			w.over, w.buf = true, nil
		} else {
			w.buf = append(w.buf, p...)
		}
	}
	return w.ResponseWriter.Write(p)
}

// Flush sends buffered data to the client.
func (w *sessionWriter) Flush() { _ = w.FlushError() }

// FlushError sends buffered data to the client and reports a failure.
func (w *sessionWriter) FlushError() error { return proxy.Flush(w.ResponseWriter) }

// Hijack hands over the connection.
func (w *sessionWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// Unwrap returns the wrapped writer, for http.ResponseController.
func (w *sessionWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
