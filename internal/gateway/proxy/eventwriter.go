package proxy

import (
	"bytes"
	"net/http"
	"sync"
	"time"

	"github.com/modelgate/modelgate/internal/platform/sse"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// eventWriter sends a server-sent-event stream to the client. Events that
// arrived together leave together, in one write and one flush, and none
// waits for the next: while the upstream has a further whole event
// buffered, an event waits in held (every write to the connection re-arms
// its write deadline, so one write per flush instead of one per event
// saves that work).
type eventWriter struct {
	w         http.ResponseWriter
	rc        http.ResponseController // a value, so the writer can live on the stack
	events    *sse.Reader
	info      *reqinfo.Info
	unflushed bool
	// head holds the headers back until the first write; nil once the
	// first write settled it.
	head *heldHeaders
	// held are the events waiting for the ones buffered after them; nil
	// until the first event waits.
	held *[]byte
	// content: an event carrying the answer's content was handed to the
	// writer (see hasContent); firstToken: it is not yet written, and the
	// write that sends it marks the request's first token.
	content, firstToken bool
}

// heldBuffers recycles the buffers of held events across streams.
var heldBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// headerWait is how long a stream's headers wait for its first event.
// Upstreams send their first event with or right after their headers, and
// the two then leave together in one write; an upstream that is slower
// to start still has its client learn within this time that the stream
// has begun. A variable only so that tests can lengthen it.
var headerWait = 50 * time.Millisecond

// heldHeaders are a stream's headers, written but not flushed, until the
// stream's first write or headerWait, whichever comes first. Until the
// first write the handler's goroutine is reading the upstream and does
// not touch the writer, so the timer's goroutine may flush it; mu orders
// the two.
type heldHeaders struct {
	mu      sync.Mutex
	settled bool // flushed by the timer, or left to the first write
	timer   *time.Timer
}

// startEventStream writes the status and the streaming headers and
// returns the writer for the events read from events. The headers leave
// with the first event, or on their own after headerWait when the
// upstream sends none by then. The request's answer stays open
// (info.AnswerOpen) until end sends the last part. The caller calls
// settle before it returns.
func startEventStream(w http.ResponseWriter, status int, events *sse.Reader, info *reqinfo.Info) eventWriter {
	info.AnswerOpen = true
	h := w.Header()
	h.Del("Content-Length")
	// The gateway's defaults for a stream; a passthrough answer keeps the
	// upstream's own.
	if _, ok := h["Cache-Control"]; !ok {
		h.Set("Cache-Control", "no-cache")
	}
	if _, ok := h["X-Accel-Buffering"]; !ok {
		h.Set("X-Accel-Buffering", "no")
	}
	w.WriteHeader(status)
	ew := eventWriter{w: w, rc: *http.NewResponseController(w), events: events, info: info, head: &heldHeaders{}}
	head := ew.head
	head.timer = time.AfterFunc(headerWait, func() {
		head.mu.Lock()
		defer head.mu.Unlock()
		if !head.settled {
			head.settled = true
			_ = Flush(w)
		}
	})
	return ew
}

// settle ends the headers' wait: from now on only the caller's goroutine
// writes, and the headers leave with whatever it writes next (or when the
// handler returns). A flush the timer began finishes first. It reports
// whether the headers are still unsent, which they are unless the timer
// flushed them.
func (ew *eventWriter) settle() (unsent bool) {
	if ew.head == nil {
		return false
	}
	ew.head.timer.Stop()
	ew.head.mu.Lock()
	unsent = !ew.head.settled
	ew.head.settled = true
	ew.head.mu.Unlock()
	ew.head = nil
	return unsent
}

// write sends b (which may be empty) with the events held before it and
// flushes, unless another whole upstream event is already buffered: then
// b waits for it (see eventWriter). last forces the write and the flush,
// of the headers too when they are still held back. An empty b that is
// not the last leaves held headers to their timer, so upstream events
// that give the client nothing (keep-alives) do not hold them back
// longer. It reports false once the client is gone.
func (ew *eventWriter) write(b []byte, last bool) bool {
	if !last && ew.events.Pending() {
		ew.hold(b)
		return true
	}
	return ew.put(b, last) && ew.flush()
}

// hold keeps a copy of b until the next put.
func (ew *eventWriter) hold(b []byte) {
	if len(b) == 0 {
		return
	}
	if ew.held == nil {
		ew.held = heldBuffers.Get().(*[]byte)
	}
	*ew.held = append(*ew.held, b...)
}

// heldLen is the length of the events held.
func (ew *eventWriter) heldLen() int {
	if ew.held == nil {
		return 0
	}
	return len(*ew.held)
}

// put hands the held events and b to the connection in one write,
// settling held headers when that is not empty or is the last part,
// without flushing. It reports false once the client is gone.
func (ew *eventWriter) put(b []byte, last bool) bool {
	if ew.heldLen() > 0 {
		*ew.held = append(*ew.held, b...)
		b = *ew.held
		*ew.held = (*ew.held)[:0] // b stays valid: the write copies it
	}
	if ew.head != nil && (len(b) > 0 || last) && ew.settle() {
		ew.unflushed = true // the headers
	}
	if len(b) > 0 {
		if _, err := ew.w.Write(b); err != nil {
			return false
		}
		ew.unflushed = true
		if ew.firstToken {
			ew.firstToken = false
			ew.info.MarkFirstToken(time.Now())
		}
	}
	return true
}

// flush sends what put left unsent. It reports false once the client is
// gone.
func (ew *eventWriter) flush() bool {
	if ew.unflushed {
		ew.unflushed = false
		return ew.rc.Flush() == nil
	}
	return true
}

// close ends the stream's writing: it settles the headers (see settle)
// and gives back the buffer of held events. The caller calls it before it
// returns; events still held then are dropped with the stream, which
// ends without them only when the client is gone.
func (ew *eventWriter) close() {
	ew.settle()
	if ew.held != nil {
		*ew.held = (*ew.held)[:0]
		if cap(*ew.held) <= maxHeldBuffer {
			heldBuffers.Put(ew.held)
		}
		ew.held = nil
	}
}

// maxHeldBuffer is the largest buffer of held events kept for another
// stream: a burst of large events may grow one far beyond the usual.
const maxHeldBuffer = 64 << 10

// send sends b as the next part of the stream for a client of ingress
// in: when b holds the stream's closing event (see closesStream) it is
// flushed at once and the answer is whole from then on, so a client that
// closes the connection on that event (as agents do) got its answer. It
// reports false if the client is gone.
func (ew *eventWriter) send(in ingress, b []byte) bool {
	if !ew.content && hasContent(in, b) {
		ew.content, ew.firstToken = true, true
	}
	if closesStream(in, b) {
		return ew.end(b)
	}
	return ew.write(b, false)
}

// hasContent reports whether b, events sent to a client of ingress in,
// carries some of the answer's content, the first token the client sees:
// a chat chunk whose delta has text, a refusal, reasoning or a tool call;
// a Messages content_block_delta; a Responses *.delta event. For any
// other shape (passthrough, audio) every event with data counts. It is
// asked only until the first such event.
func hasContent(in ingress, b []byte) bool {
	switch in {
	case ingressChat:
		return bytes.Contains(b, []byte(`"tool_calls":[`)) || hasText(b, `"content":`) ||
			hasText(b, `"reasoning_content":`) || hasText(b, `"refusal":`)
	case ingressMessages:
		return bytes.Contains(b, []byte("event: content_block_delta"))
	case ingressResponses:
		return bytes.Contains(b, []byte("event: response.")) && bytes.Contains(b, []byte(".delta\n"))
	}
	return bytes.Contains(b, []byte("data:"))
}

// hasText reports whether a member named by key (its quoted name and
// colon) has a non-empty string value somewhere in b.
func hasText(b []byte, key string) bool {
	for {
		i := bytes.Index(b, []byte(key))
		if i < 0 {
			return false
		}
		b = bytes.TrimLeft(b[i+len(key):], " ")
		if len(b) > 1 && b[0] == '"' && b[1] != '"' {
			return true
		}
	}
}

// closesStream reports whether b, events sent to a client of ingress in,
// holds the event that closes that shape's stream: data [DONE] for Chat
// Completions, message_stop for Messages, response.completed,
// response.incomplete or response.failed for Responses. Only an event
// whose first line is the marker counts; the check looks at the start of
// each event, never into its data.
func closesStream(in ingress, b []byte) bool {
	var markers []string
	switch in {
	case ingressChat:
		markers = chatClosing
	case ingressMessages:
		markers = messagesClosing
	case ingressResponses:
		markers = responsesClosing
	default:
		return false
	}
	for {
		for _, m := range markers {
			if bytes.HasPrefix(b, []byte(m)) {
				return true
			}
		}
		i := bytes.Index(b, []byte("\n\n"))
		if i < 0 {
			return false
		}
		b = b[i+2:]
	}
}

// The first lines of the events that close a stream, per client shape.
var (
	chatClosing      = []string{"data: [DONE]", "data:[DONE]"}
	messagesClosing  = []string{"event: message_stop"}
	responsesClosing = []string{"event: response.completed", "event: response.incomplete", "event: response.failed"}
)

// end sends b, the stream's last part, after the events held before it,
// and flushes; the answer is whole once the flush succeeded. When what it
// writes is large enough that the write itself may send it
// (SentByWrite), it is whole once the write succeeded: a client that
// closes the connection on the stream's closing event (as agents do) may
// be gone before the flush that follows, with the whole answer. It
// reports false if the client is gone.
func (ew *eventWriter) end(b []byte) bool {
	n := ew.heldLen() + len(b)
	if !ew.put(b, true) {
		return false
	}
	if SentByWrite(n) {
		ew.info.AnswerOpen = false
	}
	if !ew.flush() {
		return false
	}
	ew.info.AnswerOpen = false
	return true
}

// writeBuffer is how much of a response net/http holds back until the
// next flush: a write at least this large may reach the client before it
// returns, one smaller waits whole in the server's buffers.
const writeBuffer = 4 << 10

// SentByWrite reports whether a write of n bytes to a client may reach
// the client before the write returns, without a flush. When it is the
// answer's last part, a client that closes the connection on it (as
// coding agents do on a stream's closing event) may be gone before the
// flush that follows, having got the whole answer; a smaller last part
// reaches the client only through that flush.
func SentByWrite(n int) bool { return n >= writeBuffer }
