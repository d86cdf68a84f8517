package responses

import (
	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// Kinds of output item and of message content part.
const (
	kindReasoning = iota + 1
	kindMessage
	kindCall

	partReasoning = 0 // reasoning_text, the one part of a reasoning item
	partText      = 1
	partRefusal   = 2
)

// contentPart is one content part of a message (output_text or refusal) or
// the reasoning_text of a reasoning item. text is JSON-escaped.
type contentPart struct {
	kind int
	text []byte
}

// outputItem is one output item. Strings are kept JSON-escaped (the inside
// of a string literal) so streamed deltas are appended without decoding.
type outputItem struct {
	kind   int
	n      int // position among items of its kind, for ids
	parts  []contentPart
	callID []byte // function_call
	name   []byte
	args   []byte
	tool   int64 // the chat tool_calls index
	done   bool
	status string // set when done
}

// writeItem writes it. In the added form (added true) the item is shown as
// it starts: no content, empty arguments, status in_progress.
func (h *head) writeItem(w *translate.Writer, it *outputItem, outputIndex int, added bool) {
	status := it.status
	if added || status == "" {
		status = statusInProgress
	}
	w.Obj()
	w.Key("id")
	switch it.kind {
	case kindReasoning:
		h.writeID(w, "rs_", it.n)
		w.Key("type")
		w.Str("reasoning")
		w.Key("summary")
		w.Raw("[]")
		w.Key("content")
		w.Arr()
		if !added {
			for i := range it.parts {
				h.writePart(w, &it.parts[i])
			}
		}
		w.EndArr()
	case kindMessage:
		h.writeID(w, "msg_", it.n)
		w.Key("type")
		w.Str("message")
		w.Key("status")
		w.Str(status)
		w.Key("content")
		w.Arr()
		if !added {
			for i := range it.parts {
				h.writePart(w, &it.parts[i])
			}
		}
		w.EndArr()
		w.Key("role")
		w.Str("assistant")
	case kindCall:
		h.writeID(w, "fc_", it.n)
		w.Key("type")
		w.Str("function_call")
		w.Key("status")
		w.Str(status)
		w.Key("arguments")
		if added {
			w.Str("")
		} else {
			w.Escaped(it.args)
		}
		w.Key("call_id")
		w.Escaped(it.callID)
		w.Key("name")
		if q, ok := h.echo.ns[string(it.name)]; ok {
			// A flattened namespace tool goes back as the namespace's own.
			w.Str(q.name)
			w.Key("namespace")
			w.Str(q.ns)
		} else {
			w.Escaped(it.name)
		}
	}
	w.EndObj()
}

// writePart writes a content part with its full text; with empty text it is
// the part as announced by response.content_part.added.
func (h *head) writePart(w *translate.Writer, p *contentPart) {
	w.Obj()
	switch p.kind {
	case partText:
		w.Key("type")
		w.Str("output_text")
		w.Key("annotations")
		w.Raw("[]")
		w.Key("logprobs")
		w.Raw("[]")
		w.Key("text")
		w.Escaped(p.text)
	case partRefusal:
		w.Key("type")
		w.Str("refusal")
		w.Key("refusal")
		w.Escaped(p.text)
	default:
		w.Key("type")
		w.Str("reasoning_text")
		w.Key("text")
		w.Escaped(p.text)
	}
	w.EndObj()
}

// writeItemID writes the id of it as a string value.
func (h *head) writeItemID(w *translate.Writer, it *outputItem) {
	switch it.kind {
	case kindReasoning:
		h.writeID(w, "rs_", it.n)
	case kindMessage:
		h.writeID(w, "msg_", it.n)
	default:
		h.writeID(w, "fc_", it.n)
	}
}
