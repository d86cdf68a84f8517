package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/domain/keys"
	"github.com/modelgate/modelgate/internal/glue/caddymodule"
	"github.com/modelgate/modelgate/internal/glue/reqmetrics"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqbody"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
)

func init() {
	caddy.RegisterModule(Audit{})
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*Audit)(nil)
	_ caddyhttp.MiddlewareHandler = (*Audit)(nil)
)

// StatusClientClosed is the status recorded for a request whose client
// went away before the answer was complete; nothing is sent with it.
const StatusClientClosed = 499

// CodeClientDisconnected is the error code recorded for such a request.
const CodeClientDisconnected = "client_disconnected"

// CodeAnswerAborted is the error code recorded, with status 500, for a
// request whose answer a handler aborted (http.ErrAbortHandler) without
// recording why. The gateway's own aborts record why: a stream the
// upstream broke off is 502 upstream_read_failed.
const CodeAnswerAborted = "answer_aborted"

// CodeInternalError is the error code recorded, with status 500, for a
// request whose handling panicked.
const CodeInternalError = "internal_error"

// Audit (modelgate_audit) records every request to an audited route (the
// model endpoints, passthrough, realtime and batch calls) whatever its
// outcome: one audit entry, announced to live viewers when the request
// starts, and completed once the answer has been fully written, streams
// included, or has ended otherwise (a client that left, a panic, a
// stream aborted because the upstream broke it off); and one usage
// record for each request a provider answered (or began to answer and
// reported usage for). A request whose body does not arrive in time is
// answered here, 408 request_timeout (see requestTimedOut).
// Before passing the request on it detects the request's session, so that
// later stages see it. Requests the auth stage refuses are recorded the
// same way (see Auth). The records go to storage through its queue: the
// request never waits for a disk write.
type Audit struct {
	app *caddymodule.App
}

// CaddyModule returns the Caddy module information.
func (Audit) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.modelgate_audit", New: func() caddy.Module { return new(Audit) }}
}

// Provision connects the handler to the modelgate app.
func (h *Audit) Provision(ctx caddy.Context) (err error) {
	h.app, err = loadApp(ctx)
	return err
}

// ServeHTTP records the request around the rest of the chain.
func (h *Audit) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	return audited(h.app, w, r, next.ServeHTTP, true)
}

// audited runs serve for r and, when r's route is audited and auditing is
// on, records the request and its answer. admitted reports whether serve
// is the rest of the chain for an authenticated caller, rather than a
// refusal.
func audited(app *caddymodule.App, w http.ResponseWriter, r *http.Request, serve func(http.ResponseWriter, *http.Request) error, admitted bool) error {
	rt, ok := reqinfo.Route(r)
	if !ok {
		rt = routes.AuditedUnmatched(rt, routes.Path(r))
	}
	if rt == nil || !rt.Audited || app == nil {
		return serve(w, r)
	}
	gw, err := started(app, r)
	if err != nil {
		return serve(w, r)
	}
	return auditServe(gw.Auditing, gw.Metrics, rt, w, r, serve, admitted && ok)
}

// auditServe runs serve for r, a request to the audited route rt, and
// records it with au (nil: nothing is recorded) and in the metrics of mx
// (nil: none). served reports whether rt will serve r (an authenticated
// caller, a method the route takes), so that a model request's body is
// worth reading whole (see newAuditRequest).
func auditServe(au *caddymodule.Auditing, mx *reqmetrics.Observer, rt *routes.Route, w http.ResponseWriter, r *http.Request, serve func(http.ResponseWriter, *http.Request) error, served bool) (err error) {
	if au == nil {
		if mx == nil {
			return serve(w, r)
		}
		return observeServe(mx, rt, w, r, serve)
	}
	info, r := requestInfo(r)
	rec := newAuditRequest(au, rt, info, r, served)
	rec.mx = mx
	if apierr.TimedOut(rec.readErr) {
		// The body did not arrive in time: nothing can serve the request.
		serve = requestTimedOut
	}
	aw := &auditWriter{ResponseWriter: w, done: r.Context().Done(), info: info, capture: au.Entries && au.Bodies, max: au.MaxBodyBytes}
	// Deferred, so that the entry is completed however serve ends: also
	// when it panics, as an aborted stream does (http.ErrAbortHandler).
	// The panic then goes on, so that net/http still aborts the
	// connection.
	defer func() {
		p := recover()
		rec.finish(aw, r, err, p)
		if p != nil {
			panic(p)
		}
	}()
	return serve(aw, r)
}

// observeServe runs serve for r, a request to the audited route rt while
// auditing is off, and records it in the metrics of mx only: how it ended
// is found the same way as for an audited request (see outcome).
func observeServe(mx *reqmetrics.Observer, rt *routes.Route, w http.ResponseWriter, r *http.Request, serve func(http.ResponseWriter, *http.Request) error) (err error) {
	info, r := requestInfo(r)
	aw := &auditWriter{ResponseWriter: w, done: r.Context().Done(), info: info}
	defer func() {
		p := recover()
		end := time.Now()
		if p != nil && info.ErrorStatus == 0 {
			apierr.Record(info, panicError(p))
		}
		status, _, code, _ := outcome(aw, r, err, info)
		mx.Observe(rt.Shape, info, reqmetrics.Outcome{Status: status, Code: metricsCode(status, code), End: end})
		traceRequest(r.Context(), rt.Shape, info, status, metricsCode(status, code), nil)
		if p != nil {
			panic(p)
		}
	}()
	return serve(aw, r)
}

// metricsCode is the error code a request that ended with status and the
// gateway error code counts under in the metrics: code, or for an error
// status without one (an upstream's error relayed as it is) the error
// type of that status; "" for a success.
func metricsCode(status int, code string) string {
	if code == "" && status >= 400 {
		return apierr.TypeForStatus(status)
	}
	return code
}

// auditRequest is the recording of one request in progress.
type auditRequest struct {
	au *caddymodule.Auditing
	// mx observes the finished request in the metrics; nil when they are
	// off.
	mx    *reqmetrics.Observer
	shape routes.Shape
	info  *reqinfo.Info
	entry *audit.Entry
	// body is the request body as read (up to the body cap), tooBig when
	// it was longer.
	body   []byte
	tooBig bool
	bodyCT string
	bodyN  int64
	// readErr is the error reading the body met, if any.
	readErr error
}

// newAuditRequest reads the request body (up to the recording cap, handing
// the whole body on to the next stage), detects the session and announces
// the request.
func newAuditRequest(au *caddymodule.Auditing, rt *routes.Route, info *reqinfo.Info, r *http.Request, served bool) *auditRequest {
	a := &auditRequest{au: au, shape: rt.Shape, info: info, bodyCT: r.Header.Get("Content-Type"), bodyN: r.ContentLength}
	if r.Body != nil && r.Body != http.NoBody && textual(a.bodyCT) {
		// A model request the route will serve has its body read whole,
		// also when it is too big to record: its session id is in it, and
		// the proxy takes it from here. Only one of a declared length
		// within the gateway's cap: the proxy refuses a longer one unread,
		// and a refused request (a wrong key, a method the route does not
		// take) is read no further than what is recorded.
		limit := au.MaxBodyBytes
		if served && readsModelBody(rt.Shape) && r.ContentLength > 0 && r.ContentLength <= int64(au.ReadBodyBytes) {
			limit = max(limit, int(r.ContentLength))
		}
		body, rest, err := peekBody(r.Body, int64(limit), r.ContentLength)
		r.Body, a.readErr = rest, err
		if err == nil && len(body) > 0 && len(body) <= limit {
			// The whole body: later stages take it, and its one scan,
			// from info instead of reading and scanning it again. A body
			// cut short by a read error is not shared: the next stage
			// reads it again and meets the error itself.
			info.SetBody(body)
		}
		if a.tooBig = len(body) > au.MaxBodyBytes; !a.tooBig {
			a.body = body
		}
	}
	if info.SessionID == "" {
		in := audit.SessionInput{UserPath: info.UserPath, Header: r.Header, PreviousResponse: au.Sessions.Lookup}
		if b := info.Body(); b != nil && b.ScanErr == nil {
			in.Fields = &b.Fields
		}
		info.SessionID = audit.DetectSession(in)
	}
	e := &audit.Entry{
		Timestamp: info.Start,
		Method:    r.Method,
		Path:      routes.Path(r),
		SessionID: info.SessionID,
		UserPath:  info.UserPath,
		ClientIP:  clientIP(r),
	}
	e.ID = audit.NewID(e.Timestamp)
	if au.Usage {
		info.UsageID = audit.NewID(info.Start)
	}
	e.RequestID = r.Header.Get("X-Request-Id")
	if e.RequestID == "" {
		e.RequestID = e.ID.String()
	}
	if au.Entries {
		// What is already known goes into the live start preview: the
		// caller, and the model and streaming the body asks for. finish
		// sets each one again from what the chain did.
		e.AuthMethod = authMethod(info.AuthMethod)
		e.RequestedModel = a.bodyModel()
		e.Stream = a.bodyStreams()
		au.Recorder.Start(e)
	}
	a.entry = e
	return a
}

// readsModelBody reports whether requests of shape carry a JSON model request
// body, which the proxy reads whole.
func readsModelBody(shape routes.Shape) bool {
	switch shape {
	case routes.ShapeChat, routes.ShapeResponses, routes.ShapeMessages, routes.ShapeCountTokens,
		routes.ShapeEmbeddings, routes.ShapeSpeech:
		return true
	}
	return false
}

// textual reports whether a request body of this Content-Type is read for
// the record: JSON or text, or no type at all. Other bodies are recorded
// by their type and size only.
func textual(contentType string) bool {
	ct := strings.ToLower(contentType)
	return ct == "" || strings.Contains(ct, "json") || strings.HasPrefix(ct, "text/")
}

// clientIP is the client's address as Caddy determined it (trusted
// proxies honoured), else the connection's remote host.
func clientIP(r *http.Request) string {
	if ip, ok := caddyhttp.GetVar(r.Context(), caddyhttp.ClientIPVarKey).(string); ok && ip != "" {
		return ip
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// finish completes the entry from what the chain learned and the answer
// written, and hands the entry and usage record to the recorder.
// panicked is what the chain panicked with (nil when it returned): an
// aborted answer (http.ErrAbortHandler) or a fault.
func (a *auditRequest) finish(aw *auditWriter, r *http.Request, serveErr error, panicked any) {
	info, e, au := a.info, a.entry, a.au
	end := time.Now()
	e.DurationNs = end.Sub(info.Start).Nanoseconds()
	if panicked != nil && info.ErrorStatus == 0 {
		// Nothing said why: the answer ended unfinished all the same.
		apierr.Record(info, panicError(panicked))
	}
	var errType, errCode, errMsg string
	e.StatusCode, errType, errCode, errMsg = outcome(aw, r, serveErr, info)
	e.Stream = info.Stream
	e.SessionID, e.UserPath = info.SessionID, info.UserPath
	e.RequestedModel, e.ResolvedModel, e.AliasUsed = info.RequestedModel, info.ResolvedModel, info.AliasUsed
	if e.RequestedModel == "" {
		// Refused before the proxy read the model (a rate limit, a spent
		// budget): the model the body asked for, when it was read.
		e.RequestedModel = a.bodyModel()
	}
	e.Provider, e.ProviderName = info.ProviderType, info.ProviderName
	e.AuthMethod = authMethod(info.AuthMethod)
	e.AuthKeyID = info.KeyID
	switch info.AuthMethod {
	case reqinfo.AuthMasterKey:
		e.PrincipalID = "master"
	case reqinfo.AuthManagedKey:
		e.PrincipalID = info.KeyID
	}
	if info.CacheHit {
		e.CacheType = audit.CacheTypeExact
	}
	e.ErrorType = errType
	usage, hasUsage := info.Usage()
	if hasUsage {
		e.Usage = audit.UsageOf(usage)
		if c, ok := info.Cost(); ok {
			e.Cost = audit.CostOf(c)
		}
	}
	attempts := info.Attempts()
	if au.Entries {
		d := &audit.Data{
			ErrorCode:        errCode,
			ErrorMessage:     errMsg,
			EventType:        eventType(a.shape),
			UserAgent:        r.Header.Get("User-Agent"),
			WorkflowFeatures: au.Features,
			Attempts:         a.attempts(attempts),
		}
		if n := len(attempts); n > 1 {
			// The request failed over: the model it last switched to.
			d.Failover = &audit.Failover{TargetModel: attempts[n-1].Model}
		}
		if len(info.KeyHash) >= 16 {
			d.APIKeyHash = info.KeyHash[:16]
		}
		for i, rv := range info.Revisions() {
			d.RequestRevisions = append(d.RequestRevisions, audit.Revision{Seq: i + 1, Rewriter: rv.Rewriter, Detail: rv.Detail})
		}
		a.requestFields(d)
		if au.Headers {
			d.RequestHeaders = au.Redactor.Headers(r.Header)
			for i, name := range keys.KeyHeaders {
				if info.CredentialsSent&(1<<i) != 0 {
					d.RequestHeaders = audit.WithRemoved(d.RequestHeaders, name)
				}
			}
			d.ResponseHeaders = au.Redactor.Headers(aw.Header())
		}
		if au.Bodies {
			a.bodies(d, aw)
		} else {
			e.BodiesOmitted = true
		}
		e.Data = d
	}
	// One usage record per completed request: a cache hit, or an answer
	// a provider gave. A client that left before the end (499), or an
	// answer the upstream broke off, leaves one only when the answer
	// reported the tokens it used, which are spent whether or not the
	// client read them. So does an answer whose handling panicked: its
	// attempt may look answered, but the answer never completed.
	var u *audit.UsageRecord
	gone := e.StatusCode == StatusClientClosed
	spent := hasUsage && begun(attempts)
	if panicked == nil {
		spent = spent || info.CacheHit || answered(attempts)
	}
	if au.Usage && spent && (!gone || hasUsage) {
		u = a.usageRecord(usage)
	}
	if a.shape == routes.ShapeResponses && info.SessionID != "" && e.Data != nil {
		if id := gjson.GetBytes(e.Data.ResponseBody, "id"); id.Type == gjson.String {
			au.Sessions.Remember(info.UserPath, id.Str, info.SessionID)
		}
	}
	au.Recorder.Finish(e, u)
	a.mx.Observe(a.shape, info, reqmetrics.Outcome{Status: e.StatusCode, Code: metricsCode(e.StatusCode, errCode), End: end})
	var response []byte
	if e.Data != nil {
		response = e.Data.ResponseBody
	}
	traceRequest(r.Context(), a.shape, info, e.StatusCode, metricsCode(e.StatusCode, errCode), response)
	if au.TraceContent {
		traceContent(r.Context(), au.Redactor, info, response)
	}
}

// outcome is how a request ended once serve returned serveErr, having
// written its answer through aw: the status recorded for it and the
// gateway error it ended with (type, code and message; empty for a
// success).
func outcome(aw *auditWriter, r *http.Request, serveErr error, info *reqinfo.Info) (status int, errType, errCode, errMsg string) {
	status = aw.status
	if status == 0 {
		var he caddyhttp.HandlerError
		if errors.As(serveErr, &he) && he.StatusCode != 0 {
			status = he.StatusCode
		} else if serveErr != nil {
			status = http.StatusInternalServerError
		}
	}
	if info.ErrorStatus != 0 && status < 400 {
		// An answer that failed after it had begun (a stream the
		// upstream broke off, or aborted): its failure, not the status
		// line the client got.
		status = info.ErrorStatus
	}
	errType, errCode, errMsg = info.ErrorType, info.ErrorCode, info.ErrorMessage
	// The server cancels a request's context when the client went away.
	// Before the whole answer was sent (none written, a write that
	// failed, or a stream still open) that is recorded as status 499,
	// client_disconnected, whatever was sent before; a client that leaves
	// once it has the whole answer (an agent closing the connection on
	// the stream's last event) got its answer. A body read that timed out
	// cancels the context too: that request was answered 408
	// request_timeout, its client still there.
	if errors.Is(r.Context().Err(), context.Canceled) && errCode != apierr.CodeRequestTimeout &&
		(aw.status == 0 || aw.failed || info.AnswerOpen) {
		status, errCode = StatusClientClosed, CodeClientDisconnected
		errMsg = "the client disconnected before the answer was complete"
		if errType == "" {
			errType = apierr.TypeInvalidRequest
		}
	}
	return status, errType, errCode, errMsg
}

// authMethod maps the caller's authentication onto the recorded names.
func authMethod(m reqinfo.AuthMethod) string {
	switch m {
	case reqinfo.AuthMasterKey:
		return "master_key"
	case reqinfo.AuthManagedKey:
		return "api_key"
	}
	return "none"
}

// eventType is what an entry of a route of this shape records.
func eventType(s routes.Shape) string {
	switch s {
	case routes.ShapeRealtime:
		return "realtime_session"
	case routes.ShapeBatch, routes.ShapeFiles:
		return "batch"
	}
	return "request"
}

// answered reports whether a provider answered the request successfully.
func answered(attempts []reqinfo.Attempt) bool {
	for _, at := range attempts {
		if at.Err == "" && at.StatusCode > 0 && at.StatusCode < 400 {
			return true
		}
	}
	return false
}

// begun reports whether a provider began answering the request: an
// upstream call whose status was a success, whether or not its answer
// then arrived whole.
func begun(attempts []reqinfo.Attempt) bool {
	for _, at := range attempts {
		if at.StatusCode > 0 && at.StatusCode < 400 {
			return true
		}
	}
	return false
}

// panicError is the failure recorded for a request whose handling
// panicked with p without recording why: an answer aborted on purpose
// (http.ErrAbortHandler), or a fault in the gateway.
func panicError(p any) *apierr.Error {
	if p == http.ErrAbortHandler {
		return apierr.New(http.StatusInternalServerError, apierr.TypeProvider,
			"the gateway aborted the answer before it was complete").WithCode(CodeAnswerAborted)
	}
	return apierr.New(http.StatusInternalServerError, apierr.TypeProvider,
		"the gateway failed while answering; see its log").WithCode(CodeInternalError)
}

// attempts converts the recorded upstream calls: the first is the primary
// call, later ones failover calls.
func (a *auditRequest) attempts(in []reqinfo.Attempt) []audit.Attempt {
	if len(in) == 0 {
		return nil
	}
	out := make([]audit.Attempt, len(in))
	for i, at := range in {
		kind := audit.AttemptPrimary
		if i > 0 {
			kind = audit.AttemptFailover
		}
		out[i] = audit.Attempt{
			Seq:          i + 1,
			Kind:         kind,
			Model:        at.Model,
			ProviderName: at.Provider,
			ProviderType: at.ProviderType,
			StartedAt:    at.StartedAt,
			DurationNs:   at.Duration.Nanoseconds(),
			StatusCode:   at.StatusCode,
			ErrorMessage: at.Err,
			ErrorType:    at.ErrType,
			ErrorCode:    at.ErrCode,
			Success:      at.Err == "" && at.StatusCode > 0 && at.StatusCode < 400,
		}
		if at.ResponseHeader != nil && a.au.Headers {
			out[i].ResponseHeaders = a.au.Redactor.Headers(at.ResponseHeader)
		}
		if a.au.Bodies {
			body, _ := audit.CaptureBody(at.ResponseHeader.Get("Content-Type"), at.ResponseBody, a.au.MaxBodyBytes)
			out[i].ResponseBody = a.masked(body)
		}
		if out[i].ProviderType == "" && at.Provider == a.info.ProviderName {
			out[i].ProviderType = a.info.ProviderType
		}
		// A failure the call did not describe is the request's own when
		// the call was the last one: its outcome is the request's.
		if last := i == len(in)-1; last && !out[i].Success && out[i].ErrorMessage == "" && at.StatusCode >= 400 {
			out[i].ErrorType, out[i].ErrorMessage = a.info.ErrorType, a.info.ErrorMessage
			out[i].ErrorCode = a.info.ErrorCode
		}
	}
	return out
}

// requestFields fills temperature, max_tokens and conversation_payload
// from the request body's scanned fields.
func (a *auditRequest) requestFields(d *audit.Data) {
	b := a.info.Body()
	if b == nil || b.ScanErr != nil {
		return
	}
	f := &b.Fields
	if t, ok := number(f.Temperature); ok {
		d.Temperature = &t
	}
	for _, m := range [...][]byte{f.MaxTokens, f.MaxCompletionTokens, f.MaxOutputTokens} {
		if n, ok := number(m); ok {
			n := int64(n)
			d.MaxTokens = &n
			break
		}
	}
	a.entry.ConversationPayload = reqbody.IsArray(f.Messages) || f.Input != nil
}

// bodyModel returns the model a request body that was read asks for, or
// "" when none was read or its model is not a string, bounded as
// recorded (catalog.RecordedModelID).
func (a *auditRequest) bodyModel() string {
	b := a.info.Body()
	if b == nil || b.ScanErr != nil {
		return ""
	}
	s, _ := reqbody.Text(b.Fields.Model)
	// Recorded for a request refused before the proxy read the model (a
	// rate limit, a model too long): bounded like every recorded model.
	return catalog.RecordedModelID(s)
}

// bodyStreams reports whether the request body, when read, asks for a
// stream ("stream": true).
func (a *auditRequest) bodyStreams() bool {
	b := a.info.Body()
	return b != nil && b.ScanErr == nil && string(b.Fields.Stream) == "true"
}

// number reads a raw JSON number.
func number(raw []byte) (float64, bool) {
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(raw), 64)
	return v, err == nil
}

// bodies records the request and response bodies, a stream as the final
// object it adds up to.
func (a *auditRequest) bodies(d *audit.Data, aw *auditWriter) {
	switch {
	case a.tooBig:
		d.RequestBodyTooBigToHandle = true
	case len(a.body) > 0:
		d.RequestBody, d.RequestBodyTooBigToHandle = ownBody(a.bodyCT, a.body, a.au.MaxBodyBytes)
		d.RequestBody = a.masked(d.RequestBody)
	case a.bodyN > 0:
		d.RequestBody = audit.BodySummary(strings.ToLower(a.bodyCT), a.bodyN)
	}
	if aw.over {
		d.ResponseBodyTooBigToHandle = true
		return
	}
	ct := aw.Header().Get("Content-Type")
	if strings.HasPrefix(ct, "text/event-stream") {
		d.ResponseBody = a.masked(audit.StreamedBody(streamKind(a.shape), aw.buf))
		aw.releaseCapture(d.ResponseBody)
		return
	}
	d.ResponseBody, _ = ownBody(ct, aw.buf, a.au.MaxBodyBytes)
	d.ResponseBody = a.masked(d.ResponseBody)
}

// masked returns a recorded body with the credentials in it masked when
// the gateway masks them (logging.redact_secrets), counting them on the
// entry. A body with none is returned as it is; one with some is a new
// slice, so that a body the request still shares (the proxy's) is left
// as it was.
func (a *auditRequest) masked(body json.RawMessage) json.RawMessage {
	if !a.au.RedactSecrets || len(body) == 0 {
		return body
	}
	out, n := a.au.Redactor.MaskSecrets(body)
	a.entry.SecretsRedacted += n
	return out
}

// ownBody records a body buffer the stage owns and never changes again: a
// JSON body is kept as it is, without a copy and without validating it on
// the request path (storage reads back a body that is not valid JSON as a
// JSON string: audit.ReadableBody); anything else as audit.CaptureBody
// records it.
func ownBody(contentType string, b []byte, max int) (json.RawMessage, bool) {
	if len(b) > 0 && len(b) <= max && strings.Contains(contentType, "json") {
		return b, false
	}
	return audit.CaptureBody(contentType, b, max)
}

// streamKind is the event format of a streamed answer on a route of shape
// s: the client's API shape, or any of them for passthrough routes.
func streamKind(s routes.Shape) audit.StreamKind {
	switch s {
	case routes.ShapeMessages:
		return audit.StreamMessages
	case routes.ShapeResponses:
		return audit.StreamResponses
	case routes.ShapeChat:
		return audit.StreamChat
	}
	return audit.StreamAuto
}

// usageRecord is the request's usage record, with the request's cost
// (reqinfo.Info.Cost: the provider's price, else the catalog's).
func (a *auditRequest) usageRecord(usage catalog.Usage) *audit.UsageRecord {
	info := a.info
	u := &audit.UsageRecord{
		ID:           audit.ID(info.UsageID),
		Timestamp:    info.Start,
		RequestID:    a.entry.ID,
		UserPath:     info.UserPath,
		SessionID:    info.SessionID,
		ProviderName: info.ProviderName,
		ProviderType: info.ProviderType,
		Model:        info.ResolvedModel,
		Endpoint:     a.entry.Path,
		AuthKeyID:    a.entry.AuthKeyID,
		StatusCode:   a.entry.StatusCode,
		DurationNs:   a.entry.DurationNs,
		CacheType:    a.entry.CacheType,
		Usage:        usage,
	}
	if b, ok := info.Cost(); ok {
		u.SetCost(b)
	}
	if avoided, ok := info.CostAvoided(); ok {
		u.CostAvoided = &avoided
	}
	return u
}
