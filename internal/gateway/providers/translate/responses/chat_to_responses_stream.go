package responses

import (
	"bytes"
	"errors"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/platform/sse"
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
	h        head
	started  bool
	done     bool
	seq      int64
	items    []outputItem
	cur      int    // index in items of the open item, -1 when none
	finish   string // the upstream's finish_reason
	usage    catalog.Usage
	hasUsage bool
	counts   [4]int                // items started per kind, for ids
	out      translate.EventWriter // events returned by the current call
}

// NewChatToResponsesStream starts a translation for the client's original
// Responses request req, whose settings the response objects echo.
func NewChatToResponsesStream(req []byte) *ChatToResponsesStream {
	return NewChatToResponsesStreamStored(req, nil)
}

// NewChatToResponsesStreamStored is NewChatToResponsesStream for a
// response the gateway keeps as st says (nil: none).
func NewChatToResponsesStreamStored(req []byte, st *Stored) *ChatToResponsesStream {
	return &ChatToResponsesStream{h: head{echo: newEchoStored(req, st)}, cur: -1}
}

// Usage returns the token usage the upstream reported; ok is false when it
// sent none (the final response's usage is then null).
func (s *ChatToResponsesStream) Usage() (catalog.Usage, bool) {
	return s.usage, s.hasUsage
}

// Output is the writer Feed and Finish write to, for Chain.
func (s *ChatToResponsesStream) Output() *translate.EventWriter { return &s.out }

// Feed takes one upstream event (a chat.completion.chunk, an error chunk
// or the closing "[DONE]") and returns the Responses events it produces,
// SSE-encoded, possibly none. The returned slice is reused by the next
// call to Feed, Finish or Abort. After "[DONE]" or an error the stream is
// over and further events are ignored. A chunk that is not valid JSON
// (a "data: keep-alive" line) is an error: nothing is sent for it and the
// stream goes on.
func (s *ChatToResponsesStream) Feed(ev sse.Event) ([]byte, error) {
	s.out.Reset()
	if s.done {
		return nil, nil
	}
	data := bytes.TrimSpace(ev.Data)
	if len(data) == 0 {
		return nil, nil
	}
	if string(data) == "[DONE]" {
		if !s.started {
			s.start(&chatTop{})
			s.fail("server_error", "upstream stream ended without sending a response")
			return s.out.Buf, nil
		}
		s.complete()
		return s.out.Buf, nil
	}
	if !gjson.ValidBytes(data) {
		return nil, errors.New("chat stream chunk is not valid JSON")
	}
	// data outlives no gjson result: every value kept is copied.
	root := translate.ParseBorrowed(data)
	top := readChatTop(root)
	s.start(&top)
	if top.err.Exists() && top.err.Type != gjson.Null {
		s.upstreamError(top.err, data)
		return s.out.Buf, nil
	}
	if ev.Name == "error" {
		// An "event: error" whose data is the error object itself.
		s.upstreamError(root, data)
		return s.out.Buf, nil
	}
	if u, ok := translate.ChatUsage(top.usage); ok {
		s.usage, s.hasUsage = u, true
	}
	choice := top.choices.Get("0")
	if !choice.Exists() {
		return s.out.Buf, nil
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
		s.messageDelta(partText, content)
	}
	if refusal.Type == gjson.String && refusal.Str != "" {
		s.messageDelta(partRefusal, refusal)
	}
	if toolCalls.IsArray() {
		ok := true
		toolCalls.ForEach(func(_, tc gjson.Result) bool {
			ok = s.toolDelta(tc)
			return ok
		})
		if !ok {
			return s.out.Buf, nil
		}
	}
	if finish.Type == gjson.String && finish.Str != "" {
		// Copied: the event's data is borrowed, and under Chain the
		// first converter writes its next event over it.
		s.finish = strings.Clone(finish.Str)
	}
	return s.out.Buf, nil
}

// Finish ends the translation when the upstream stream has ended, and
// returns the closing events: response.completed (or response.incomplete)
// when the upstream finished its answer without sending "[DONE]",
// response.failed when it stopped before finishing, nothing when the
// stream is already over. The returned slice is reused by later calls.
func (s *ChatToResponsesStream) Finish() []byte {
	s.out.Reset()
	if s.done {
		return nil
	}
	if !s.started {
		s.start(&chatTop{})
		s.fail("server_error", "upstream stream ended without sending a response")
		return s.out.Buf
	}
	if s.finish == "" {
		s.fail("server_error", "upstream stream ended before the response was complete")
		return s.out.Buf
	}
	s.complete()
	return s.out.Buf
}

// Abort ends the stream with response.failed (error code server_error,
// the Responses API's code for a failure on the server's side, and
// message), whatever was received; the output so far is marked
// incomplete. code, a gateway error code, is not shown: the Responses
// API's error codes are a fixed list. It returns nothing when the stream
// already ended.
func (s *ChatToResponsesStream) Abort(_, message string) []byte {
	s.out.Reset()
	if s.done {
		return nil
	}
	s.start(&chatTop{})
	s.fail("server_error", message)
	return s.out.Buf
}

// start emits response.created and response.in_progress once, taking the
// id, creation time and model from the first chunk.
func (s *ChatToResponsesStream) start(top *chatTop) {
	if s.started {
		return
	}
	s.started = true
	s.h.setTop(top)
	for _, typ := range [...]string{"response.created", "response.in_progress"} {
		w := s.begin(typ)
		w.Key("response")
		s.h.writeResponse(w, statusInProgress, 0, "", nil, nil, nil)
		s.end()
	}
}

// complete closes the open item and emits response.completed, or
// response.incomplete when the upstream stopped at a limit.
func (s *ChatToResponsesStream) complete() {
	incomplete := incompleteReason(s.finish)
	status := statusCompleted
	if incomplete != "" {
		status = statusIncomplete
	}
	if len(s.items) == 0 {
		// An empty answer is still a message with empty text.
		s.open(kindMessage, nil, nil, -1)
		s.openPart(partText)
	}
	s.closeCur(status)
	typ := "response.completed"
	var completedAt int64
	if status == statusCompleted {
		completedAt = time.Now().Unix()
	} else {
		typ = "response.incomplete"
	}
	var usage *catalog.Usage
	if s.hasUsage {
		usage = &s.usage
	}
	w := s.begin(typ)
	w.Key("response")
	s.h.writeResponse(w, status, completedAt, incomplete, nil, s.items, usage)
	s.end()
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
			s.items[i].status = statusIncomplete
		}
	}
	var e translate.Writer
	e.Obj()
	e.Key("code")
	e.Str(code)
	e.Key("message")
	e.Str(message)
	e.EndObj()
	var usage *catalog.Usage
	if s.hasUsage {
		usage = &s.usage
	}
	w := s.begin("response.failed")
	w.Key("response")
	s.h.writeResponse(w, statusFailed, 0, "", e.Buf, s.items, usage)
	s.end()
	s.done = true
}

// begin starts an event's JSON object with its type.
func (s *ChatToResponsesStream) begin(typ string) *translate.Writer {
	s.out.Begin(typ)
	s.out.Obj()
	s.out.KeyStr("type", typ)
	return &s.out.Writer
}

// end adds the sequence number and closes the event.
func (s *ChatToResponsesStream) end() {
	s.out.KeyInt("sequence_number", s.seq)
	s.seq++
	s.out.EndObj()
	s.out.End()
}
