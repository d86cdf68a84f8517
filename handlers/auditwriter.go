package handlers

import (
	"bufio"
	"context"
	"net"
	"net/http"

	"github.com/modelgate/modelgate/proxy"
)

// auditWriter passes a response through while noting its status and
// keeping a copy of its body up to max bytes (when capture is set); a
// longer body is dropped from the copy and marked over. It keeps the
// writer's flushing and hijacking through Flush, Hijack and Unwrap.
type auditWriter struct {
	http.ResponseWriter
	// ctx is the request's: a write or flush after it ended (the client
	// went away) reaches no one, and counts as failed.
	ctx     context.Context
	status  int
	failed  bool // a write or flush to the client failed, or came too late
	capture bool
	over    bool
	max     int
	buf     []byte
}

// WriteHeader notes the final status and passes it on.
func (w *auditWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.late()
	w.ResponseWriter.WriteHeader(code)
}

// late marks the answer failed when the client has already gone.
func (w *auditWriter) late() {
	if w.ctx.Err() != nil {
		w.failed = true
	}
}

// Write copies p into the captured body while it fits, then passes it on.
func (w *auditWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.capture && !w.over {
		if w.buf == nil && len(p) < streamCaptureStart && proxy.IsEventStream(w.Header()) {
			// A stream arrives an event at a time: room for a typical one
			// at once instead of a buffer regrown and copied with each
			// doubling.
			w.buf = make([]byte, 0, min(w.max, streamCaptureStart))
		}
		if len(w.buf)+len(p) > w.max {
			w.over, w.buf = true, nil
		} else {
			w.buf = append(w.buf, p...)
		}
	}
	w.late()
	n, err := w.ResponseWriter.Write(p)
	if err != nil {
		w.failed = true
	}
	return n, err
}

// streamCaptureStart is the capture buffer a streamed answer starts with:
// a chat answer of a few hundred tokens streams about this much.
const streamCaptureStart = 16 << 10

// Flush sends buffered data to the client.
func (w *auditWriter) Flush() { _ = w.FlushError() }

// FlushError sends buffered data to the client and reports a failure,
// which marks the answer failed (http.ResponseController calls it).
func (w *auditWriter) FlushError() error {
	w.late()
	err := proxy.Flush(w.ResponseWriter)
	if err != nil {
		w.failed = true
	}
	return err
}

// Hijack hands over the connection (realtime sessions); the status is
// then 101 Switching Protocols.
func (w *auditWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil && w.status == 0 {
		w.status = http.StatusSwitchingProtocols
	}
	return conn, rw, err
}

// Unwrap returns the wrapped writer, for http.ResponseController.
func (w *auditWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
