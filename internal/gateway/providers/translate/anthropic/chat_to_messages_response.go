package anthropic

import (
	"errors"
	"strconv"
	"strings"

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

// writeMessageID writes the id member of a message translated from a chat
// completion. Anthropic message ids start with msg_, so the upstream's id
// takes that prefix in place of OpenAI's chatcmpl- (chatcmpl-abc becomes
// msg_abc, any other id gets msg_ in front); an id that already starts
// with msg_ is kept and a missing one is made up. The mapping is
// deterministic, so the id still leads back to the upstream's logs.
func writeMessageID(w *translate.Writer, id gjson.Result) {
	w.Key("id")
	if id.Type != gjson.String || id.Str == "" {
		w.Str(translate.NewID("msg_"))
		return
	}
	if strings.HasPrefix(id.Str, "msg_") {
		w.RawStr(id)
		return
	}
	w.Sep()
	w.Buf = append(w.Buf, `"msg_`...)
	w.Buf = translate.AppendEscaped(w.Buf, strings.TrimPrefix(id.Str, "chatcmpl-"))
	w.Buf = append(w.Buf, '"')
}

// Vocabulary of the OpenAI Chat Completions wire format used by the
// Anthropic translation.

// Chat finish reasons.
const (
	chatFinishStop          = "stop"
	chatFinishLength        = "length"
	chatFinishToolCalls     = "tool_calls"
	chatFinishContentFilter = "content_filter"
	chatFinishFunctionCall  = "function_call"
)

// chatFinishToAnthropic maps a chat finish_reason onto an Anthropic
// stop_reason. hadToolCalls says whether the message carried tool calls:
// some OpenAI-compatible upstreams report "stop" after calling tools, and
// an Anthropic client needs "tool_use" to run them.
func chatFinishToAnthropic(reason string, hadToolCalls bool) string {
	switch reason {
	case chatFinishLength:
		return anthropicStopMaxTokens
	case chatFinishToolCalls, chatFinishFunctionCall:
		return anthropicStopToolUse
	case chatFinishContentFilter:
		return anthropicStopRefusal
	}
	if hadToolCalls {
		return anthropicStopToolUse
	}
	return anthropicStopEndTurn
}

// Reasoning effort levels of reasoning_effort and the thinking budget
// (budget_tokens) each one becomes on Anthropic models. The budgets double
// from "low" up; "minimal" is Anthropic's smallest allowed budget.
var chatEffortBudgets = map[string]int64{
	"minimal": 1024,
	"low":     2048,
	"medium":  8192,
	"high":    16384,
	"xhigh":   32768,
}

// anthropicMinThinkingBudget is the smallest budget_tokens Anthropic
// accepts.
const anthropicMinThinkingBudget = 1024

// budgetToChatEffort maps an Anthropic thinking budget onto the closest of
// the three reasoning_effort levels every OpenAI reasoning model accepts.
// It is the inverse of chatEffortBudgets for "low", "medium" and "high".
func budgetToChatEffort(budget int64) string {
	switch {
	case budget < 4096:
		return "low"
	case budget < 16384:
		return "medium"
	default:
		return "high"
	}
}
