package translate

import (
	"bytes"
	"errors"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"
)

// ChatToResponsesStream translates a streamed Chat Completions answer into
// the Responses API's server-sent events, one upstream chunk at a time.
//
// The events follow the Responses API's order: response.created and
// response.in_progress on the first chunk; then, per output item,
// response.output_item.added, its content or argument events
// (content_part.added, output_text / refusal / reasoning_text deltas and
// done, content_part.done; or function_call_arguments delta and done) and
// response.output_item.done; finally response.completed (or
// response.incomplete when the upstream stopped at its token limit or a
// content filter) carrying the whole response and its usage. An upstream
// error chunk ends the stream with response.failed. Every event carries
// type and a sequence_number that starts at 0 and grows by one.
//
// Items are emitted one after another: an item is done when the next one
// starts, as on the Responses API. A tool call's arguments that arrive
// after a later tool call has started cannot be expressed that way and
// end the stream with response.failed.
//
// A ChatToResponsesStream is not safe for concurrent use.
type ChatToResponsesStream struct {
	h        respHead
	started  bool
	done     bool
	seq      int64
	items    []respItem
	cur      int    // index in items of the open item, -1 when none
	finish   string // the upstream's finish_reason
	usage    Usage
	hasUsage bool
	counts   [4]int // items started per kind, for ids
	out      []byte // events returned by the current call
	ev       respWriter
}

// NewChatToResponsesStream starts a translation for the client's original
// Responses request req, whose settings the response objects echo.
func NewChatToResponsesStream(req []byte) *ChatToResponsesStream {
	return &ChatToResponsesStream{h: respHead{echo: newRespEcho(req)}, cur: -1}
}

// Usage returns the token usage the upstream reported; ok is false when it
// sent none (the final response's usage is then null).
func (s *ChatToResponsesStream) Usage() (Usage, bool) {
	return s.usage, s.hasUsage
}

// Feed takes one upstream event (a chat.completion.chunk, an error chunk
// or the closing "[DONE]") and returns the Responses events it produces,
// SSE-encoded, possibly none. The returned slice is reused by the next
// call to Feed or Finish. After "[DONE]" or an error the stream is over
// and further events are ignored. A chunk that is not valid JSON ends the
// stream with response.failed, returned together with a non-nil error.
func (s *ChatToResponsesStream) Feed(ev Event) ([]byte, error) {
	s.out = s.out[:0]
	if s.done {
		return nil, nil
	}
	data := bytes.TrimSpace(ev.Data)
	if len(data) == 0 {
		return nil, nil
	}
	if string(data) == "[DONE]" {
		if !s.started {
			s.start(&respChatTop{})
			s.fail("server_error", "upstream stream ended without sending a response")
			return s.out, nil
		}
		s.complete()
		return s.out, nil
	}
	if !gjson.ValidBytes(data) {
		s.start(&respChatTop{})
		s.fail("server_error", "upstream sent an invalid stream chunk")
		return s.out, errors.New("translate: upstream stream chunk is not valid JSON")
	}
	// data outlives no gjson result: every value kept is copied.
	root := gjson.Parse(unsafe.String(unsafe.SliceData(data), len(data)))
	top := respReadChatTop(root)
	s.start(&top)
	if top.err.Exists() && top.err.Type != gjson.Null {
		s.upstreamError(top.err, data)
		return s.out, nil
	}
	if ev.Name == "error" {
		// An "event: error" whose data is the error object itself.
		s.upstreamError(root, data)
		return s.out, nil
	}
	if u, ok := ChatUsage(top.usage); ok {
		s.usage, s.hasUsage = u, true
	}
	choice := top.choices.Get("0")
	if !choice.Exists() {
		return s.out, nil
	}
	var delta, finish gjson.Result
	choice.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "delta":
			delta = v
		case "finish_reason":
			finish = v
		}
		return true
	})
	var content, refusal, reasoning, reasoningContent, toolCalls gjson.Result
	delta.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "content":
			content = v
		case "refusal":
			refusal = v
		case "reasoning_content":
			reasoningContent = v
		case "reasoning":
			reasoning = v
		case "tool_calls":
			toolCalls = v
		}
		return true
	})
	if reasoningContent.Type == gjson.String && reasoningContent.Str != "" {
		reasoning = reasoningContent
	}
	if reasoning.Type == gjson.String && reasoning.Str != "" {
		s.reasoningDelta(reasoning)
	}
	if content.Type == gjson.String && content.Str != "" {
		s.messageDelta(respPartText, content)
	}
	if refusal.Type == gjson.String && refusal.Str != "" {
		s.messageDelta(respPartRefusal, refusal)
	}
	if toolCalls.IsArray() {
		ok := true
		toolCalls.ForEach(func(_, tc gjson.Result) bool {
			ok = s.toolDelta(tc)
			return ok
		})
		if !ok {
			return s.out, nil
		}
	}
	if finish.Type == gjson.String && finish.Str != "" {
		s.finish = finish.Str
	}
	return s.out, nil
}

// Finish ends the translation when the upstream stream has ended, and
// returns the closing events: response.completed (or response.incomplete)
// when the upstream finished its answer without sending "[DONE]",
// response.failed when it stopped before finishing, nothing when the
// stream is already over. The returned slice is reused by later calls.
func (s *ChatToResponsesStream) Finish() []byte {
	s.out = s.out[:0]
	if s.done {
		return nil
	}
	if !s.started {
		s.start(&respChatTop{})
		s.fail("server_error", "upstream stream ended without sending a response")
		return s.out
	}
	if s.finish == "" {
		s.fail("server_error", "upstream stream ended before the response was complete")
		return s.out
	}
	s.complete()
	return s.out
}

// start emits response.created and response.in_progress once, taking the
// id, creation time and model from the first chunk.
func (s *ChatToResponsesStream) start(top *respChatTop) {
	if s.started {
		return
	}
	s.started = true
	s.h.setTop(top)
	for _, typ := range [...]string{"response.created", "response.in_progress"} {
		w := s.begin(typ)
		w.key("response")
		s.h.writeResponse(w, respInProgress, 0, "", nil, nil, nil)
		s.end(typ)
	}
}

// complete closes the open item and emits response.completed, or
// response.incomplete when the upstream stopped at a limit.
func (s *ChatToResponsesStream) complete() {
	incomplete := respIncompleteReason(s.finish)
	status := respCompleted
	if incomplete != "" {
		status = respIncomplete
	}
	if len(s.items) == 0 {
		// An empty answer is still a message with empty text.
		s.open(respKindMessage, nil, nil, -1)
		s.openPart(respPartText)
	}
	s.closeCur(status)
	typ := "response.completed"
	var completedAt int64
	if status == respCompleted {
		completedAt = time.Now().Unix()
	} else {
		typ = "response.incomplete"
	}
	var usage *Usage
	if s.hasUsage {
		usage = &s.usage
	}
	w := s.begin(typ)
	w.key("response")
	s.h.writeResponse(w, status, completedAt, incomplete, nil, s.items, usage)
	s.end(typ)
	s.done = true
}

// upstreamError ends the stream with response.failed for an upstream
// error chunk ({"error": {...}}).
func (s *ChatToResponsesStream) upstreamError(errv gjson.Result, data []byte) {
	code := errv.Get("code")
	msg := errv.Get("message").String()
	if msg == "" {
		if errv.Type == gjson.String {
			msg = errv.Str
		} else {
			msg = "upstream error: " + string(data)
		}
	}
	c := "server_error"
	if code.Type == gjson.String && code.Str != "" {
		c = code.Str
	} else if errv.Get("type").Str == "rate_limit_error" {
		c = "rate_limit_exceeded"
	}
	s.fail(c, msg)
}

// fail emits response.failed with the output so far and ends the stream.
func (s *ChatToResponsesStream) fail(code, message string) {
	for i := range s.items {
		if !s.items[i].done {
			s.items[i].status = respIncomplete
		}
	}
	var e respWriter
	e.obj()
	e.key("code")
	e.str(code)
	e.key("message")
	e.str(message)
	e.endObj()
	var usage *Usage
	if s.hasUsage {
		usage = &s.usage
	}
	w := s.begin("response.failed")
	w.key("response")
	s.h.writeResponse(w, respFailed, 0, "", e.buf, s.items, usage)
	s.end("response.failed")
	s.done = true
}

// begin starts an event's JSON object with its type.
func (s *ChatToResponsesStream) begin(typ string) *respWriter {
	s.ev.buf = s.ev.buf[:0]
	s.ev.comma = false
	s.ev.obj()
	s.ev.key("type")
	s.ev.str(typ)
	return &s.ev
}

// end adds the sequence number, closes the event and appends it to out.
func (s *ChatToResponsesStream) end(typ string) {
	s.ev.key("sequence_number")
	s.ev.int(s.seq)
	s.seq++
	s.ev.endObj()
	s.out = AppendEvent(s.out, typ, s.ev.buf)
}
