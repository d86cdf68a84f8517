package mock

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
)

// errClosedBody is returned by reads from a response body after Close.
var errClosedBody = errors.New("mock: read on closed response body")

// NewTransport returns an http.RoundTripper that answers every request
// in-process with NewHandler(opts), without sockets. The request's host is
// ignored; only its path, method, headers and body matter.
//
// The response is returned as soon as the handler commits its headers (at
// its first Write, WriteHeader or Flush); the body then streams through a
// pipe, so flushed bytes reach the caller while the handler still runs.
// Closing the body or cancelling the request context cancels the context
// the handler sees and makes its further writes fail.
func NewTransport(opts Options) http.RoundTripper {
	return &transport{handler: NewHandler(opts)}
}

// transport serves requests through handler in-process.
type transport struct {
	handler http.Handler
}

// RoundTrip implements http.RoundTripper.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	body := req.Body
	if body == nil {
		body = http.NoBody
	}
	if req.URL == nil {
		body.Close()
		return nil, errors.New("mock: nil Request.URL")
	}
	parent := req.Context()
	if err := parent.Err(); err != nil {
		body.Close()
		return nil, err
	}

	ctx, cancel := context.WithCancel(parent)
	sreq := req.Clone(ctx)
	sreq.Body = body
	sreq.RequestURI = req.URL.RequestURI()
	sreq.RemoteAddr = "127.0.0.1:0"
	sreq.Proto, sreq.ProtoMajor, sreq.ProtoMinor = "HTTP/1.1", 1, 1
	if sreq.Host == "" {
		sreq.Host = req.URL.Host
	}

	pr, pw := io.Pipe()
	rw := &pipeResponseWriter{header: make(http.Header), pw: pw, ready: make(chan struct{})}
	// Cancellation (by the caller, or by Body.Close) ends the stream: the
	// reader sees the context error and the handler's writes fail.
	stopWatch := context.AfterFunc(ctx, func() { pw.CloseWithError(ctx.Err()) })

	go func() {
		defer cancel()
		defer body.Close()
		panicErr := serve(t.handler, rw, sreq)
		stopWatch()
		switch {
		case panicErr != nil:
			rw.fail(panicErr)
			pw.CloseWithError(panicErr)
		case ctx.Err() != nil:
			rw.fail(ctx.Err())
			pw.CloseWithError(ctx.Err())
		default:
			rw.commit()
			pw.Close()
		}
	}()

	select {
	case <-rw.ready:
	case <-parent.Done():
		cancel()
		return nil, parent.Err()
	}
	if rw.err != nil {
		cancel()
		return nil, rw.err
	}

	var respBody io.ReadCloser = &pipeBody{pr: pr, cancel: cancel}
	if rw.conn != nil { // a WebSocket handshake the handler accepted
		respBody = rw.conn
	}
	resp := &http.Response{
		Status:        fmt.Sprintf("%d %s", rw.status, http.StatusText(rw.status)),
		StatusCode:    rw.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        rw.sent,
		Body:          respBody,
		ContentLength: -1,
		Request:       req,
	}
	if n, err := strconv.ParseInt(rw.sent.Get("Content-Length"), 10, 64); err == nil && n >= 0 {
		resp.ContentLength = n
	}
	if req.Method == http.MethodHead || !bodyAllowed(rw.status) {
		resp.ContentLength = 0
	}
	return resp, nil
}

// serve runs h, converting a panic into an error.
func serve(h http.Handler, w http.ResponseWriter, r *http.Request) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("mock: handler panic: %v", p)
		}
	}()
	h.ServeHTTP(w, r)
	return nil
}

// bodyAllowed reports whether a response with status may have a body.
func bodyAllowed(status int) bool {
	return !(status >= 100 && status <= 199) && status != http.StatusNoContent && status != http.StatusNotModified
}

// pipeResponseWriter is the http.ResponseWriter given to the handler by
// the transport. It is used from the handler's goroutine only; the fields
// read by RoundTrip are written before ready is closed.
type pipeResponseWriter struct {
	header  http.Header
	pw      *io.PipeWriter
	ready   chan struct{} // closed when headers are committed, or on failure
	status  int
	sent    http.Header // snapshot of header at commit
	err     error       // set instead of status when the handler failed first
	settled bool
	conn    net.Conn // the client's end after Hijack
}

// Header implements http.ResponseWriter.
func (w *pipeResponseWriter) Header() http.Header { return w.header }

// WriteHeader implements http.ResponseWriter. Informational (1xx) codes
// are ignored; later calls are no-ops.
func (w *pipeResponseWriter) WriteHeader(code int) {
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code))
	}
	if w.settled || (code < 200 && code != http.StatusSwitchingProtocols) {
		return
	}
	w.status = code
	if code == http.StatusSwitchingProtocols {
		return // committed by Hijack
	}
	w.commit()
}

// Hijack implements http.Hijacker for a handler that switches protocols
// (the realtime WebSocket): it commits the 101 answer, whose body is the
// client's end of an in-memory connection, and returns the other end.
func (w *pipeResponseWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if w.settled || w.status != http.StatusSwitchingProtocols {
		return nil, nil, errors.New("mock: hijack without a 101 answer")
	}
	client, server := net.Pipe()
	w.conn = client
	w.commit()
	return server, bufio.NewReadWriter(bufio.NewReader(server), bufio.NewWriter(server)), nil
}

// Write implements http.ResponseWriter. It blocks until the bytes are read
// by the response body's reader, or the stream is closed.
func (w *pipeResponseWriter) Write(p []byte) (int, error) {
	if !w.settled {
		if _, ok := w.header["Content-Type"]; !ok && len(p) > 0 {
			w.header.Set("Content-Type", http.DetectContentType(p))
		}
		w.commit()
	}
	if !bodyAllowed(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	if len(p) == 0 {
		return 0, nil
	}
	return w.pw.Write(p)
}

// Flush implements http.Flusher. Written bytes are never buffered, so it
// only commits the headers.
func (w *pipeResponseWriter) Flush() { w.commit() }

// FlushError is Flush for http.ResponseController.
func (w *pipeResponseWriter) FlushError() error {
	w.commit()
	return nil
}

// commit delivers the status (200 unless set) and a snapshot of the headers.
func (w *pipeResponseWriter) commit() {
	if w.settled {
		return
	}
	w.settled = true
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.sent = w.header.Clone()
	close(w.ready)
}

// fail reports err to RoundTrip if the headers have not been committed.
func (w *pipeResponseWriter) fail(err error) {
	if w.settled {
		return
	}
	w.settled = true
	w.err = err
	close(w.ready)
}

// pipeBody is the response body returned by the transport.
type pipeBody struct {
	pr     *io.PipeReader
	cancel context.CancelFunc
	closed atomic.Bool
}

// Read implements io.Reader.
func (b *pipeBody) Read(p []byte) (int, error) {
	if b.closed.Load() {
		return 0, errClosedBody
	}
	n, err := b.pr.Read(p)
	if err != nil && b.closed.Load() {
		err = errClosedBody
	}
	return n, err
}

// Close implements io.Closer: it stops the handler.
func (b *pipeBody) Close() error {
	if b.closed.Swap(true) {
		return nil
	}
	b.pr.Close()
	b.cancel()
	return nil
}
