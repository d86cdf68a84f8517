package anthropic

import (
	"errors"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// MessagesToChatResponse translates a non-streamed Anthropic Messages
// response into an OpenAI chat completion and returns its usage.
//
// model is the model name to report (the one the client asked for); ""
// keeps the upstream's. The id is kept; created is the current time, which
// Anthropic does not send. Text blocks become message.content, thinking
// blocks message.reasoning_content plus message.thinking_blocks (the signed
// blocks a client sends back for multi-turn tool use with thinking),
// tool_use blocks tool_calls. A call of the gateway's JSON tool (see
// jsonToolName) becomes content. Block types chat cannot show (server tool
// blocks) are left out.
func MessagesToChatResponse(messages []byte, model string) (chat []byte, usage catalog.Usage, err error) {
	if !gjson.ValidBytes(messages) {
		return nil, catalog.Usage{}, errors.New("anthropic response is not valid JSON")
	}
	root := translate.ParseBorrowed(messages)
	content := root.Get("content")
	if root.Get("type").Str == "error" || !content.IsArray() {
		return nil, catalog.Usage{}, errors.New("anthropic response is not a message")
	}
	var tok translate.MessagesUsage
	tok.Merge(root.Get("usage"))
	usage = tok.Usage()

	var textBuf, thinkBuf, blockBuf, callBuf [4]gjson.Result
	texts, thinking, thinkBlocks, calls := textBuf[:0], thinkBuf[:0], blockBuf[:0], callBuf[:0]
	content.ForEach(func(_, b gjson.Result) bool {
		switch b.Get("type").Str {
		case "text":
			texts = append(texts, b.Get("text"))
		case "thinking":
			thinking = append(thinking, b.Get("thinking"))
			thinkBlocks = append(thinkBlocks, b)
		case "redacted_thinking":
			thinkBlocks = append(thinkBlocks, b)
		case "tool_use":
			if b.Get("name").Str == jsonToolName {
				texts = append(texts, b.Get("input"))
			} else {
				calls = append(calls, b)
			}
		}
		return true
	})

	w := translate.Writer{Buf: make([]byte, 0, len(messages)+128)}
	w.Obj()
	if id := root.Get("id"); id.Type == gjson.String && id.Str != "" {
		w.Key("id")
		w.RawStr(id)
	} else {
		w.KeyStr("id", translate.NewID("chatcmpl-"))
	}
	w.KeyStr("object", "chat.completion")
	w.KeyInt("created", time.Now().Unix())
	writeModel(&w, model, root.Get("model"))
	w.Key("choices")
	w.Arr()
	w.Obj()
	w.KeyInt("index", 0)
	w.Key("message")
	w.Obj()
	w.KeyStr("role", "assistant")
	w.Key("content")
	writeJoined(&w, texts)
	if len(thinking) > 0 {
		w.Key("reasoning_content")
		writeJoined(&w, thinking)
	}
	if len(thinkBlocks) > 0 {
		w.Key("thinking_blocks")
		w.Arr()
		for _, b := range thinkBlocks {
			writeThinkingBlock(&w, b)
		}
		w.EndArr()
	}
	if len(calls) > 0 {
		w.Key("tool_calls")
		w.Arr()
		for _, c := range calls {
			writeToolCall(&w, c)
		}
		w.EndArr()
	}
	w.EndObj()
	w.KeyRaw("logprobs", "null")
	w.Key("finish_reason")
	finish := anthropicStopToChat(root.Get("stop_reason").Str)
	if finish == chatFinishToolCalls && len(calls) == 0 {
		finish = chatFinishStop // only the JSON tool was called
	}
	w.Str(finish)
	w.EndObj()
	w.EndArr()
	w.Key("usage")
	translate.WriteChatUsage(&w, usage)
	w.EndObj()
	return w.Buf, usage, nil
}

// writeModel writes the model member: the gateway's name for it when
// given, else the upstream's.
func writeModel(w *translate.Writer, model string, upstream gjson.Result) {
	w.Key("model")
	if model == "" && upstream.Type == gjson.String {
		w.RawStr(upstream)
		return
	}
	w.Str(model)
}

// writeJoined writes the concatenation of parts as one string, null when
// there are none. A part is a JSON string or, for the JSON tool's input,
// an object written as its JSON text.
func writeJoined(w *translate.Writer, parts []gjson.Result) {
	switch {
	case len(parts) == 0:
		w.Null()
	case len(parts) == 1 && parts[0].Type == gjson.String:
		w.RawStr(parts[0])
	default:
		var sb strings.Builder
		for _, p := range parts {
			if p.Type == gjson.String {
				sb.WriteString(p.Str)
			} else {
				sb.WriteString(translate.CompactJSON(p.Raw))
			}
		}
		w.Str(sb.String())
	}
}

// writeThinkingBlock copies a thinking or redacted_thinking block.
func writeThinkingBlock(w *translate.Writer, b gjson.Result) {
	w.Obj()
	if b.Get("type").Str == "redacted_thinking" {
		w.KeyStr("type", "redacted_thinking")
		w.Key("data")
		w.RawStr(b.Get("data"))
	} else {
		w.KeyStr("type", "thinking")
		w.Key("thinking")
		w.RawStr(b.Get("thinking"))
		w.Key("signature")
		w.RawStr(b.Get("signature"))
	}
	w.EndObj()
}
