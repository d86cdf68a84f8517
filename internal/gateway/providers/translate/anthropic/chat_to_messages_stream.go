package anthropic

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/platform/sse"
)

// ChatToMessagesStream converts an OpenAI chat completion chunk stream into
// an Anthropic Messages event stream. Feed it each upstream event in order
// (including the final "[DONE]") and call Finish at the end of the
// upstream stream. It is not safe for concurrent use.
//
// The first chunk yields message_start. delta.reasoning_content (or
// delta.reasoning) opens a thinking block, delta.content (and
// delta.refusal) a text block, each tool call a tool_use block whose
// arguments fragments become input_json_delta events; a block is closed
// when the next one opens or the choice finishes, so blocks are strictly
// sequential with indexes 0, 1, 2, ... Should an upstream interleave the
// argument fragments of several tool calls, a late fragment is still sent
// under its own block's index. Since usage may arrive after the
// finish_reason (in a final chunk with empty choices), message_delta
// (stop_reason and usage) and message_stop are sent at [DONE], or by
// Finish if [DONE] never came.
//
// An OpenAI upstream reports usage only at the end, so message_start
// carries the gateway's estimate of the prompt (see
// EstimateMessagesInputTokens) as input_tokens, with output_tokens 0, and
// message_delta the upstream's final counts, which replace it. Without any
// usage from the upstream, message_delta repeats the estimate.
type ChatToMessagesStream struct {
	model string
	req   []byte // the client's Messages request, for the input estimate

	out       translate.EventWriter
	started   bool
	done      bool
	open      int // index of the open block, -1 when none
	openKind  uint8
	next      int   // index of the next block
	toolBlock []int // chat tool call index → block index
	finish    string
	refused   bool
	usage     catalog.Usage
	hasUsage  bool
	estimate  int64 // estimated input tokens, set by start
}

// NewChatToMessagesStream returns a converter reporting model (the name the
// client asked for; "" keeps the upstream's). req is the client's Messages
// request, whose input tokens message_start estimates; it is read only
// when the stream starts and must stay unchanged until then.
func NewChatToMessagesStream(model string, req []byte) *ChatToMessagesStream {
	return &ChatToMessagesStream{model: model, req: req, open: -1}
}

// Usage returns the usage the upstream reported and whether it reported
// any (an OpenAI upstream only does when asked with
// stream_options.include_usage).
func (s *ChatToMessagesStream) Usage() (catalog.Usage, bool) {
	return s.usage, s.hasUsage
}

// Output is the writer Feed and Finish write to, for Chain.
func (s *ChatToMessagesStream) Output() *translate.EventWriter { return &s.out }

var doneData = []byte("[DONE]")

// Feed converts one upstream event and returns the Anthropic events to
// send, possibly none. The returned slice is reused by the next call to
// Feed, Finish or Abort. An error means the chunk was not valid JSON:
// nothing is sent for it and the stream can go on.
func (s *ChatToMessagesStream) Feed(ev sse.Event) ([]byte, error) {
	s.out.Reset()
	if s.done {
		return nil, nil
	}
	data := bytes.TrimSpace(ev.Data)
	if len(data) == 0 {
		return nil, nil // a keep-alive
	}
	if bytes.Equal(data, doneData) {
		s.end()
		return s.out.Buf, nil
	}
	if !gjson.ValidBytes(data) {
		return nil, errors.New("chat stream chunk is not valid JSON")
	}
	// One pass over the chunk's members.
	var errv, usage, choices, id, model gjson.Result
	translate.ParseBorrowed(data).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "choices":
			choices = v
		case "usage":
			usage = v
		case "id":
			id = v
		case "model":
			model = v
		case "error":
			errv = v
		}
		return true
	})
	if translate.IsSet(errv) {
		msg := errv.Get("message").Str
		if errv.Type == gjson.String {
			msg = errv.Str
		}
		s.errorEvent(chatErrorTypeToAnthropic(errv.Get("type").Str, errv.Get("code").String()), msg)
		return s.out.Buf, nil
	}
	if !s.started {
		s.start(id, model, usage)
	}
	if usage.IsObject() {
		s.usage, s.hasUsage = chatUsage(usage), true
	}
	choices.ForEach(func(_, c gjson.Result) bool {
		var index, delta, finish gjson.Result
		c.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "index":
				index = v
			case "delta":
				delta = v
			case "finish_reason":
				finish = v
			}
			return true
		})
		if index.Int() != 0 {
			return true
		}
		s.choice(delta, finish)
		return false
	})
	return s.out.Buf, nil
}

// Finish returns what is still owed at the end of the upstream stream:
// message_delta and message_stop if the upstream finished without [DONE],
// an error event if it broke off before finishing, nothing if the stream
// already ended.
func (s *ChatToMessagesStream) Finish() []byte {
	s.out.Reset()
	if s.done {
		return nil
	}
	if s.finish != "" {
		s.end()
	} else {
		s.errorEvent("api_error", "the upstream stream ended before the response was complete")
	}
	return s.out.Buf
}

// Abort ends the stream with an Anthropic error event, whatever was
// received: api_error (timeout_error when code is upstream_timeout)
// carrying message. It returns nothing when the stream already ended.
func (s *ChatToMessagesStream) Abort(code, message string) []byte {
	s.out.Reset()
	if s.done {
		return nil
	}
	typ := "api_error"
	if code == "upstream_timeout" {
		typ = "timeout_error"
	}
	s.errorEvent(typ, message)
	return s.out.Buf
}

// event starts an Anthropic event of the given type; the caller writes the
// remaining members of its data object and calls endEvent.
func (s *ChatToMessagesStream) event(typ string) {
	s.out.Begin(typ)
	s.out.Obj()
	s.out.KeyStr("type", typ)
}

// endEvent closes the event started by event.
func (s *ChatToMessagesStream) endEvent() {
	s.out.EndObj()
	s.out.End()
}

// walkEstimateMax is the largest request whose input tokens message_start
// estimates by walking its content; a larger one is estimated from its
// size, so that the first event of a long conversation is not held up by
// a second walk of the whole request.
const walkEstimateMax = 16 << 10

// bytesPerToken is the size estimate's ratio of request bytes to tokens.
const bytesPerToken = 4

// streamInputEstimate is the input-token estimate message_start reports
// when the upstream reports none: the content walk of
// EstimateMessagesInputTokens up to walkEstimateMax bytes of request, else
// the request's size over bytesPerToken. 0 when there is no request.
func streamInputEstimate(req []byte) int64 {
	if len(req) > walkEstimateMax {
		return int64(len(req)) / bytesPerToken
	}
	if n, err := estimateInputTokens(translate.ParseBorrowed(req)); err == nil {
		return n
	}
	return 0
}

// start sends message_start, with the upstream id (see writeMessageID)
// and model, and the upstream's usage if this first chunk has any, else
// the estimated input tokens.
func (s *ChatToMessagesStream) start(id, model, usage gjson.Result) {
	s.started = true
	s.estimate = streamInputEstimate(s.req)
	s.event("message_start")
	s.out.Key("message")
	s.out.Obj()
	writeMessageID(&s.out.Writer, id)
	s.out.KeyStr("type", "message")
	s.out.KeyStr("role", "assistant")
	writeModel(&s.out.Writer, s.model, model)
	s.out.KeyRaw("content", "[]")
	s.out.KeyRaw("stop_reason", "null")
	s.out.KeyRaw("stop_sequence", "null")
	s.out.Key("usage")
	if usage.IsObject() {
		translate.WriteMessagesUsage(&s.out.Writer, chatUsage(usage))
	} else {
		translate.WriteMessagesUsage(&s.out.Writer, s.estimated())
	}
	s.out.EndObj()
	s.endEvent()
}

// choice converts the delta and finish_reason of choice 0.
func (s *ChatToMessagesStream) choice(delta, finish gjson.Result) {
	var reasoning, content, refusal, toolCalls gjson.Result
	delta.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "content":
			content = v
		case "reasoning_content":
			reasoning = v
		case "reasoning":
			if reasoning.Type != gjson.String {
				reasoning = v
			}
		case "refusal":
			refusal = v
		case "tool_calls":
			toolCalls = v
		}
		return true
	})
	if reasoning.Type == gjson.String && reasoning.Str != "" {
		s.openBlock(blockThinking, gjson.Result{})
		s.blockDelta(s.open, "thinking_delta", "thinking", reasoning)
	}
	if content.Type == gjson.String && content.Str != "" {
		s.openBlock(blockText, gjson.Result{})
		s.blockDelta(s.open, "text_delta", "text", content)
	}
	if refusal.Type == gjson.String && refusal.Str != "" {
		s.refused = true
		s.openBlock(blockText, gjson.Result{})
		s.blockDelta(s.open, "text_delta", "text", refusal)
	}
	pos := 0
	toolCalls.ForEach(func(_, tc gjson.Result) bool {
		i := pos
		if idx := tc.Get("index"); idx.Type == gjson.Number {
			i = int(idx.Int())
		}
		pos++
		if i < 0 || i >= maxBlocks {
			return true
		}
		for len(s.toolBlock) <= i {
			s.toolBlock = append(s.toolBlock, -1)
		}
		if s.toolBlock[i] < 0 {
			s.openBlock(blockTool, tc)
			s.toolBlock[i] = s.open
		}
		if args := tc.Get("function.arguments"); args.Type == gjson.String && args.Str != "" {
			s.blockDelta(s.toolBlock[i], "input_json_delta", "partial_json", args)
		}
		return true
	})
	if finish.Type == gjson.String && finish.Str != "" {
		s.finish = strings.Clone(finish.Str) // finish points into the event
		s.closeBlock()
	}
}

// openBlock makes a block of kind the open one, closing the open block if
// it is of another kind (tool blocks are never continued: each tool call
// opens its own). tc is the tool call that opens a tool block.
func (s *ChatToMessagesStream) openBlock(kind uint8, tc gjson.Result) {
	if s.open >= 0 && s.openKind == kind && kind != blockTool {
		return
	}
	s.closeBlock()
	s.open, s.openKind = s.next, kind
	s.next++
	s.event("content_block_start")
	s.out.KeyInt("index", int64(s.open))
	s.out.Key("content_block")
	s.out.Obj()
	switch kind {
	case blockText:
		s.out.KeyStr("type", "text")
		s.out.KeyStr("text", "")
	case blockThinking:
		s.out.KeyStr("type", "thinking")
		s.out.KeyStr("thinking", "")
		s.out.KeyStr("signature", "")
	case blockTool:
		s.out.KeyStr("type", "tool_use")
		id := tc.Get("id").Str
		if id == "" {
			id = translate.NewID("toolu_") + strconv.Itoa(s.open)
		}
		s.out.KeyStr("id", sanitizeToolID(id))
		s.out.Key("name")
		s.out.RawStr(tc.Get("function.name"))
		s.out.KeyRaw("input", "{}")
	}
	s.out.EndObj()
	s.endEvent()
}

// closeBlock sends content_block_stop for the open block, if any.
func (s *ChatToMessagesStream) closeBlock() {
	if s.open < 0 {
		return
	}
	s.event("content_block_stop")
	s.out.KeyInt("index", int64(s.open))
	s.endEvent()
	s.open = -1
}

// blockDelta writes a content_block_delta of deltaType whose member field
// is the string v.
func (s *ChatToMessagesStream) blockDelta(index int, deltaType, field string, v gjson.Result) {
	s.event("content_block_delta")
	s.out.KeyInt("index", int64(index))
	s.out.Key("delta")
	s.out.Obj()
	s.out.KeyStr("type", deltaType)
	s.out.Key(field)
	s.out.RawStr(v)
	s.out.EndObj()
	s.endEvent()
}

// end closes the open block and writes message_delta and message_stop.
func (s *ChatToMessagesStream) end() {
	if !s.started {
		s.start(gjson.Result{}, gjson.Result{}, gjson.Result{})
	}
	s.closeBlock()
	stop := chatFinishToAnthropic(s.finish, len(s.toolBlock) > 0)
	if s.refused {
		stop = anthropicStopRefusal
	}
	s.event("message_delta")
	s.out.Key("delta")
	s.out.Obj()
	s.out.KeyStr("stop_reason", stop)
	s.out.KeyRaw("stop_sequence", "null")
	s.out.EndObj()
	s.out.Key("usage")
	if s.hasUsage {
		translate.WriteMessagesUsage(&s.out.Writer, s.usage)
	} else {
		translate.WriteMessagesUsage(&s.out.Writer, s.estimated())
	}
	s.endEvent()
	s.event("message_stop")
	s.endEvent()
	s.done = true
}

// estimated is the usage known before the upstream reports any: the
// estimated input tokens, no output.
func (s *ChatToMessagesStream) estimated() catalog.Usage {
	return catalog.Usage{InputTokens: s.estimate, TotalTokens: s.estimate}
}

// errorEvent writes an Anthropic error event and ends the stream.
func (s *ChatToMessagesStream) errorEvent(typ, message string) {
	if message == "" {
		message = "upstream error"
	}
	s.event("error")
	s.out.Key("error")
	s.out.Obj()
	s.out.KeyStr("type", typ)
	s.out.KeyStr("message", message)
	s.out.EndObj()
	s.endEvent()
	s.done = true
}
