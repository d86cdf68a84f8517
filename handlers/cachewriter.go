package handlers

import (
	"bufio"
	"net"
	"net/http"

	"github.com/modelgate/modelgate/proxy"
)

// cacheWriter passes a response through while keeping a copy of its body
// as the sequence of writes between flushes, up to max bytes in all; a
// longer body is dropped from the copy and marked over. It keeps the
// writer's flushing and hijacking through Flush, Hijack and Unwrap.
type cacheWriter struct {
	http.ResponseWriter
	status int
	over   bool
	failed bool // a write to the client failed, or the connection was taken over
	max    int64
	size   int64
	chunks [][]byte
	open   []byte // written since the last flush
}

// WriteHeader notes the final status and passes it on.
func (w *cacheWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write copies p into the current chunk while the copy fits, then passes
// it on.
func (w *cacheWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if !w.over {
		if w.size += int64(len(p)); w.size > w.max {
			w.over, w.chunks, w.open = true, nil, nil
		} else {
			w.open = append(w.open, p...)
		}
	}
	n, err := w.ResponseWriter.Write(p)
	if err != nil {
		w.failed = true
	}
	return n, err
}

// cut ends the current chunk.
func (w *cacheWriter) cut() {
	if len(w.open) > 0 && !w.over {
		w.chunks = append(w.chunks, w.open)
		w.open = nil
	}
}

// Flush ends the current chunk and sends buffered data to the client.
func (w *cacheWriter) Flush() { _ = w.FlushError() }

// FlushError ends the current chunk, sends buffered data to the client and
// reports a failure. A failure does not mark the answer failed: the
// client may have left on what the write before handed over, and an
// answer left before its last part stays open (reqinfo.Info.AnswerOpen).
func (w *cacheWriter) FlushError() error {
	w.cut()
	return proxy.Flush(w.ResponseWriter)
}

// Hijack hands over the connection; such an answer is never stored.
func (w *cacheWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.failed = true
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// Unwrap returns the underlying writer, for http.ResponseController.
func (w *cacheWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// body returns the captured chunks, the last one ended.
func (w *cacheWriter) body() [][]byte {
	w.cut()
	return w.chunks
}
