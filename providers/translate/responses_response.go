package translate

import (
	"errors"
	"strconv"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"
)

// ChatToResponsesResponse translates a non-streamed Chat Completions
// response into a Responses API response object. req is the client's
// original Responses request; its settings (instructions, tools, metadata,
// ...) are echoed the way the Responses API echoes them. The output holds
// a reasoning item when the upstream returned reasoning text
// (reasoning_content or reasoning), a message item with the text (and any
// refusal), and one function_call item per tool call. finish_reason
// "length" or "content_filter" makes the response incomplete. usage is the
// upstream's usage, zero when it reported none (the response's usage is
// then null). An error means the upstream body is not a chat completion.
func ChatToResponsesResponse(chat []byte, req []byte) (responses []byte, usage Usage, err error) {
	if !gjson.ValidBytes(chat) {
		return nil, Usage{}, errors.New("translate: upstream chat completion is not valid JSON")
	}
	top := respReadChatTop(gjson.Parse(unsafe.String(unsafe.SliceData(chat), len(chat))))
	if top.err.Exists() && top.err.Type != gjson.Null {
		return nil, Usage{}, errors.New("translate: upstream returned an error: " + top.err.Get("message").String())
	}
	choice := top.choices.Get("0")
	if !choice.IsObject() {
		return nil, Usage{}, errors.New("translate: upstream chat completion has no choices")
	}
	h := respHead{echo: newRespEcho(req)}
	h.setTop(&top)
	now := time.Now().Unix()

	msg := choice.Get("message")
	incomplete := respIncompleteReason(choice.Get("finish_reason").Str)
	status := respCompleted
	if incomplete != "" {
		status = respIncomplete
	}
	var itemsBuf [3]respItem
	items := itemsBuf[:0]
	if r := respReasoningText(msg); r.Type == gjson.String && r.Str != "" {
		items = append(items, respItem{kind: respKindReasoning, parts: []respPart{{kind: respPartReasoning, text: respInner(nil, r)}}})
	}
	text, hasText := respMessageText(msg.Get("content"))
	refusal := msg.Get("refusal")
	hasRefusal := refusal.Type == gjson.String && refusal.Str != ""
	calls := msg.Get("tool_calls")
	hasCalls := calls.IsArray() && calls.Get("0").Exists()
	if hasText || hasRefusal || !hasCalls {
		// A message item unless the answer is only tool calls; an empty
		// answer is an empty output_text, as the Responses API gives.
		it := respItem{kind: respKindMessage}
		if hasText || !hasRefusal {
			it.parts = append(it.parts, respPart{kind: respPartText, text: text})
		}
		if hasRefusal {
			it.parts = append(it.parts, respPart{kind: respPartRefusal, text: respInner(nil, refusal)})
		}
		items = append(items, it)
	}
	if hasCalls {
		n := 0
		calls.ForEach(func(_, c gjson.Result) bool {
			it := respItem{kind: respKindCall, n: n}
			it.callID = respInner(nil, c.Get("id"))
			if len(it.callID) == 0 {
				it.callID = append([]byte("call_"), h.suffix...)
				it.callID = strconv.AppendInt(append(it.callID, '_'), int64(n), 10)
			}
			it.name = respInner(nil, c.Get("function.name"))
			it.args = respInner(nil, c.Get("function.arguments"))
			items = append(items, it)
			n++
			return true
		})
	}
	for i := range items {
		items[i].done = true
		items[i].status = status
	}

	var up *Usage
	if u, ok := ChatUsage(top.usage); ok {
		usage = u
		up = &usage
	}
	completedAt := now
	if status != respCompleted {
		completedAt = 0
	}
	w := respWriter{buf: make([]byte, 0, len(chat)+len(h.echo.head)+len(h.echo.mid)+len(h.echo.tail)+512)}
	h.writeResponse(&w, status, completedAt, incomplete, nil, items, up)
	return w.buf, usage, nil
}

// respReasoningText returns the reasoning text of a chat message or delta:
// reasoning_content (DeepSeek, vLLM, Qwen, ...) or reasoning (OpenRouter,
// Groq, Ollama).
func respReasoningText(msg gjson.Result) gjson.Result {
	if r := msg.Get("reasoning_content"); r.Type == gjson.String && r.Str != "" {
		return r
	}
	return msg.Get("reasoning")
}

// respMessageText returns the escaped text of a chat message's content: a
// string, or the text parts of a content array (Mistral answers with
// arrays that also hold thinking parts). ok reports non-empty text.
func respMessageText(content gjson.Result) (text []byte, ok bool) {
	switch {
	case content.Type == gjson.String:
		text = respInner(nil, content)
	case content.IsArray():
		content.ForEach(func(_, part gjson.Result) bool {
			if part.Get("type").Str == "text" {
				text = respInner(text, part.Get("text"))
			}
			return true
		})
	}
	return text, len(text) > 0
}

// respChatTop holds the top-level fields of a chat completion or chunk,
// read in one pass.
type respChatTop struct {
	id, created, model, tier, choices, usage, err gjson.Result
}

func respReadChatTop(root gjson.Result) (t respChatTop) {
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "id":
			t.id = v
		case "created":
			t.created = v
		case "model":
			t.model = v
		case "service_tier":
			t.tier = v
		case "choices":
			t.choices = v
		case "usage":
			t.usage = v
		case "error":
			t.err = v
		}
		return true
	})
	return t
}

// setTop takes the response id, creation time, model and service tier
// from the upstream's first chunk or completion.
func (h *respHead) setTop(t *respChatTop) {
	h.setID(t.id.String())
	h.createdAt = t.created.Int()
	if h.createdAt == 0 {
		h.createdAt = time.Now().Unix()
	}
	if t.model.Type == gjson.String && t.model.Str != "" {
		h.model = []byte(t.model.Raw)
	}
	if t.tier.Type == gjson.String {
		h.tier = []byte(t.tier.Raw)
	}
}
