package translate

// Kinds of output item and of message content part.
const (
	respKindReasoning = iota + 1
	respKindMessage
	respKindCall

	respPartReasoning = 0 // reasoning_text, the one part of a reasoning item
	respPartText      = 1
	respPartRefusal   = 2
)

// respPart is one content part of a message (output_text or refusal) or
// the reasoning_text of a reasoning item. text is JSON-escaped.
type respPart struct {
	kind int
	text []byte
}

// respItem is one output item. Strings are kept JSON-escaped (the inside
// of a string literal) so streamed deltas are appended without decoding.
type respItem struct {
	kind   int
	n      int // position among items of its kind, for ids
	parts  []respPart
	callID []byte // function_call
	name   []byte
	args   []byte
	tool   int64 // the chat tool_calls index
	done   bool
	status string // set when done
}

// writeItem writes it. In the added form (added true) the item is shown as
// it starts: no content, empty arguments, status in_progress.
func (h *respHead) writeItem(w *respWriter, it *respItem, outputIndex int, added bool) {
	status := it.status
	if added || status == "" {
		status = respInProgress
	}
	w.obj()
	w.key("id")
	switch it.kind {
	case respKindReasoning:
		h.writeID(w, "rs_", it.n)
		w.key("type")
		w.str("reasoning")
		w.key("summary")
		w.raw("[]")
		w.key("content")
		w.arr()
		if !added {
			for i := range it.parts {
				h.writePart(w, &it.parts[i])
			}
		}
		w.endArr()
	case respKindMessage:
		h.writeID(w, "msg_", it.n)
		w.key("type")
		w.str("message")
		w.key("status")
		w.str(status)
		w.key("content")
		w.arr()
		if !added {
			for i := range it.parts {
				h.writePart(w, &it.parts[i])
			}
		}
		w.endArr()
		w.key("role")
		w.str("assistant")
	case respKindCall:
		h.writeID(w, "fc_", it.n)
		w.key("type")
		w.str("function_call")
		w.key("status")
		w.str(status)
		w.key("arguments")
		if added {
			w.str("")
		} else {
			w.escaped(it.args)
		}
		w.key("call_id")
		w.escaped(it.callID)
		w.key("name")
		w.escaped(it.name)
	}
	w.endObj()
}

// writePart writes a content part with its full text; with empty text it is
// the part as announced by response.content_part.added.
func (h *respHead) writePart(w *respWriter, p *respPart) {
	w.obj()
	switch p.kind {
	case respPartText:
		w.key("type")
		w.str("output_text")
		w.key("annotations")
		w.raw("[]")
		w.key("logprobs")
		w.raw("[]")
		w.key("text")
		w.escaped(p.text)
	case respPartRefusal:
		w.key("type")
		w.str("refusal")
		w.key("refusal")
		w.escaped(p.text)
	default:
		w.key("type")
		w.str("reasoning_text")
		w.key("text")
		w.escaped(p.text)
	}
	w.endObj()
}

// writeItemID writes the id of it as a string value.
func (h *respHead) writeItemID(w *respWriter, it *respItem) {
	switch it.kind {
	case respKindReasoning:
		h.writeID(w, "rs_", it.n)
	case respKindMessage:
		h.writeID(w, "msg_", it.n)
	default:
		h.writeID(w, "fc_", it.n)
	}
}
