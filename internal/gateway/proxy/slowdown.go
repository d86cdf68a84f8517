package proxy

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// pacedWriter delays an answer by factor times the upstream's own time:
// before each write it waits until the time added so far is factor times
// the time the upstream took so far (the elapsed time without the added
// waits). A stream is thereby paced event by event, never buffered, and a
// whole answer is held back once. A client that goes away ends the wait.
type pacedWriter struct {
	http.ResponseWriter
	ctx    context.Context
	start  time.Time
	factor float64
	added  time.Duration
	timer  *time.Timer
}

// pace waits until the added delay matches the upstream's time so far.
func (p *pacedWriter) pace() {
	own := time.Since(p.start) - p.added
	want := time.Duration(p.factor * float64(own))
	wait := want - p.added
	if wait <= 0 {
		return
	}
	if p.timer == nil {
		p.timer = time.NewTimer(wait)
	} else {
		p.timer.Reset(wait)
	}
	select {
	case <-p.timer.C:
	case <-p.ctx.Done():
		p.timer.Stop()
	}
	p.added += wait
}

// WriteHeader holds the status back until the delay is due.
func (p *pacedWriter) WriteHeader(code int) {
	p.pace()
	p.ResponseWriter.WriteHeader(code)
}

// Write paces, then writes.
func (p *pacedWriter) Write(b []byte) (int, error) {
	p.pace()
	return p.ResponseWriter.Write(b)
}

// Flush flushes the underlying writer.
func (p *pacedWriter) Flush() { _ = p.FlushError() }

// FlushError flushes the underlying writer and reports a failure (see
// Flush).
func (p *pacedWriter) FlushError() error { return Flush(p.ResponseWriter) }

// Flush flushes w through http.ResponseController and reports a failure,
// for a writer that wraps w and passes flushes on: a writer that cannot
// flush is no failure (it sends everything at the end).
func Flush(w http.ResponseWriter) error {
	if err := http.NewResponseController(w).Flush(); !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// Unwrap returns the underlying writer (for http.ResponseController).
func (p *pacedWriter) Unwrap() http.ResponseWriter { return p.ResponseWriter }

// release stops the timer.
func (p *pacedWriter) release() {
	if p.timer != nil {
		p.timer.Stop()
	}
}

// noRelease is the release of an answer that is not paced.
func noRelease() {}

// paced returns w wrapped to delay c's answer by its slowdown factor,
// counted from started (when the upstream was called), and the func that
// ends the pacing once the answer is written; without a slowdown it
// returns w itself.
func (c *call) paced(w http.ResponseWriter, r *http.Request, started time.Time) (http.ResponseWriter, func()) {
	if c.slowdown <= 0 {
		return w, noRelease
	}
	pw := &pacedWriter{ResponseWriter: w, ctx: r.Context(), start: started, factor: c.slowdown}
	return pw, pw.release
}
