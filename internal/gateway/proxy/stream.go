package proxy

import (
	"bytes"
	"errors"
	"io"
	"net/http"

	"github.com/tidwall/gjson"
	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/platform/sse"
)

// relayStream copies a server-sent-event stream to the client one event at
// a time, so the client sees every event as soon as the upstream sends it
// (eventWriter says when it flushes). It records usage from the chunk that
// carries it and, when the gateway asked for usage on the client's
// behalf, drops the usage-only chunk and cuts the "usage":null asking
// added to the others (inspectEvent). It stops when either side goes
// away; the upstream request shares the client's context, so a client
// disconnect cancels it.
// How a failing upstream ends the stream is endStream's.
func (s *Service) relayStream(w http.ResponseWriter, r *http.Request, resp *http.Response, c *call) {
	events := newEventReader(resp.Body)
	defer events.Release()
	out := startEventStream(w, resp.StatusCode, events, c.info)
	defer out.close()
	for {
		ev, err := events.Next()
		// A last event that lacks only its blank line (as some upstreams
		// send it) passes on unchanged; a line cut short does not.
		if err != nil && !(err == io.EOF && endsLine(ev)) {
			s.endStream(r, &out, c, ev, err)
			return
		}
		if !c.raw {
			ev = c.inspectEvent(ev)
			c.keep.watchNative(ev)
		}
		if err != nil {
			out.end(ev)
			return
		}
		if !out.send(c.in, ev) {
			return
		}
	}
}

// endsLine reports whether b ends with a whole line.
func endsLine(b []byte) bool { return len(b) > 0 && b[len(b)-1] == '\n' }

// endStream finishes a native stream once reading the upstream stopped
// with err, leaving partial (what was read of an unfinished event) unsent:
//
//   - at the end of the upstream's body, between events or after a whole
//     line, the stream ends normally;
//   - when the upstream went silent (idle timeout) or sent an oversized
//     event, it ends with an error event in the client's shape; a
//     passthrough stream (c.raw), whose shape is the provider's own, is
//     aborted instead, as below;
//   - when the upstream reset the connection or stopped inside a line,
//     the client's connection is aborted (abortAnswer), so that its SDK
//     reports an error instead of taking the stream for a complete
//     answer. The panic (http.ErrAbortHandler) is how net/http aborts a
//     response without logging it; the caller's deferred releases run on
//     the way, and the audit stage completes the request's entry from the
//     failure recorded here (502 upstream_read_failed).
func (s *Service) endStream(r *http.Request, out *eventWriter, c *call, partial []byte, err error) {
	if err == io.EOF && len(partial) == 0 {
		out.end(nil)
		return
	}
	if r.Context().Err() != nil {
		return // the client went away; nobody to tell
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF // the stream stopped inside an event
	}
	e := readError(c.provider.Name(), err)
	c.answerFailed(e)
	s.logger().Warn("upstream stream failed", zap.String("provider", c.provider.Name()),
		zap.String("code", *e.Code), zap.Int("partial_event_bytes", len(partial)), zap.Error(err))
	if !c.raw && (errors.Is(err, errUpstreamTimeout) || errors.Is(err, sse.ErrEventTooLarge)) {
		out.end(streamErrorEvent(c.in, e))
		return
	}
	out.write(nil, true) // the whole events relayed so far
	abortAnswer()
}

// abortAnswer aborts the answer being written: the client's connection is
// cut (HTTP/1.1) or its stream reset (HTTP/2) without the answer's proper
// end, so that a client reading it gets an error, not a short answer that
// looks whole. The panic (http.ErrAbortHandler) is how net/http aborts a
// response without logging it; the callers' deferred releases and records
// run on the way.
func abortAnswer() {
	panic(http.ErrAbortHandler)
}

// inspectEvent records usage carried by ev and returns what of it goes
// to the client: ev; ev with the "usage":null the gateway's asking
// brought cut out, in place (see dropNullUsage); or nil.
func (c *call) inspectEvent(ev []byte) []byte {
	data, at := sse.FirstData(ev)
	if len(data) == 0 || data[0] != '{' {
		return ev
	}
	// Most chunks carry no usage or "usage":null; skip them unparsed.
	i := bytes.Index(data, usageKey)
	if i < 0 {
		return ev
	}
	if onlyNullUsage(data[i:]) {
		if c.askedUsage {
			return dropNullUsage(ev, at+len(data))
		}
		return ev
	}
	if !c.inspectUsage(data) {
		return nil
	}
	if c.askedUsage {
		// A chunk without usage of its own, parsed for a "usage" in a
		// string or a choice, still loses the null one the asking added.
		return dropNullUsage(ev, at+len(data))
	}
	return ev
}

// usageKey is the name of the member a chunk's usage is in, quoted.
var usageKey = []byte(`"usage"`)

// onlyNullUsage reports whether every "usage" member in data, which
// starts with one, is null. A null one may be nested in a choice, ahead
// of the chunk's own usage.
func onlyNullUsage(data []byte) bool {
	for {
		data = data[len(usageKey):]
		if !bytes.HasPrefix(data, []byte(":null")) {
			return false
		}
		i := bytes.Index(data, usageKey)
		if i < 0 {
			return true
		}
		data = data[i:]
	}
}

// nullUsage is the member a chat stream asked for its usage chunk ends
// every other chunk with, after the choices.
const nullUsage = `,"usage":null`

// dropNullUsage cuts the "usage":null member out of a chat chunk, in
// place, so that a client that did not ask for the usage chunk gets its
// chunks as it asked for them. The chunk's data is the JSON object ending
// at end in ev, on the event's one data line. The member is cut only
// where providers put it: last, or followed only by one string member
// (OpenAI's "obfuscation" padding). A "usage" member
// anywhere else is left as it is.
func dropNullUsage(ev []byte, end int) []byte {
	if end < 1 || ev[end-1] != '}' || bytes.Contains(ev[end:], []byte("data:")) {
		return ev
	}
	at := end - 1 // where the member would end
	if ev[at-1] == '"' {
		// One last string member: ,"name":"value". The quotes found
		// must be unescaped ones, the colon and comma around them show:
		// an escaped quote has a backslash before it.
		v := bytes.LastIndexByte(ev[:at-1], '"')
		if v < 2 || ev[v-1] != ':' || ev[v-2] != '"' {
			return ev
		}
		k := bytes.LastIndexByte(ev[:v-2], '"')
		if k < 1 || ev[k-1] != ',' {
			return ev
		}
		at = k - 1
	}
	if at < len(nullUsage) || string(ev[at-len(nullUsage):at]) != nullUsage {
		return ev
	}
	return append(ev[:at-len(nullUsage)], ev[at:]...)
}

// inspectUsage records the usage in data, a chunk whose "usage" is not
// null, and reports whether the chunk goes to the client.
func (c *call) inspectUsage(data []byte) bool {
	switch c.ep {
	case providers.EndpointMessages:
		c.inspectAnthropicEvent(data)
		return true
	case providers.EndpointResponses:
		ru := gjson.GetBytes(data, "response.usage")
		if u, ok := translate.ResponsesUsage(ru); ok {
			c.setUsage(u)
			c.noteCost(ru)
		}
		return true
	case providers.EndpointTranscriptions, providers.EndpointSpeech:
		// The closing event (transcript.text.done, speech.audio.done)
		// carries the usage as a whole transcription answer does: tokens,
		// or the seconds of audio transcribed. A speech stream's
		// characters are recorded when it ends well.
		if u, ok := bodyUsage(providers.EndpointTranscriptions, data); ok {
			c.setUsage(u)
		}
		if c.ep == providers.EndpointTranscriptions {
			recordUnits(c, data)
		}
		return true
	}
	cu := gjson.GetBytes(data, "usage")
	usage, ok := translate.ChatUsage(cu)
	if !ok {
		return true
	}
	c.setUsage(usage)
	c.noteCost(cu)
	if c.wantUsage {
		return true
	}
	// The chunk the gateway asked for: usage only, no choices.
	choices := gjson.GetBytes(data, "choices")
	return !(choices.IsArray() && choices.Get("#").Int() == 0)
}

// inspectAnthropicEvent accumulates usage over message_start (input side)
// and message_delta (cumulative counts) events.
func (c *call) inspectAnthropicEvent(data []byte) {
	res := gjson.GetManyBytes(data, "type", "message.usage", "usage")
	switch res[0].Str {
	case "message_start":
		c.anthropicTokens.Merge(res[1])
	case "message_delta":
		c.anthropicTokens.Merge(res[2])
	default:
		return
	}
	c.setUsage(c.anthropicTokens.Usage())
}

// eventCapper is a body that knows the event cap of its stream
// (upstreamBody).
type eventCapper interface{ maxEventBytes() int }

// newEventReader returns a reader of the events of r, accepting events up
// to r's cap when r is an upstream body, else up to DefaultMaxEventBytes.
func newEventReader(r io.Reader) *sse.Reader {
	max := int(DefaultMaxEventBytes)
	if c, ok := r.(eventCapper); ok {
		max = c.maxEventBytes()
	}
	return sse.NewReader(r, max)
}
