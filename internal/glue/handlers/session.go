package handlers

import (
	"bufio"
	"net"
	"net/http"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/sessions"
	"github.com/modelgate/modelgate/internal/gateway/proxy"
	"github.com/modelgate/modelgate/internal/glue/reqmetrics"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
)

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
