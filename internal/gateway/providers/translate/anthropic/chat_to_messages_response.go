package anthropic

import (
	"errors"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// ChatToMessagesResponse translates a non-streamed OpenAI chat completion
// into an Anthropic Messages response and returns its usage.
//
// model is the model name to report; "" keeps the upstream's. The id is
// the upstream's as an Anthropic message id (see writeMessageID). The
// first choice
// becomes the message: reasoning_content (or reasoning) a thinking block
// without signature, content (and a refusal) text, tool_calls tool_use
// blocks with ids made acceptable to Anthropic (see sanitizeToolID).
// Tool call arguments that are not a JSON object are an error: Anthropic's
// tool input must be one.
func ChatToMessagesResponse(chat []byte, model string) (messages []byte, usage catalog.Usage, err error) {
	if !gjson.ValidBytes(chat) {
		return nil, catalog.Usage{}, errors.New("chat completion is not valid JSON")
	}
	root := translate.ParseBorrowed(chat)
	choices := root.Get("choices")
	if !choices.IsArray() {
		return nil, catalog.Usage{}, errors.New("chat completion has no choices")
	}
	choice := choices.Get("0")
	msg := choice.Get("message")
	usage = chatUsage(root.Get("usage"))

	w := translate.Writer{Buf: make([]byte, 0, len(chat)+128)}
	w.Obj()
	writeMessageID(&w, root.Get("id"))
	w.KeyStr("type", "message")
	w.KeyStr("role", "assistant")
	writeModel(&w, model, root.Get("model"))
	w.Key("content")
	w.Arr()
	reasoning := msg.Get("reasoning_content")
	if reasoning.Type != gjson.String {
		reasoning = msg.Get("reasoning")
	}
	if reasoning.Type == gjson.String && reasoning.Str != "" {
		w.Obj()
		w.KeyStr("type", "thinking")
		w.Key("thinking")
		w.RawStr(reasoning)
		w.KeyStr("signature", "")
		w.EndObj()
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
		return nil, catalog.Usage{}, err
	}
	w.EndArr()
	stop := chatFinishToAnthropic(choice.Get("finish_reason").Str, calls > 0)
	if refused {
		stop = anthropicStopRefusal
	}
	w.KeyStr("stop_reason", stop)
	w.KeyRaw("stop_sequence", "null")
	w.Key("usage")
	translate.WriteMessagesUsage(&w, usage)
	w.EndObj()
	return w.Buf, usage, nil
}

// writeTextBlock writes a text block with the string text.
func writeTextBlock(w *translate.Writer, text gjson.Result) {
	w.Obj()
	w.KeyStr("type", "text")
	w.Key("text")
	w.RawStr(text)
	w.EndObj()
}

// writeToolUseBlock writes a chat tool call (its id and function object)
// as a tool_use block; n numbers made-up ids.
func writeToolUseBlock(w *translate.Writer, id string, fn gjson.Result, n int) error {
	if id == "" {
		id = translate.NewID("toolu_") + strconv.Itoa(n)
	}
	args := fn.Get("arguments")
	input, ok := toolInput(args)
	if !ok {
		return errors.New("upstream tool call arguments are not a JSON object: " +
			strconv.Quote(truncateForError(args.String(), 200)))
	}
	writeToolUse(w, id, fn.Get("name"), input)
	return nil
}

// truncateForError shortens s to n bytes for an error message.
func truncateForError(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// chatUsage is translate.ChatUsage without the presence flag.
func chatUsage(u gjson.Result) catalog.Usage {
	out, _ := translate.ChatUsage(u)
	return out
}
