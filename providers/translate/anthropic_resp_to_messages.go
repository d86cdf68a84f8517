package translate

import (
	"errors"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// ChatToMessagesResponse translates a non-streamed OpenAI chat completion
// into an Anthropic Messages response and returns its usage.
//
// model is the model name to report; "" keeps the upstream's. The id is
// kept (one is made up when the upstream sent none). The first choice
// becomes the message: reasoning_content (or reasoning) a thinking block
// without signature, content (and a refusal) text, tool_calls tool_use
// blocks with ids made acceptable to Anthropic (see sanitizeToolID).
// Tool call arguments that are not a JSON object are an error: Anthropic's
// tool input must be one.
func ChatToMessagesResponse(chat []byte, model string) (messages []byte, usage Usage, err error) {
	if !gjson.ValidBytes(chat) {
		return nil, Usage{}, errors.New("chat completion is not valid JSON")
	}
	root := parseBorrowed(chat)
	choices := root.Get("choices")
	if !choices.IsArray() {
		return nil, Usage{}, errors.New("chat completion has no choices")
	}
	choice := choices.Get("0")
	msg := choice.Get("message")
	usage = usageFromChat(root.Get("usage"))

	w := jsonOut{b: make([]byte, 0, len(chat)+128)}
	w.obj()
	if id := root.Get("id"); id.Type == gjson.String && id.Str != "" {
		w.key("id")
		w.rawStr(id)
	} else {
		w.keyStr("id", newID("msg_"))
	}
	w.keyStr("type", "message")
	w.keyStr("role", "assistant")
	writeModel(&w, model, root.Get("model"))
	w.key("content")
	w.arr()
	reasoning := msg.Get("reasoning_content")
	if reasoning.Type != gjson.String {
		reasoning = msg.Get("reasoning")
	}
	if reasoning.Type == gjson.String && reasoning.Str != "" {
		w.obj()
		w.keyStr("type", "thinking")
		w.key("thinking")
		w.rawStr(reasoning)
		w.keyStr("signature", "")
		w.endObj()
	}
	content := msg.Get("content")
	switch {
	case content.Type == gjson.String && content.Str != "":
		writeTextBlock(&w, content)
	case content.IsArray():
		content.ForEach(func(_, p gjson.Result) bool {
			if t := p.Get("text"); t.Type == gjson.String && t.Str != "" {
				writeTextBlock(&w, t)
			}
			return true
		})
	}
	refused := false
	if r := msg.Get("refusal"); r.Type == gjson.String && r.Str != "" {
		refused = true
		writeTextBlock(&w, r)
	}
	calls := 0
	msg.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
		err = writeToolUseBlock(&w, tc.Get("id").Str, tc.Get("function"), calls)
		calls++
		return err == nil
	})
	if fc := msg.Get("function_call"); fc.IsObject() && err == nil {
		err = writeToolUseBlock(&w, "", fc, calls)
		calls++
	}
	if err != nil {
		return nil, Usage{}, err
	}
	w.endArr()
	stop := chatFinishToAnthropic(choice.Get("finish_reason").Str, calls > 0)
	if refused {
		stop = anthropicStopRefusal
	}
	w.keyStr("stop_reason", stop)
	w.keyRaw("stop_sequence", "null")
	w.key("usage")
	writeAnthropicUsage(&w, usage)
	w.endObj()
	return w.b, usage, nil
}

// writeTextBlock writes a text block with the string text.
func writeTextBlock(w *jsonOut, text gjson.Result) {
	w.obj()
	w.keyStr("type", "text")
	w.key("text")
	w.rawStr(text)
	w.endObj()
}

// writeToolUseBlock writes a chat tool call (its id and function object)
// as a tool_use block; n numbers made-up ids.
func writeToolUseBlock(w *jsonOut, id string, fn gjson.Result, n int) error {
	if id == "" {
		id = newID("toolu_") + strconv.Itoa(n)
	}
	input, err := argumentsObject(fn.Get("arguments"))
	if err != nil {
		return err
	}
	w.obj()
	w.keyStr("type", "tool_use")
	w.keyStr("id", sanitizeToolID(id))
	w.key("name")
	w.rawStr(fn.Get("name"))
	w.keyRaw("input", input)
	w.endObj()
	return nil
}

// argumentsObject checks a chat arguments string and returns it as a raw
// JSON object ("{}" when empty).
func argumentsObject(args gjson.Result) (string, error) {
	s := strings.TrimSpace(args.Str)
	if s == "" {
		return "{}", nil
	}
	if !gjson.Valid(s) || !gjson.Parse(s).IsObject() {
		return "", errors.New("upstream tool call arguments are not a JSON object: " + strconv.Quote(truncateForError(s, 200)))
	}
	return compactJSON(s), nil
}

// truncateForError shortens s to n bytes for an error message.
func truncateForError(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
