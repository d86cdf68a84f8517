package proxy

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/providers"
	"github.com/modelgate/modelgate/providers/translate"
)

// relayStream copies a server-sent-event stream to the client one event at
// a time, so the client sees every event as soon as the upstream sends it
// (eventWriter says when it flushes). It records usage from the chunk that
// carries it and drops the usage-only chunk the gateway asked for on the
// client's behalf. It stops when either side goes away; the upstream
// request shares the client's context, so a client disconnect cancels it.
func relayStream(w http.ResponseWriter, resp *http.Response, c *call) {
	events := newEventReader(resp.Body)
	defer events.release()
	out := startEventStream(w, resp.StatusCode, events)
	for {
		ev, err := events.next()
		if len(ev) > 0 && !c.inspectEvent(ev) {
			ev = nil
		}
		if !out.write(ev, err != nil) || err != nil {
			return
		}
	}
}

// inspectEvent records usage carried by ev and reports whether ev goes to
// the client.
func (c *call) inspectEvent(ev []byte) bool {
	data := eventData(ev)
	if len(data) == 0 || data[0] != '{' {
		return true
	}
	// Most chunks carry no usage or "usage":null; skip them unparsed.
	i := bytes.Index(data, []byte(`"usage"`))
	if i < 0 || bytes.HasPrefix(data[i+len(`"usage"`):], []byte(":null")) {
		return true
	}
	switch c.ep {
	case providers.EndpointMessages:
		c.inspectAnthropicEvent(data)
		return true
	case providers.EndpointResponses:
		if u, ok := translate.ResponsesUsage(gjson.GetBytes(data, "response.usage")); ok {
			c.info.SetUsage(u)
		}
		return true
	}
	usage, ok := translate.ChatUsage(gjson.GetBytes(data, "usage"))
	if !ok {
		return true
	}
	c.info.SetUsage(usage)
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
	c.info.SetUsage(c.anthropicTokens.Usage())
}

// eventData returns the payload of the event's first data field.
func eventData(ev []byte) []byte {
	for len(ev) > 0 {
		line := ev
		if i := bytes.IndexByte(ev, '\n'); i >= 0 {
			line, ev = ev[:i], ev[i+1:]
		} else {
			ev = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			return bytes.TrimPrefix(rest, []byte{' '})
		}
	}
	return nil
}

// eventReader splits a byte stream into server-sent events, each returned
// with its terminating blank line, byte for byte as received. It is written
// here rather than taken from an SSE library because the gateway must pass
// events through unchanged; the libraries parse into fields and re-encode.
type eventReader struct {
	r   *bufio.Reader
	buf []byte
}

// readerPool recycles the 16 KiB read buffers of finished streams.
var readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 16<<10) }}

func newEventReader(r io.Reader) *eventReader {
	br := readerPool.Get().(*bufio.Reader)
	br.Reset(r)
	return &eventReader{r: br}
}

// release returns the read buffer to the pool; the reader is unusable
// afterwards.
func (e *eventReader) release() {
	e.r.Reset(nil)
	readerPool.Put(e.r)
	e.r = nil
}

// next returns the next complete event. At the end of the stream it
// returns whatever was left (possibly an unterminated event) and the error.
// The returned slice is valid until the next call.
func (e *eventReader) next() ([]byte, error) {
	e.buf = e.buf[:0]
	for {
		line, err := e.r.ReadSlice('\n')
		e.buf = append(e.buf, line...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return e.buf, err
		}
		if isBlankLine(line) {
			// End of an event (or a stray blank line, passed on as is).
			return e.buf, nil
		}
	}
}

// pending reports whether a whole event is already buffered, so that next
// returns it without waiting for the upstream. next ends an event at the
// first blank line, so it looks at the start of each buffered line up to
// the first blank one: it reads only as far as the next event's end.
func (e *eventReader) pending() bool {
	b, _ := e.r.Peek(e.r.Buffered())
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return false
		}
		if isBlankLine(b[:i+1]) {
			return true
		}
		b = b[i+1:]
	}
}

func isBlankLine(line []byte) bool {
	return len(line) == 1 || (len(line) == 2 && line[0] == '\r')
}
