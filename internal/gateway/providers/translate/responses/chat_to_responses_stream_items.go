package responses

import (
	"github.com/tidwall/gjson"
	"strconv"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// reasoningDelta adds reasoning text, opening a reasoning item (with one
// reasoning_text part) when the open item is not one.
func (s *ChatToResponsesStream) reasoningDelta(v gjson.Result) {
	if s.cur < 0 || s.items[s.cur].kind != kindReasoning {
		s.closeCur(statusCompleted)
		s.open(kindReasoning, nil, nil, -1)
		s.openPart(partReasoning)
	}
	s.partDelta(v)
}

// messageDelta adds output text or refusal text to the open message item,
// opening the item or a new content part as needed.
func (s *ChatToResponsesStream) messageDelta(kind int, v gjson.Result) {
	if s.cur < 0 || s.items[s.cur].kind != kindMessage {
		s.closeCur(statusCompleted)
		s.open(kindMessage, nil, nil, -1)
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
	same := s.cur >= 0 && s.items[s.cur].kind == kindCall
	if same {
		it := &s.items[s.cur]
		if tool >= 0 && tool != it.tool {
			same = false
		}
		if hasID && translate.RawInner(id) != string(it.callID) {
			same = false
		}
	}
	if !same {
		if !hasID && tool >= 0 {
			for i := range s.items {
				if s.items[i].kind == kindCall && s.items[i].tool == tool {
					s.fail("server_error", "upstream interleaved the arguments of parallel tool calls, which the Responses stream format cannot carry")
					return false
				}
			}
		}
		s.closeCur(statusCompleted)
		var callID []byte
		if hasID {
			callID = translate.AppendInner(nil, id)
		} else {
			callID = append([]byte("call_"), s.h.suffix...)
			callID = strconv.AppendInt(append(callID, '_'), int64(s.counts[kindCall]), 10)
		}
		var nm []byte
		if name.Exists() {
			nm = translate.AppendInner(nil, name)
		}
		s.open(kindCall, callID, nm, tool)
	} else if name.Type == gjson.String && name.Str != "" && len(s.items[s.cur].name) == 0 {
		s.items[s.cur].name = translate.AppendInner(nil, name)
	}
	if args.Type == gjson.String && args.Str != "" {
		it := &s.items[s.cur]
		it.args = translate.AppendInner(it.args, args)
		w := s.begin("response.function_call_arguments.delta")
		w.Key("delta")
		w.Raw(args.Raw)
		w.Key("item_id")
		s.h.writeItemID(w, it)
		w.Key("output_index")
		w.Int(int64(s.cur))
		s.end()
	}
	return true
}

// open starts a new output item and emits response.output_item.added.
func (s *ChatToResponsesStream) open(kind int, callID, name []byte, tool int64) {
	s.items = append(s.items, outputItem{kind: kind, n: s.counts[kind], callID: callID, name: name, tool: tool})
	s.counts[kind]++
	s.cur = len(s.items) - 1
	w := s.begin("response.output_item.added")
	w.Key("item")
	s.h.writeItem(w, &s.items[s.cur], s.cur, true)
	w.Key("output_index")
	w.Int(int64(s.cur))
	s.end()
}

// openPart starts a content part of the open item and emits
// response.content_part.added.
func (s *ChatToResponsesStream) openPart(kind int) {
	it := &s.items[s.cur]
	it.parts = append(it.parts, contentPart{kind: kind})
	s.partEvent("response.content_part.added", it, len(it.parts)-1)
}

// partEvent emits a content_part.added or .done event for part j of it.
func (s *ChatToResponsesStream) partEvent(typ string, it *outputItem, j int) {
	w := s.begin(typ)
	w.Key("content_index")
	w.Int(int64(j))
	w.Key("item_id")
	s.h.writeItemID(w, it)
	w.Key("output_index")
	w.Int(int64(s.cur))
	w.Key("part")
	s.h.writePart(w, &it.parts[j])
	s.end()
}

// partDelta appends v to the open part and emits its delta event.
func (s *ChatToResponsesStream) partDelta(v gjson.Result) {
	it := &s.items[s.cur]
	j := len(it.parts) - 1
	p := &it.parts[j]
	p.text = translate.AppendInner(p.text, v)
	typ := "response.output_text.delta"
	switch p.kind {
	case partRefusal:
		typ = "response.refusal.delta"
	case partReasoning:
		typ = "response.reasoning_text.delta"
	}
	w := s.begin(typ)
	w.Key("content_index")
	w.Int(int64(j))
	w.Key("delta")
	w.Raw(v.Raw)
	w.Key("item_id")
	s.h.writeItemID(w, it)
	if p.kind == partText {
		w.Key("logprobs")
		w.Raw("[]")
	}
	w.Key("output_index")
	w.Int(int64(s.cur))
	s.end()
}

// closePart emits the done events of the open item's last part.
func (s *ChatToResponsesStream) closePart() {
	it := &s.items[s.cur]
	j := len(it.parts) - 1
	p := &it.parts[j]
	typ, field := "response.output_text.done", "text"
	switch p.kind {
	case partRefusal:
		typ, field = "response.refusal.done", "refusal"
	case partReasoning:
		typ = "response.reasoning_text.done"
	}
	w := s.begin(typ)
	w.Key("content_index")
	w.Int(int64(j))
	w.Key("item_id")
	s.h.writeItemID(w, it)
	if p.kind == partText {
		w.Key("logprobs")
		w.Raw("[]")
	}
	w.Key("output_index")
	w.Int(int64(s.cur))
	w.Key(field)
	w.Escaped(p.text)
	s.end()
	s.partEvent("response.content_part.done", it, j)
}

// closeCur finishes the open item with status and emits its done events.
func (s *ChatToResponsesStream) closeCur(status string) {
	if s.cur < 0 {
		return
	}
	it := &s.items[s.cur]
	switch it.kind {
	case kindCall:
		w := s.begin("response.function_call_arguments.done")
		w.Key("arguments")
		w.Escaped(it.args)
		w.Key("item_id")
		s.h.writeItemID(w, it)
		w.Key("output_index")
		w.Int(int64(s.cur))
		s.end()
	default:
		if len(it.parts) > 0 {
			s.closePart()
		}
	}
	it.done = true
	it.status = status
	w := s.begin("response.output_item.done")
	w.Key("item")
	s.h.writeItem(w, it, s.cur, false)
	w.Key("output_index")
	w.Int(int64(s.cur))
	s.end()
	s.cur = -1
}
