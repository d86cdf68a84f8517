package translate

import (
	"errors"
	"strings"
	"time"

	"github.com/tidwall/gjson"
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
func MessagesToChatResponse(messages []byte, model string) (chat []byte, usage Usage, err error) {
	if !gjson.ValidBytes(messages) {
		return nil, Usage{}, errors.New("anthropic response is not valid JSON")
	}
	root := parseBorrowed(messages)
	content := root.Get("content")
	if root.Get("type").Str == "error" || !content.IsArray() {
		return nil, Usage{}, errors.New("anthropic response is not a message")
	}
	var tok MessagesTokens
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

	w := jsonOut{b: make([]byte, 0, len(messages)+128)}
	w.obj()
	if id := root.Get("id"); id.Type == gjson.String && id.Str != "" {
		w.key("id")
		w.rawStr(id)
	} else {
		w.keyStr("id", newID("chatcmpl-"))
	}
	w.keyStr("object", "chat.completion")
	w.keyInt("created", time.Now().Unix())
	writeModel(&w, model, root.Get("model"))
	w.key("choices")
	w.arr()
	w.obj()
	w.keyInt("index", 0)
	w.key("message")
	w.obj()
	w.keyStr("role", "assistant")
	w.key("content")
	writeJoined(&w, texts)
	if len(thinking) > 0 {
		w.key("reasoning_content")
		writeJoined(&w, thinking)
	}
	if len(thinkBlocks) > 0 {
		w.key("thinking_blocks")
		w.arr()
		for _, b := range thinkBlocks {
			writeThinkingBlock(&w, b)
		}
		w.endArr()
	}
	if len(calls) > 0 {
		w.key("tool_calls")
		w.arr()
		for _, c := range calls {
			w.obj()
			w.key("id")
			w.rawStr(c.Get("id"))
			w.keyStr("type", "function")
			w.key("function")
			w.obj()
			w.key("name")
			w.rawStr(c.Get("name"))
			w.keyStr("arguments", toolArguments(c.Get("input")))
			w.endObj()
			w.endObj()
		}
		w.endArr()
	}
	w.endObj()
	w.keyRaw("logprobs", "null")
	w.key("finish_reason")
	finish := anthropicStopToChat(root.Get("stop_reason").Str)
	if finish == chatFinishToolCalls && len(calls) == 0 {
		finish = chatFinishStop // only the JSON tool was called
	}
	w.str(finish)
	w.endObj()
	w.endArr()
	w.key("usage")
	writeChatUsage(&w, usage)
	w.endObj()
	return w.b, usage, nil
}

// writeModel writes the model member: the gateway's name for it when
// given, else the upstream's.
func writeModel(w *jsonOut, model string, upstream gjson.Result) {
	w.key("model")
	if model == "" && upstream.Type == gjson.String {
		w.rawStr(upstream)
		return
	}
	w.str(model)
}

// writeJoined writes the concatenation of parts as one string, null when
// there are none. A part is a JSON string or, for the JSON tool's input,
// an object written as its JSON text.
func writeJoined(w *jsonOut, parts []gjson.Result) {
	switch {
	case len(parts) == 0:
		w.null()
	case len(parts) == 1 && parts[0].Type == gjson.String:
		w.rawStr(parts[0])
	default:
		var sb strings.Builder
		for _, p := range parts {
			if p.Type == gjson.String {
				sb.WriteString(p.Str)
			} else {
				sb.WriteString(compactJSON(p.Raw))
			}
		}
		w.str(sb.String())
	}
}

// writeThinkingBlock copies a thinking or redacted_thinking block.
func writeThinkingBlock(w *jsonOut, b gjson.Result) {
	w.obj()
	if b.Get("type").Str == "redacted_thinking" {
		w.keyStr("type", "redacted_thinking")
		w.key("data")
		w.rawStr(b.Get("data"))
	} else {
		w.keyStr("type", "thinking")
		w.key("thinking")
		w.rawStr(b.Get("thinking"))
		w.key("signature")
		w.rawStr(b.Get("signature"))
	}
	w.endObj()
}

// toolArguments is a tool_use input as a chat arguments string.
func toolArguments(input gjson.Result) string {
	if !input.IsObject() {
		return "{}"
	}
	return compactJSON(input.Raw)
}
