package handlers

import (
	"bufio"
	"net"
	"net/http"
	"unsafe"

	"github.com/modelgate/modelgate/internal/gateway/proxy"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// auditWriter passes a response through while noting its status and
// keeping a copy of its body up to max bytes (when capture is set); a
// longer body is dropped from the copy and marked over. It keeps the
// writer's flushing and hijacking through Flush, Hijack and Unwrap.
type auditWriter struct {
	http.ResponseWriter
	// done is the request context's Done channel: a write begun after it
	// closed (the client went away) reaches no one, and counts as failed.
	// The channel is taken once, so each write checks it without walking
	// the request's chain of contexts.
	done   <-chan struct{}
	status int
	// failed: a write to the client failed or began after the client had
	// gone, or a flush did while the answer was open (info.AnswerOpen).
	// Other flushes do not count: the answer is either not written in
	// parts (its one write was checked) or whole already, its last part
	// large enough that the write sent it (proxy.SentByWrite), and a
	// client that leaves on that part (an agent closing the connection on
	// a stream's closing event) may be gone before the flush, with the
	// whole answer.
	failed bool
	// info is the request's state; its AnswerOpen says whether a flush
	// still counts (see failed).
	info    *reqinfo.Info
	capture bool
	over    bool
	max     int
	buf     []byte
	// pooled reports that buf came from captureBufs.
	pooled bool
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
	select {
	case <-w.done:
		w.failed = true
	default:
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
			// doubling, taken from the buffers earlier streams gave back.
			w.buf, w.pooled = takeCapture(), true
		}
		if len(w.buf)+len(p) > w.max {
			w.over, w.buf, w.pooled = true, nil, false
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

// maxPooledCapture is the largest capture buffer given back for reuse: a
// buffer grown for an unusually long stream is left to the collector.
const maxPooledCapture = 64 << 10

// captureBufs holds capture buffers of streamed answers for reuse. A
// stream is recorded as the object it adds up to, a new value, so its
// capture is garbage once that is built; reusing it spares allocating and
// clearing 16 KiB per stream, about a third of what the audit stage
// allocates around a short stream. The list is short and bounded, unlike a
// sync.Pool, which keeps as many idle buffers as streams were open at once
// (and a second generation of them across a collection): live heap that
// raises the collector's goal and the resident memory with it.
var captureBufs = make(chan []byte, 32)

// takeCapture returns an empty capture buffer: one given back, else a new
// one of streamCaptureStart bytes.
func takeCapture() []byte {
	select {
	case b := <-captureBufs:
		return b
	default:
		return make([]byte, 0, streamCaptureStart)
	}
}

// releaseCapture gives a stream's capture buffer back for reuse once the
// recorded body, kept, has been built from it; a kept body that shares the
// buffer's memory keeps the buffer out of the list, as does a buffer grown
// past maxPooledCapture or a full list. The writer's capture is empty
// afterwards.
func (w *auditWriter) releaseCapture(kept []byte) {
	buf, pooled := w.buf, w.pooled
	w.buf, w.pooled = nil, false
	if !pooled || cap(buf) == 0 || cap(buf) > maxPooledCapture || overlaps(kept, buf[:cap(buf)]) {
		return
	}
	select {
	case captureBufs <- buf[:0]:
	default:
	}
}

// overlaps reports whether a and b share any memory.
func overlaps(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	a0, b0 := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return a0 < b0+uintptr(len(b)) && b0 < a0+uintptr(len(a))
}

// Flush sends buffered data to the client.
func (w *auditWriter) Flush() { _ = w.FlushError() }

// FlushError sends buffered data to the client and reports a failure
// (http.ResponseController calls it). While the answer is open, a failure
// or a flush after the client left marks the answer failed (see failed).
func (w *auditWriter) FlushError() error {
	open := w.info != nil && w.info.AnswerOpen
	if open {
		w.late()
	}
	err := proxy.Flush(w.ResponseWriter)
	if err != nil && open {
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
