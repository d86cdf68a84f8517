package handlers

import (
	"bufio"
	"net"
	"net/http"

	"github.com/modelgate/modelgate/internal/domain/cache"
	"github.com/modelgate/modelgate/internal/gateway/proxy"
)

// cacheWriter passes a response through while keeping a copy of its body
// as the sequence of writes between flushes, up to max bytes in all (the
// cache's MaxEntryBytes). Once the answer cannot be stored (it outgrows
// max, its status is not 200, a write to the client fails or the
// connection is taken over) the copy is dropped at once, its memory
// released, and flight (when set) is ended sharing nothing, so that the
// identical requests waiting for it make their own calls instead of
// waiting for the end of an answer nobody will share. The rest passes
// through uncopied. It keeps the writer's flushing and hijacking through
// Flush, Hijack and Unwrap.
type cacheWriter struct {
	http.ResponseWriter
	status  int
	dropped bool // the copy was given up: the answer is not stored
	max     int64
	size    int64
	chunks  [][]byte
	open    []byte // written since the last flush
	flight  *cache.Flight
}

// WriteHeader notes the final status and passes it on; any final status
// but 200 gives up the copy.
func (w *cacheWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
		if code != http.StatusOK {
			w.drop()
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write copies p into the current chunk while the copy fits, then passes
// it on. A write that would take the copy over max drops it before
// copying anything.
func (w *cacheWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if !w.dropped {
		if w.size += int64(len(p)); w.size > w.max {
			w.drop()
		} else {
			w.open = append(w.open, p...)
		}
	}
	n, err := w.ResponseWriter.Write(p)
	if err != nil {
		w.drop()
	}
	return n, err
}

// drop gives up the copy: its memory is released and the flight ends
// sharing nothing.
func (w *cacheWriter) drop() {
	if w.dropped {
		return
	}
	w.dropped, w.chunks, w.open = true, nil, nil
	w.flight.Done(nil)
}

// cut ends the current chunk.
func (w *cacheWriter) cut() {
	if len(w.open) > 0 && !w.dropped {
		w.chunks = append(w.chunks, w.open)
		w.open = nil
	}
}

// Flush ends the current chunk and sends buffered data to the client.
func (w *cacheWriter) Flush() { _ = w.FlushError() }

// FlushError ends the current chunk, sends buffered data to the client and
// reports a failure. A failure does not drop the copy: the client may
// have left on what the write before handed over, and an answer left
// before its last part stays open (reqinfo.Info.AnswerOpen).
func (w *cacheWriter) FlushError() error {
	w.cut()
	return proxy.Flush(w.ResponseWriter)
}

// Hijack hands over the connection; such an answer is never stored.
func (w *cacheWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.drop()
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// Unwrap returns the underlying writer, for http.ResponseController.
func (w *cacheWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// body returns the captured chunks, the last one ended.
func (w *cacheWriter) body() [][]byte {
	w.cut()
	return w.chunks
}
