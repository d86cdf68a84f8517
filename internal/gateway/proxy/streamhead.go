package proxy

import (
	"bytes"
	"io"
	"net/http"

	"github.com/tidwall/gjson"
	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/platform/sse"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// Bounds of a stream head held back for failover (holdStreamHead): past
// either, the stream is relayed as it is.
const (
	// maxHeadEvents is the most events held.
	maxHeadEvents = 64
	// maxHeadBytes is the most bytes held; the event that passes it is
	// the last one held.
	maxHeadBytes = 64 << 10
)

// headOutcome is how the head of a stream held for failover ended.
type headOutcome int

const (
	headRelay      headOutcome = iota // relay the stream, its head put back
	headFailed                        // the attempt failed; fail over
	headClientGone                    // the client went away; nobody to answer
)

// holdStreamHead reads the head of resp, the stream of c's upstream on a
// request with further failover targets, before anything of the answer
// reaches the client: the events that carry no content (keep-alives,
// Anthropic message_start and ping, a chat chunk with only its role) are
// held until the first event with content, the stream's closing event or
// an error event arrives. When that first meaningful event is an error
// that failover covers (overloaded, rate-limited, a server error, one of
// unknown type), or the stream breaks or falls silent first, the attempt
// has failed as an HTTP error would: c.failed is set (with the error
// event's data for the attempt's record) and the outcome is headFailed;
// nothing was written. Otherwise what was read is put back in front of resp.Body,
// and the stream is relayed as any other, its held events leaving with
// the first content in one write. At most maxHeadEvents events and about
// maxHeadBytes are held; a stream that sends more first is relayed as
// it is.
func (s *Service) holdStreamHead(r *http.Request, c *call, resp *http.Response) headOutcome {
	shape, ok := streamShape(c.ep)
	if !ok {
		return headRelay
	}
	events := newEventReader(resp.Body)
	defer events.Release()
	buf := heldBuffers.Get().(*[]byte)
	head := (*buf)[:0]
	var tailErr error // how the upstream's body ended while held, if it did
	for n := 1; ; n++ {
		ev, err := events.Next()
		if err != nil && err != io.EOF {
			releaseHeld(buf)
			if r.Context().Err() != nil {
				return headClientGone
			}
			c.failed = readError(c.provider.Name(), err)
			s.logger().Warn("upstream stream failed before its first content; failing over",
				zap.String("provider", c.provider.Name()), zap.String("code", *c.failed.Code), zap.Error(err))
			return headFailed
		}
		e := s.streamErrorOf(c, resp, ev)
		if e != nil && failsOver(e.StatusCode) {
			c.failed = e
			c.failedHeader = s.Upstreams.redactHeader(resp.Header.Clone())
			data, _ := sse.FirstData(ev) // the error object, recorded as JSON
			c.failedBody = s.Upstreams.redactBody(bytes.Clone(data))
			releaseHeld(buf)
			s.logger().Warn("upstream stream began with an error; failing over",
				zap.String("provider", c.provider.Name()), zap.String("error", e.Message))
			return headFailed
		}
		head = append(head, ev...)
		if err != nil {
			tailErr = err
			break
		}
		// An error failover does not cover is relayed as it came.
		if e != nil || hasContent(shape, ev) || closesStream(shape, ev) || n >= maxHeadEvents || len(head) >= maxHeadBytes {
			break
		}
	}
	head = append(head, events.Buffered()...) // empty once the body ended
	*buf = head
	c.replay = replayBody{buf: buf, head: head, rest: resp.Body, err: tailErr}
	resp.Body = &c.replay
	return headRelay
}

// streamShape is the client shape whose events an upstream stream of
// endpoint ep carries, for hasContent and closesStream; ok is false for
// a stream whose head is never held.
func streamShape(ep providers.Endpoint) (ingress, bool) {
	switch ep {
	case providers.EndpointChat:
		return ingressChat, true
	case providers.EndpointMessages:
		return ingressMessages, true
	case providers.EndpointResponses:
		return ingressResponses, true
	}
	return ingress{}, false
}

// streamErrorOf returns the failure ev, a raw event of c's upstream
// stream, reports when it is an error event, or nil: an event named
// "error" (Anthropic, Responses), or data that is an object with an
// "error" object or of type "error" (an OpenAI-style chat error chunk).
// The error is mapped as an HTTP error answer with its body would be
// (upstreamError), under the status its type stands for
// (streamErrorStatus).
func (s *Service) streamErrorOf(c *call, resp *http.Response, ev []byte) *apierr.Error {
	if !bytes.Contains(ev, []byte("error")) {
		return nil // the usual event, unparsed
	}
	data, _ := sse.FirstData(ev)
	if len(data) == 0 || data[0] != '{' {
		return nil
	}
	res := gjson.GetManyBytes(data, "type", "error", "error.type", "error.code", "code")
	named := eventNamed(ev, "error")
	if !named && res[0].Str != "error" && !res[1].IsObject() {
		return nil
	}
	typ, code := res[2].Str, res[3].String()
	if !res[1].IsObject() {
		code = res[4].String() // the Responses API's error event
	}
	status := streamErrorStatus(typ, code)
	as := &http.Response{StatusCode: status, Header: resp.Header, Body: io.NopCloser(bytes.NewReader(data))}
	e := upstreamError(c.provider.Name(), as, s.Upstreams)
	if e.Code == nil && code != "" { // the Responses API's error event
		e.WithCode(s.Upstreams.redact(code))
	}
	return e
}

// eventNamed reports whether ev, a raw event, has an event: line naming
// name.
func eventNamed(ev []byte, name string) bool {
	for len(ev) > 0 {
		line := ev
		if i := bytes.IndexByte(ev, '\n'); i >= 0 {
			line, ev = ev[:i], ev[i+1:]
		} else {
			ev = nil
		}
		if v, ok := bytes.CutPrefix(line, []byte("event:")); ok {
			return string(bytes.TrimSpace(v)) == name
		}
	}
	return false
}

// streamErrorStatus is the HTTP status an upstream would have answered
// with for an error of type typ or code code that it sent in its stream
// instead (Anthropic's error types and OpenAI's types and codes): a
// request error keeps its 4xx, which failover does not cover; overloaded
// is 529, as Anthropic answers it; an error of unknown type is 502, a
// provider failure.
func streamErrorStatus(typ, code string) int {
	for _, t := range []string{typ, code} {
		switch t {
		case "invalid_request_error", "context_length_exceeded", "invalid_request":
			return http.StatusBadRequest
		case "authentication_error", "invalid_api_key":
			return http.StatusUnauthorized
		case "permission_error":
			return http.StatusForbidden
		case "not_found_error", "model_not_found":
			return http.StatusNotFound
		case "request_too_large":
			return http.StatusRequestEntityTooLarge
		case "rate_limit_error", "rate_limit_exceeded", "insufficient_quota":
			return http.StatusTooManyRequests
		case "overloaded_error", "server_overloaded":
			return 529
		case "api_error", "server_error", "internal_error":
			return http.StatusInternalServerError
		}
	}
	return http.StatusBadGateway
}

// replayBody is an upstream stream whose head holdStreamHead read: it
// yields the head again, then the rest of the stream (or, when the
// stream had ended while held, how it ended).
type replayBody struct {
	buf  *[]byte // holds head, from heldBuffers; given back once read
	head []byte
	rest io.ReadCloser
	err  error // the stream's end, met while held; nil: read on from rest
}

// Read implements io.Reader.
func (b *replayBody) Read(p []byte) (int, error) {
	if len(b.head) > 0 {
		n := copy(p, b.head)
		if b.head = b.head[n:]; len(b.head) == 0 {
			releaseHeld(b.buf)
			b.buf = nil
		}
		return n, nil
	}
	if b.err != nil {
		return 0, b.err
	}
	return b.rest.Read(p)
}

// Close implements io.Closer.
func (b *replayBody) Close() error { return b.rest.Close() }

// maxEventBytes is the event cap of the stream replayed (newEventReader).
func (b *replayBody) maxEventBytes() int {
	if c, ok := b.rest.(eventCapper); ok {
		return c.maxEventBytes()
	}
	return int(DefaultMaxEventBytes)
}

// releaseHeld gives buf, a buffer of heldBuffers, back for another
// stream, unless it grew too large to keep.
func releaseHeld(buf *[]byte) {
	if cap(*buf) <= maxHeldBuffer {
		*buf = (*buf)[:0]
		heldBuffers.Put(buf)
	}
}
