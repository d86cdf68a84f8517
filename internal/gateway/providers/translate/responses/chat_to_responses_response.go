package responses

import (
	"errors"
	"strconv"
	"time"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
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
func ChatToResponsesResponse(chat []byte, req []byte) (responses []byte, usage catalog.Usage, err error) {
	return ChatToResponsesResponseStored(chat, req, nil)
}

// ChatToResponsesResponseStored is ChatToResponsesResponse for a response
// the gateway keeps as st says (nil: none).
func ChatToResponsesResponseStored(chat, req []byte, st *Stored) (responses []byte, usage catalog.Usage, err error) {
	if !gjson.ValidBytes(chat) {
		return nil, catalog.Usage{}, errors.New("translate: upstream chat completion is not valid JSON")
	}
	top := readChatTop(translate.ParseBorrowed(chat))
	if top.err.Exists() && top.err.Type != gjson.Null {
		return nil, catalog.Usage{}, errors.New("translate: upstream returned an error: " + top.err.Get("message").String())
	}
	choice := top.choices.Get("0")
	if !choice.IsObject() {
		return nil, catalog.Usage{}, errors.New("translate: upstream chat completion has no choices")
	}
	h := head{echo: newEchoStored(req, st)}
	h.setTop(&top)
	now := time.Now().Unix()

	msg := choice.Get("message")
	incomplete := incompleteReason(choice.Get("finish_reason").Str)
	status := statusCompleted
	if incomplete != "" {
		status = statusIncomplete
	}
	var itemsBuf [3]outputItem
	items := itemsBuf[:0]
	if r := reasoningText(msg); r.Type == gjson.String && r.Str != "" {
		items = append(items, outputItem{kind: kindReasoning, parts: []contentPart{{kind: partReasoning, text: translate.AppendInner(nil, r)}}})
	}
	text, hasText := messageText(msg.Get("content"))
	refusal := msg.Get("refusal")
	hasRefusal := refusal.Type == gjson.String && refusal.Str != ""
	calls := msg.Get("tool_calls")
	hasCalls := calls.IsArray() && calls.Get("0").Exists()
	if hasText || hasRefusal || !hasCalls {
		// A message item unless the answer is only tool calls; an empty
		// answer is an empty output_text, as the Responses API gives.
		it := outputItem{kind: kindMessage}
		if hasText || !hasRefusal {
			it.parts = append(it.parts, contentPart{kind: partText, text: text})
		}
		if hasRefusal {
			it.parts = append(it.parts, contentPart{kind: partRefusal, text: translate.AppendInner(nil, refusal)})
		}
		items = append(items, it)
	}
	if hasCalls {
		n := 0
		calls.ForEach(func(_, c gjson.Result) bool {
			it := outputItem{kind: kindCall, n: n}
			it.callID = translate.AppendInner(nil, c.Get("id"))
			if len(it.callID) == 0 {
				it.callID = append([]byte("call_"), h.suffix...)
				it.callID = strconv.AppendInt(append(it.callID, '_'), int64(n), 10)
			}
			it.name = translate.AppendInner(nil, c.Get("function.name"))
			it.args = translate.AppendInner(nil, c.Get("function.arguments"))
			items = append(items, it)
			n++
			return true
		})
	}
	for i := range items {
		items[i].done = true
		items[i].status = status
	}

	var up *catalog.Usage
	if u, ok := translate.ChatUsage(top.usage); ok {
		usage = u
		up = &usage
	}
	completedAt := now
	if status != statusCompleted {
		completedAt = 0
	}
	w := translate.Writer{Buf: make([]byte, 0, len(chat)+len(h.echo.head)+len(h.echo.mid)+len(h.echo.tail)+512)}
	h.writeResponse(&w, status, completedAt, incomplete, nil, items, up)
	return w.Buf, usage, nil
}

// reasoningText returns the reasoning text of a chat message or delta:
// reasoning_content (DeepSeek, vLLM, Qwen, ...) or reasoning (OpenRouter,
// Groq, Ollama).
func reasoningText(msg gjson.Result) gjson.Result {
	if r := msg.Get("reasoning_content"); r.Type == gjson.String && r.Str != "" {
		return r
	}
	return msg.Get("reasoning")
}

// messageText returns the escaped text of a chat message's content: a
// string, or the text parts of a content array (Mistral answers with
// arrays that also hold thinking parts). ok reports non-empty text.
func messageText(content gjson.Result) (text []byte, ok bool) {
	switch {
	case content.Type == gjson.String:
		text = translate.AppendInner(nil, content)
	case content.IsArray():
		content.ForEach(func(_, part gjson.Result) bool {
			if part.Get("type").Str == "text" {
				text = translate.AppendInner(text, part.Get("text"))
			}
			return true
		})
	}
	return text, len(text) > 0
}

// chatTop holds the top-level fields of a chat completion or chunk,
// read in one pass.
type chatTop struct {
	id, created, model, tier, choices, usage, err gjson.Result
}

func readChatTop(root gjson.Result) (t chatTop) {
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
func (h *head) setTop(t *chatTop) {
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
