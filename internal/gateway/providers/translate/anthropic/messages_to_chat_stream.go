package anthropic

import (
	"errors"
	"time"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/platform/sse"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// Kinds of content block a stream converter tracks.
const (
	blockNone uint8 = iota
	blockText
	blockThinking
	blockRedacted
	blockTool
	blockJSON  // a call of the gateway's JSON tool: its input is content
	blockOther // a block type chat cannot show
)

// maxBlocks bounds the content block index a stream may use.
const maxBlocks = 1 << 14

// streamBlock is one content block of an Anthropic stream.
type streamBlock struct {
	kind uint8
	tool int // chat tool_calls index of a tool block
}

// MessagesToChatStream converts an Anthropic Messages event stream into
// OpenAI chat completion chunks. Feed it each upstream event in order and
// call Finish at the end of the upstream stream. It is not safe for
// concurrent use.
//
// Text deltas become delta.content, thinking deltas delta.reasoning_content,
// tool_use blocks and their input_json_delta fragments delta.tool_calls
// (numbered in order of appearance). When a thinking block ends, one chunk
// carries it whole, signed, in delta.thinking_blocks. message_delta gives
// the finish_reason chunk, message_stop the usage chunk (choices [], only
// when includeUsage) and "data: [DONE]". An upstream error event becomes an
// OpenAI-style error chunk and ends the stream.
type MessagesToChatStream struct {
	model        string
	includeUsage bool
	created      int64

	head      []byte // chunk prefix: {"id":...,"object":...,"created":...,"model":...,
	out       translate.EventWriter
	tok       translate.MessagesUsage
	hasUsage  bool
	blocks    []streamBlock
	tools     int
	thinking  []byte // escaped text of the open thinking block
	signature []byte
	finished  bool // the finish_reason chunk was sent
	done      bool // [DONE] or an error chunk was sent
}

// NewMessagesToChatStream returns a converter reporting model (the name the
// client asked for; "" keeps the upstream's) that sends a usage chunk at
// the end when includeUsage (the client's stream_options.include_usage).
func NewMessagesToChatStream(model string, includeUsage bool) *MessagesToChatStream {
	return &MessagesToChatStream{model: model, includeUsage: includeUsage, created: time.Now().Unix()}
}

// Usage returns the usage reported so far (Anthropic's counts are
// cumulative) and whether the upstream reported any.
func (s *MessagesToChatStream) Usage() (catalog.Usage, bool) {
	return s.tok.Usage(), s.hasUsage
}

// Output is the writer Feed and Finish write to, for Chain.
func (s *MessagesToChatStream) Output() *translate.EventWriter { return &s.out }

// Feed converts one upstream event and returns the chunks to send, possibly
// none. The returned slice is reused by the next call to Feed, Finish or
// Abort. An error means the event was not valid JSON: nothing is sent for
// it and the stream can go on.
func (s *MessagesToChatStream) Feed(ev sse.Event) ([]byte, error) {
	s.out.Reset()
	if s.done || len(ev.Data) == 0 {
		return nil, nil
	}
	if !gjson.ValidBytes(ev.Data) {
		return nil, errors.New("anthropic stream event is not valid JSON")
	}
	// One pass over the event's members.
	var typ, index, delta, block, message, usage, errv gjson.Result
	translate.ParseBorrowed(ev.Data).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			typ = v
		case "index":
			index = v
		case "delta":
			delta = v
		case "content_block":
			block = v
		case "message":
			message = v
		case "usage":
			usage = v
		case "error":
			errv = v
		}
		return true
	})
	name := ev.Name
	if name == "" {
		name = typ.Str
	}
	switch name {
	case "message_start":
		s.tok.Merge(message.Get("usage"))
		s.hasUsage = true
		s.setHead(message.Get("id"), message.Get("model"))
		s.chunk()
		s.out.KeyStr("role", "assistant")
		s.out.KeyStr("content", "")
		s.endChunk("")
	case "content_block_start":
		s.blockStart(index.Int(), block)
	case "content_block_delta":
		s.blockDelta(index.Int(), delta)
	case "content_block_stop":
		if b := s.block(index.Int()); b != nil && b.kind == blockThinking {
			s.chunk()
			s.out.Key("thinking_blocks")
			s.out.Arr()
			s.out.Obj()
			s.out.KeyStr("type", "thinking")
			s.out.Key("thinking")
			s.out.Escaped(s.thinking)
			s.out.Key("signature")
			s.out.Escaped(s.signature)
			s.out.EndObj()
			s.out.EndArr()
			s.endChunk("")
		}
	case "message_delta":
		s.tok.Merge(usage)
		s.hasUsage = true
		finish := anthropicStopToChat(delta.Get("stop_reason").Str)
		if finish == chatFinishToolCalls && s.tools == 0 {
			finish = chatFinishStop // only the JSON tool was called
		}
		s.finishChunk(finish)
	case "message_stop":
		s.finishChunk(chatFinishStop)
		s.end()
	case "error":
		anthType := errv.Get("type").Str
		s.errorChunk(errv.Get("message").Str, anthropicTypeToGateway(anthType, 0), anthType)
	default:
		// ping, and event types added after this was written.
	}
	return s.out.Buf, nil
}

// Finish returns what is still owed at the end of the upstream stream: the
// usage chunk and [DONE] if the message was complete but message_stop never
// came, an error chunk if the stream broke off earlier, nothing if the
// stream already ended.
func (s *MessagesToChatStream) Finish() []byte {
	s.out.Reset()
	if s.done {
		return nil
	}
	if s.finished {
		s.end()
	} else {
		s.errorChunk("the upstream stream ended before the message was complete", apierr.TypeProvider, "stream_truncated")
	}
	return s.out.Buf
}

// Abort ends the stream with an OpenAI error chunk ({"error":{...}} with
// type provider_error, code and message) and no [DONE], whatever was
// received; the OpenAI SDKs raise it as an API error. It returns nothing
// when the stream already ended.
func (s *MessagesToChatStream) Abort(code, message string) []byte {
	s.out.Reset()
	if s.done {
		return nil
	}
	s.errorChunk(message, apierr.TypeProvider, code)
	return s.out.Buf
}

// setHead builds the prefix every chunk starts with.
func (s *MessagesToChatStream) setHead(id, model gjson.Result) {
	w := translate.Writer{Buf: s.head[:0]}
	w.Obj()
	if id.Type == gjson.String && id.Str != "" {
		w.Key("id")
		w.RawStr(id)
	} else {
		w.KeyStr("id", translate.NewID("chatcmpl-"))
	}
	w.KeyStr("object", "chat.completion.chunk")
	w.KeyInt("created", s.created)
	writeModel(&w, s.model, model)
	s.head = append(w.Buf, ',')
}

// chunk starts a chunk and its delta object; the caller writes the delta's
// members and calls endChunk.
func (s *MessagesToChatStream) chunk() {
	if s.head == nil {
		s.setHead(gjson.Result{}, gjson.Result{})
	}
	s.out.Begin("")
	s.out.Buf = append(s.out.Buf, s.head...)
	s.out.Buf = append(s.out.Buf, `"choices":[{"index":0,"delta":`...)
	s.out.Obj()
}

// endChunk closes the delta and the chunk with finish as finish_reason
// ("" for null).
func (s *MessagesToChatStream) endChunk(finish string) {
	s.out.EndObj()
	s.out.Buf = append(s.out.Buf, `,"logprobs":null,"finish_reason":`...)
	if finish == "" {
		s.out.Buf = append(s.out.Buf, "null"...)
	} else {
		s.out.Buf = translate.AppendString(s.out.Buf, finish)
	}
	s.out.Buf = append(s.out.Buf, "}]}"...)
	s.out.End()
}

// block returns the state of block index, growing the table as needed;
// nil for an index out of range.
func (s *MessagesToChatStream) block(index int64) *streamBlock {
	if index < 0 || index >= maxBlocks {
		return nil
	}
	for int64(len(s.blocks)) <= index {
		s.blocks = append(s.blocks, streamBlock{})
	}
	return &s.blocks[index]
}

// blockStart handles content_block_start: a tool_use block announces its
// tool call (id, name, empty arguments); text and thinking blocks wait for
// their deltas.
func (s *MessagesToChatStream) blockStart(index int64, cb gjson.Result) {
	b := s.block(index)
	if b == nil {
		return
	}
	switch cb.Get("type").Str {
	case "text":
		b.kind = blockText
		if t := cb.Get("text"); t.Str != "" {
			s.delta("content", t)
		}
	case "thinking":
		b.kind = blockThinking
		s.thinking, s.signature = s.thinking[:0], s.signature[:0]
		if t := cb.Get("thinking"); t.Str != "" {
			s.thinkingDelta(t)
		}
		if sig := cb.Get("signature"); sig.Str != "" {
			s.signature = append(s.signature, unquoted(sig)...)
		}
	case "redacted_thinking":
		b.kind = blockRedacted
		s.chunk()
		s.out.Key("thinking_blocks")
		s.out.Arr()
		writeThinkingBlock(&s.out.Writer, cb)
		s.out.EndArr()
		s.endChunk("")
	case "tool_use":
		input := cb.Get("input")
		hasInput := input.IsObject() && translate.HasElements(input)
		if cb.Get("name").Str == jsonToolName {
			b.kind = blockJSON
			if hasInput {
				s.chunk()
				s.out.KeyStr("content", translate.CompactJSON(input.Raw))
				s.endChunk("")
			}
			return
		}
		b.kind, b.tool = blockTool, s.tools
		s.tools++
		s.chunk()
		s.out.Key("tool_calls")
		s.out.Arr()
		s.out.Obj()
		s.out.KeyInt("index", int64(b.tool))
		s.out.Key("id")
		s.out.RawStr(cb.Get("id"))
		s.out.KeyStr("type", "function")
		s.out.Key("function")
		s.out.Obj()
		s.out.Key("name")
		s.out.RawStr(cb.Get("name"))
		if hasInput {
			s.out.KeyStr("arguments", toolArguments(input))
		} else {
			s.out.KeyStr("arguments", "")
		}
		s.out.EndObj()
		s.out.EndObj()
		s.out.EndArr()
		s.endChunk("")
	default:
		b.kind = blockOther
	}
}

// blockDelta handles content_block_delta for the block at index.
func (s *MessagesToChatStream) blockDelta(index int64, d gjson.Result) {
	b := s.block(index)
	if b == nil {
		return
	}
	var typ, val gjson.Result
	d.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			typ = v
		case "text", "thinking", "signature", "partial_json":
			val = v
		}
		return true
	})
	switch typ.Str {
	case "text_delta":
		if val.Str != "" {
			s.delta("content", val)
		}
	case "thinking_delta":
		if val.Str != "" {
			s.thinkingDelta(val)
		}
	case "signature_delta":
		s.signature = append(s.signature, unquoted(val)...)
	case "input_json_delta":
		if val.Str == "" {
			return
		}
		switch b.kind {
		case blockJSON:
			s.delta("content", val)
		case blockTool:
			s.chunk()
			s.out.Key("tool_calls")
			s.out.Arr()
			s.out.Obj()
			s.out.KeyInt("index", int64(b.tool))
			s.out.Key("function")
			s.out.Obj()
			s.out.Key("arguments")
			s.out.RawStr(val)
			s.out.EndObj()
			s.out.EndObj()
			s.out.EndArr()
			s.endChunk("")
		}
	}
}

// delta writes a chunk whose delta has one string member.
func (s *MessagesToChatStream) delta(name string, v gjson.Result) {
	s.chunk()
	s.out.Key(name)
	s.out.RawStr(v)
	s.endChunk("")
}

// thinkingDelta sends a thinking fragment as reasoning_content and keeps
// it for the whole block sent at content_block_stop.
func (s *MessagesToChatStream) thinkingDelta(t gjson.Result) {
	s.thinking = append(s.thinking, unquoted(t)...)
	s.delta("reasoning_content", t)
}

// finishChunk sends the chunk with the finish_reason, once.
func (s *MessagesToChatStream) finishChunk(finish string) {
	if s.finished {
		return
	}
	s.finished = true
	s.chunk()
	s.endChunk(finish)
}

// end writes the usage chunk (if the client asked for it) and [DONE].
func (s *MessagesToChatStream) end() {
	if s.includeUsage {
		if s.head == nil {
			s.setHead(gjson.Result{}, gjson.Result{})
		}
		s.out.Begin("")
		s.out.Buf = append(s.out.Buf, s.head...)
		s.out.Buf = append(s.out.Buf, `"choices":[],"usage":`...)
		translate.WriteChatUsage(&s.out.Writer, s.tok.Usage())
		s.out.Buf = append(s.out.Buf, '}')
		s.out.End()
	}
	s.out.Done()
	s.done = true
}

// errorChunk writes an OpenAI-style error chunk and ends the stream.
func (s *MessagesToChatStream) errorChunk(message, typ, code string) {
	if message == "" {
		message = "upstream error"
	}
	s.out.Begin("")
	s.out.Obj()
	s.out.Key("error")
	s.out.Obj()
	s.out.KeyStr("message", message)
	s.out.KeyStr("type", typ)
	s.out.KeyRaw("param", "null")
	if code != "" {
		s.out.KeyStr("code", code)
	} else {
		s.out.KeyRaw("code", "null")
	}
	s.out.EndObj()
	s.out.EndObj()
	s.out.End()
	s.done = true
}

// unquoted returns the escaped text of a JSON string value, without its
// quotes, so that pieces can be concatenated into one JSON string.
func unquoted(r gjson.Result) string {
	if r.Type != gjson.String || len(r.Raw) < 2 {
		return ""
	}
	return r.Raw[1 : len(r.Raw)-1]
}
