package proxy

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/platform/sse"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// translation turns an upstream answer of the provider's shape into the
// client's shape.
type translation struct {
	response func(upstream []byte) ([]byte, catalog.Usage, error)
	stream   func() translate.Stream
	log      *zap.Logger // receives skipped events and broken streams; nil logs nothing
}

// nopLogger stands in for a missing logger, made once: zap.NewNop
// allocates.
var nopLogger = zap.NewNop()

// logger returns the logger of skipped events and broken streams.
func (t *translation) logger() *zap.Logger {
	if t.log == nil {
		return nopLogger
	}
	return t.log
}

// relayTranslatedBody translates a whole upstream answer.
func relayTranslatedBody(w http.ResponseWriter, r *http.Request, resp *http.Response, c *call) {
	up, err := readAllSized(resp.Body, sizeHint(resp.ContentLength))
	if err != nil {
		apierr.WriteFor(w, r, apierr.ProviderError(http.StatusBadGateway, c.provider.Name(),
			"reading the upstream response failed: "+err.Error()))
		return
	}
	out, usage, err := c.tr.response(up)
	if err != nil {
		apierr.WriteFor(w, r, apierr.ProviderError(http.StatusBadGateway, c.provider.Name(),
			"the upstream answer could not be translated: "+err.Error()))
		return
	}
	c.setUsage(usage)
	c.noteBodyCost(up)
	c.keep.keepTranslated(out)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Del("Content-Length")
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(out)
}

// relayTranslatedStream translates an upstream event stream event by
// event; eventWriter flushes the translated pieces as relayStream's. An
// event the converter cannot read (data: keep-alive) is skipped and
// logged. The client's stream never just stops: it ends with the
// converter's closing events, or with an error event in the client's
// shape when the upstream broke off (see endTranslatedStream).
func relayTranslatedStream(w http.ResponseWriter, resp *http.Response, c *call) {
	w.Header().Set("Content-Type", "text/event-stream")
	events := newEventReader(resp.Body)
	defer events.Release()
	out := startEventStream(w, resp.StatusCode, events, c.info)
	defer out.close()

	conv := c.tr.stream()
	defer func() {
		if u, ok := conv.Usage(); ok {
			c.setUsage(u)
		}
	}()
	skipped := 0
	defer func() {
		if skipped > 1 {
			c.tr.logger().Warn("skipped unreadable upstream stream events", zap.String("provider", c.provider.Name()),
				zap.Int("count", skipped))
		}
	}()
	for {
		raw, rerr := events.Next()
		if rerr != nil {
			endTranslatedStream(&out, conv, c, raw, rerr)
			return
		}
		var b []byte
		if ev, ok := sse.Parse(raw); ok {
			c.noteEventCost(ev.Data)
			var ferr error
			if b, ferr = conv.Feed(ev); ferr != nil {
				if skipped++; skipped == 1 {
					c.tr.logger().Warn("skipped an unreadable upstream stream event", zap.String("provider", c.provider.Name()),
						zap.Int("bytes", len(ev.Data)), zap.Error(ferr))
				}
			}
		}
		c.keep.watchTranslated(b)
		if !out.send(c.in, b) {
			return
		}
	}
}

// endTranslatedStream ends the client's stream once the upstream's has
// ended with err and left tail, what followed its last whole event. At a
// clean end of the upstream body, a tail holding a readable event (the
// upstream left out the blank line after it) is sent as the last event,
// and the converter's closing events follow; a tail that cannot be read is
// an event cut in the middle, and any other read error a broken stream:
// both abort the client's stream with an error event in its shape. A
// client that went away gets nothing.
func endTranslatedStream(out *eventWriter, conv translate.Stream, c *call, tail []byte, err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	if err != io.EOF {
		code, msg := streamFailure(err)
		status := http.StatusBadGateway
		if code == "upstream_timeout" {
			status = http.StatusGatewayTimeout
		}
		c.answerFailed(apierr.New(status, apierr.TypeProvider, msg).WithCode(code))
		c.tr.logger().Warn("upstream stream broke off", zap.String("provider", c.provider.Name()), zap.Error(err))
		out.end(c.keep.watched(conv.Abort(code, msg)))
		return
	}
	if ev, ok := sse.Parse(tail); ok {
		c.noteEventCost(ev.Data)
		b, ferr := conv.Feed(ev)
		if ferr != nil {
			c.tr.logger().Warn("upstream stream was cut off in the middle of an event", zap.String("provider", c.provider.Name()),
				zap.Int("bytes", len(tail)))
			const msg = "the upstream stream was cut off in the middle of an event"
			c.answerFailed(apierr.New(http.StatusBadGateway, apierr.TypeProvider, msg).WithCode("stream_truncated"))
			out.end(c.keep.watched(conv.Abort("stream_truncated", msg)))
			return
		}
		c.keep.watchTranslated(b)
		if !out.send(c.in, b) {
			return
		}
	}
	out.end(c.keep.watched(conv.Finish()))
}

// streamFailure is the code and message a client gets for an upstream
// stream that failed with err: upstream_timeout when the upstream stopped
// sending in time, upstream_read_failed otherwise. The message never
// carries err's text, which may name internal addresses.
func streamFailure(err error) (code, message string) {
	var ne net.Error
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return "upstream_timeout", "the upstream stopped sending the stream in time"
	}
	return "upstream_read_failed", "reading the upstream stream failed"
}
