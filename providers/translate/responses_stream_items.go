package translate

import (
	"github.com/tidwall/gjson"
	"strconv"
)

// reasoningDelta adds reasoning text, opening a reasoning item (with one
// reasoning_text part) when the open item is not one.
func (s *ChatToResponsesStream) reasoningDelta(v gjson.Result) {
	if s.cur < 0 || s.items[s.cur].kind != respKindReasoning {
		s.closeCur(respCompleted)
		s.open(respKindReasoning, nil, nil, -1)
		s.openPart(respPartReasoning)
	}
	s.partDelta(v)
}

// messageDelta adds output text or refusal text to the open message item,
// opening the item or a new content part as needed.
func (s *ChatToResponsesStream) messageDelta(kind int, v gjson.Result) {
	if s.cur < 0 || s.items[s.cur].kind != respKindMessage {
		s.closeCur(respCompleted)
		s.open(respKindMessage, nil, nil, -1)
	}
	it := &s.items[s.cur]
	if n := len(it.parts); n == 0 || it.parts[n-1].kind != kind {
		if n > 0 {
			s.closePart()
		}
		s.openPart(kind)
	}
	s.partDelta(v)
}

// toolDelta handles one element of a chunk's delta.tool_calls. A call is
// new when its index differs from the open call's, or when it brings an
// id different from the open call's (some upstreams reuse index 0, some
// send no index). It reports false when it ended the stream.
func (s *ChatToResponsesStream) toolDelta(tc gjson.Result) bool {
	var index, id, name, args gjson.Result
	tc.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "index":
			index = v
		case "id":
			id = v
		case "function":
			v.ForEach(func(k, v gjson.Result) bool {
				switch k.Str {
				case "name":
					name = v
				case "arguments":
					args = v
				}
				return true
			})
		}
		return true
	})
	tool := int64(-1)
	if index.Type == gjson.Number {
		tool = index.Int()
	}
	hasID := id.Type == gjson.String && id.Str != ""
	same := s.cur >= 0 && s.items[s.cur].kind == respKindCall
	if same {
		it := &s.items[s.cur]
		if tool >= 0 && tool != it.tool {
			same = false
		}
		if hasID && respRawInner(id) != string(it.callID) {
			same = false
		}
	}
	if !same {
		if !hasID && tool >= 0 {
			for i := range s.items {
				if s.items[i].kind == respKindCall && s.items[i].tool == tool {
					s.fail("server_error", "upstream interleaved the arguments of parallel tool calls, which the Responses stream format cannot carry")
					return false
				}
			}
		}
		s.closeCur(respCompleted)
		var callID []byte
		if hasID {
			callID = respInner(nil, id)
		} else {
			callID = append([]byte("call_"), s.h.suffix...)
			callID = strconv.AppendInt(append(callID, '_'), int64(s.counts[respKindCall]), 10)
		}
		var nm []byte
		if name.Exists() {
			nm = respInner(nil, name)
		}
		s.open(respKindCall, callID, nm, tool)
	} else if name.Type == gjson.String && name.Str != "" && len(s.items[s.cur].name) == 0 {
		s.items[s.cur].name = respInner(nil, name)
	}
	if args.Type == gjson.String && args.Str != "" {
		it := &s.items[s.cur]
		it.args = respInner(it.args, args)
		w := s.begin("response.function_call_arguments.delta")
		w.key("delta")
		w.raw(args.Raw)
		w.key("item_id")
		s.h.writeItemID(w, it)
		w.key("output_index")
		w.int(int64(s.cur))
		s.end("response.function_call_arguments.delta")
	}
	return true
}

// open starts a new output item and emits response.output_item.added.
func (s *ChatToResponsesStream) open(kind int, callID, name []byte, tool int64) {
	s.items = append(s.items, respItem{kind: kind, n: s.counts[kind], callID: callID, name: name, tool: tool})
	s.counts[kind]++
	s.cur = len(s.items) - 1
	w := s.begin("response.output_item.added")
	w.key("item")
	s.h.writeItem(w, &s.items[s.cur], s.cur, true)
	w.key("output_index")
	w.int(int64(s.cur))
	s.end("response.output_item.added")
}

// openPart starts a content part of the open item and emits
// response.content_part.added.
func (s *ChatToResponsesStream) openPart(kind int) {
	it := &s.items[s.cur]
	it.parts = append(it.parts, respPart{kind: kind})
	s.partEvent("response.content_part.added", it, len(it.parts)-1)
}

// partEvent emits a content_part.added or .done event for part j of it.
func (s *ChatToResponsesStream) partEvent(typ string, it *respItem, j int) {
	w := s.begin(typ)
	w.key("content_index")
	w.int(int64(j))
	w.key("item_id")
	s.h.writeItemID(w, it)
	w.key("output_index")
	w.int(int64(s.cur))
	w.key("part")
	s.h.writePart(w, &it.parts[j])
	s.end(typ)
}

// partDelta appends v to the open part and emits its delta event.
func (s *ChatToResponsesStream) partDelta(v gjson.Result) {
	it := &s.items[s.cur]
	j := len(it.parts) - 1
	p := &it.parts[j]
	p.text = respInner(p.text, v)
	typ := "response.output_text.delta"
	switch p.kind {
	case respPartRefusal:
		typ = "response.refusal.delta"
	case respPartReasoning:
		typ = "response.reasoning_text.delta"
	}
	w := s.begin(typ)
	w.key("content_index")
	w.int(int64(j))
	w.key("delta")
	w.raw(v.Raw)
	w.key("item_id")
	s.h.writeItemID(w, it)
	if p.kind == respPartText {
		w.key("logprobs")
		w.raw("[]")
	}
	w.key("output_index")
	w.int(int64(s.cur))
	s.end(typ)
}

// closePart emits the done events of the open item's last part.
func (s *ChatToResponsesStream) closePart() {
	it := &s.items[s.cur]
	j := len(it.parts) - 1
	p := &it.parts[j]
	typ, field := "response.output_text.done", "text"
	switch p.kind {
	case respPartRefusal:
		typ, field = "response.refusal.done", "refusal"
	case respPartReasoning:
		typ = "response.reasoning_text.done"
	}
	w := s.begin(typ)
	w.key("content_index")
	w.int(int64(j))
	w.key("item_id")
	s.h.writeItemID(w, it)
	if p.kind == respPartText {
		w.key("logprobs")
		w.raw("[]")
	}
	w.key("output_index")
	w.int(int64(s.cur))
	w.key(field)
	w.escaped(p.text)
	s.end(typ)
	s.partEvent("response.content_part.done", it, j)
}

// closeCur finishes the open item with status and emits its done events.
func (s *ChatToResponsesStream) closeCur(status string) {
	if s.cur < 0 {
		return
	}
	it := &s.items[s.cur]
	switch it.kind {
	case respKindCall:
		w := s.begin("response.function_call_arguments.done")
		w.key("arguments")
		w.escaped(it.args)
		w.key("item_id")
		s.h.writeItemID(w, it)
		w.key("output_index")
		w.int(int64(s.cur))
		s.end("response.function_call_arguments.done")
	default:
		if len(it.parts) > 0 {
			s.closePart()
		}
	}
	it.done = true
	it.status = status
	w := s.begin("response.output_item.done")
	w.key("item")
	s.h.writeItem(w, it, s.cur, false)
	w.key("output_index")
	w.int(int64(s.cur))
	s.end("response.output_item.done")
	s.cur = -1
}

// respRawInner returns the escaped contents of the JSON string r.
func respRawInner(r gjson.Result) string {
	if len(r.Raw) < 2 || r.Raw[0] != '"' {
		return ""
	}
	return r.Raw[1 : len(r.Raw)-1]
}
