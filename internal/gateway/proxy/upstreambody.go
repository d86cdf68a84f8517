package proxy

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"
)

// Errors of reading an upstream answer under its limits.
var (
	// errUpstreamTimeout: the upstream sent nothing for ReadIdleTimeout,
	// or did not finish a non-streamed answer within Timeout.
	errUpstreamTimeout = errors.New("upstream read timed out")
	// errResponseTooLarge: a non-streamed answer exceeds MaxResponseBytes.
	errResponseTooLarge = errors.New("upstream answer exceeds the size cap")
)

// upstreamBody stands in for an upstream response body and reads it under
// the provider's limits. While a Read waits for the upstream, a timer runs
// that cancels the upstream call after ReadIdleTimeout (or at the
// deadline of a non-streamed answer), so a silent upstream cannot hold
// the request, its goroutine or the caller's concurrency slot; the time
// the gateway spends writing to a slow client does not count. A capped
// body yields errResponseTooLarge once it passes its cap, having read at
// most one byte beyond it.
type upstreamBody struct {
	body     io.ReadCloser
	ctx      context.Context // the upstream call's
	cancel   context.CancelCauseFunc
	dog      *watchdog // nil until the first Read
	idle     time.Duration
	deadline time.Time // zero: none
	capped   bool
	left     int64 // bytes a capped body may still yield
	maxEvent int
}

// watch puts body, the answer of an upstream call made with ctx (whose
// cancel ends the call), under l. A non-streamed answer is capped in size
// and must be complete by started + l.Timeout.
func (b *upstreamBody) watch(ctx context.Context, cancel context.CancelCauseFunc, body io.ReadCloser,
	l UpstreamLimits, streamed bool, started time.Time) {
	*b = upstreamBody{body: body, ctx: ctx, cancel: cancel, idle: l.ReadIdleTimeout, maxEvent: int(l.MaxEventBytes)}
	if !streamed {
		b.capped, b.left = true, l.MaxResponseBytes
		if l.Timeout > 0 {
			b.deadline = started.Add(l.Timeout)
		}
	}
}

// Read implements io.Reader.
func (b *upstreamBody) Read(p []byte) (int, error) {
	if b.capped {
		if b.left < 0 {
			return 0, errResponseTooLarge
		}
		if int64(len(p)) > b.left+1 {
			p = p[:b.left+1]
		}
	}
	if b.dog == nil {
		b.dog = newWatchdog(b.cancel)
	}
	b.dog.arm(b.wait())
	n, err := b.body.Read(p)
	b.dog.disarm()
	if b.capped {
		if b.left -= int64(n); b.left < 0 {
			return n, errResponseTooLarge
		}
	}
	if err != nil && err != io.EOF && errors.Is(context.Cause(b.ctx), errUpstreamTimeout) {
		err = errUpstreamTimeout
	}
	return n, err
}

// wait is how long the next Read may wait for the upstream.
func (b *upstreamBody) wait() time.Duration {
	if b.deadline.IsZero() {
		return b.idle
	}
	return min(b.idle, max(time.Until(b.deadline), 0))
}

// Close implements io.Closer.
func (b *upstreamBody) Close() error {
	if b.dog != nil {
		b.dog.release()
		b.dog = nil
	}
	return b.body.Close()
}

// watchdog cancels an upstream call with errUpstreamTimeout when a wait
// outlasts its timer. Watchdogs are pooled with their timer, so that
// watching an upstream allocates nothing per request; one whose timer
// may have fired is not reused, so that a late firing can never cancel
// another request.
type watchdog struct {
	timer  *time.Timer
	cancel context.CancelCauseFunc
	fired  bool // a Stop came too late: the timer's function ran or runs
}

var watchdogs = sync.Pool{New: func() any {
	d := new(watchdog)
	d.timer = time.AfterFunc(time.Hour, d.fire)
	d.timer.Stop()
	return d
}}

func newWatchdog(cancel context.CancelCauseFunc) *watchdog {
	d := watchdogs.Get().(*watchdog)
	d.cancel = cancel
	return d
}

// fire runs on the timer's goroutine; cancel is not changed while the
// timer may run (see release).
func (d *watchdog) fire() { d.cancel(errUpstreamTimeout) }

// arm starts the timer for one wait.
func (d *watchdog) arm(wait time.Duration) { d.timer.Reset(wait) }

// disarm stops the timer after a wait; a false Stop means the timer
// expired and fire was started.
func (d *watchdog) disarm() {
	if !d.timer.Stop() {
		d.fired = true
	}
}

// release gives the watchdog back, unless its timer fired or may fire.
func (d *watchdog) release() {
	if d.fired {
		return
	}
	d.cancel = nil
	watchdogs.Put(d)
}

// maxEventBytes is the stream event cap for newEventReader.
func (b *upstreamBody) maxEventBytes() int { return b.maxEvent }

// bufferedAnswer is a non-streamed upstream answer already read whole,
// put back in place of the response body: readAllSized hands its bytes
// over without copying them, any other reader reads them normally.
type bufferedAnswer struct {
	b   []byte
	off int
}

// Read implements io.Reader.
func (a *bufferedAnswer) Read(p []byte) (int, error) {
	if a.off >= len(a.b) {
		return 0, io.EOF
	}
	n := copy(p, a.b[a.off:])
	a.off += n
	return n, nil
}

// Close implements io.Closer.
func (a *bufferedAnswer) Close() error { return nil }

// take returns the unread bytes and leaves the answer at its end.
func (a *bufferedAnswer) take() []byte {
	b := a.b[a.off:]
	a.off = len(a.b)
	return b
}
