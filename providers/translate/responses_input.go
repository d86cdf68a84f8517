package translate

import (
	"github.com/tidwall/gjson"
)

// respMsgWriter writes the chat messages array. The last assistant message
// stays open so that function_call items following it become its
// tool_calls: Chat Completions wants one assistant message carrying every
// call of a turn, followed by one tool message per call.
type respMsgWriter struct {
	w         *respWriter
	n         int  // messages written
	asstOpen  bool // the last message is an assistant object not yet closed
	callsOpen bool // ... and its tool_calls array is open
}

func (m *respMsgWriter) closePending() {
	if m.callsOpen {
		m.w.endArr()
		m.callsOpen = false
	}
	if m.asstOpen {
		m.w.endObj()
		m.asstOpen = false
	}
}

// begin opens a message object with role.
func (m *respMsgWriter) begin(role string) {
	m.closePending()
	m.w.obj()
	m.w.key("role")
	m.w.str(role)
	m.n++
}

// respWriteMessages writes "messages": instructions as a leading system
// message, then every input item.
func respWriteMessages(w *respWriter, instructions, input gjson.Result) error {
	w.key("messages")
	w.arr()
	m := respMsgWriter{w: w}
	if instructions.Exists() && instructions.Str != "" {
		m.begin("system")
		w.key("content")
		w.raw(instructions.Raw)
		w.endObj()
	}
	switch {
	case input.Type == gjson.String:
		m.begin("user")
		w.key("content")
		w.raw(input.Raw)
		w.endObj()
	case input.IsArray():
		var err error
		i := 0
		input.ForEach(func(_, item gjson.Result) bool {
			err = m.item(item, respIndex("input", i))
			i++
			return err == nil
		})
		if err != nil {
			return err
		}
	default:
		return respTypeError("input", "a string or an array of input items")
	}
	m.closePending()
	w.endArr()
	if m.n == 0 {
		return &Error{Message: "input must contain at least one message", Param: "input"}
	}
	return nil
}

// item translates one input item at path p.
func (m *respMsgWriter) item(item gjson.Result, p string) error {
	if !item.IsObject() {
		return respTypeError(p, "an input item object")
	}
	o := respReadObj(item)
	typ := o.typ
	switch typ.Str {
	case "", "message":
		if typ.Exists() && typ.Type != gjson.String {
			return respTypeError(p+".type", "a string")
		}
		return m.message(&o, p)
	case "function_call":
		return m.functionCall(&o, p)
	case "function_call_output":
		return m.functionCallOutput(&o, p)
	case "reasoning":
		// Reasoning items carry the model's earlier thoughts (usually
		// encrypted, for OpenAI's servers only). Chat Completions has no
		// way to send them back; the conversation stays valid without.
		return nil
	case "item_reference":
		return &Error{Message: "item_reference is not supported for this model: the gateway keeps no stored items; send the item itself", Param: p + ".type"}
	default:
		return &Error{Message: "input item type '" + typ.Str + "' is not supported for this model: only message, function_call, function_call_output and reasoning items translate to Chat Completions", Param: p + ".type"}
	}
}

// message translates a message item (easy or typed form).
func (m *respMsgWriter) message(o *respObj, p string) error {
	role, content := o.role, o.content
	if !content.Exists() {
		return &Error{Message: "Missing required parameter: '" + p + ".content'.", Param: p + ".content"}
	}
	if content.Type != gjson.String && !content.IsArray() {
		return respTypeError(p+".content", "a string or an array of content parts")
	}
	switch role.Str {
	case "user":
		m.begin("user")
		m.w.key("content")
		if err := respUserContent(m.w, content, p+".content"); err != nil {
			return err
		}
		m.w.endObj()
	case "system", "developer":
		// Chat's system role is the developer role: OpenAI treats a system
		// message as developer instructions, and other providers know only
		// system.
		m.begin("system")
		m.w.key("content")
		if err := respTextContent(m.w, content, p+".content", false); err != nil {
			return err
		}
		m.w.endObj()
	case "assistant":
		m.begin("assistant")
		m.w.key("content")
		if err := respTextContent(m.w, content, p+".content", true); err != nil {
			return err
		}
		if content.IsArray() {
			if refusal := respJoinRefusals(content); refusal != nil {
				m.w.key("refusal")
				m.w.escaped(refusal)
			}
		}
		m.asstOpen = true // function_call items may follow
	default:
		if !role.Exists() {
			return &Error{Message: "Missing required parameter: '" + p + ".role'.", Param: p + ".role"}
		}
		return &Error{Message: "Invalid value for '" + p + ".role': expected one of user, assistant, system, developer.", Param: p + ".role"}
	}
	return nil
}

// functionCall appends a function_call item to the open assistant message
// (opening one when the previous message is not an assistant's).
func (m *respMsgWriter) functionCall(o *respObj, p string) error {
	callID, name, args := o.callID, o.name, o.arguments
	if callID.Type != gjson.String || callID.Str == "" {
		return &Error{Message: "Missing required parameter: '" + p + ".call_id'.", Param: p + ".call_id"}
	}
	if name.Type != gjson.String || name.Str == "" {
		return &Error{Message: "Missing required parameter: '" + p + ".name'.", Param: p + ".name"}
	}
	if args.Exists() && args.Type != gjson.String {
		return respTypeError(p+".arguments", "a string")
	}
	if !m.asstOpen {
		m.begin("assistant")
		m.w.key("content")
		m.w.null()
		m.asstOpen = true
	}
	if !m.callsOpen {
		m.w.key("tool_calls")
		m.w.arr()
		m.callsOpen = true
	}
	w := m.w
	w.obj()
	w.key("id")
	w.raw(callID.Raw)
	w.key("type")
	w.str("function")
	w.key("function")
	w.obj()
	w.key("name")
	w.raw(name.Raw)
	w.key("arguments")
	if args.Exists() {
		w.raw(args.Raw)
	} else {
		w.str("{}")
	}
	w.endObj()
	w.endObj()
	return nil
}

// functionCallOutput writes a tool message answering call_id.
func (m *respMsgWriter) functionCallOutput(o *respObj, p string) error {
	callID, out := o.callID, o.output
	if callID.Type != gjson.String || callID.Str == "" {
		return &Error{Message: "Missing required parameter: '" + p + ".call_id'.", Param: p + ".call_id"}
	}
	m.begin("tool")
	m.w.key("tool_call_id")
	m.w.raw(callID.Raw)
	m.w.key("content")
	switch {
	case out.Type == gjson.String:
		m.w.raw(out.Raw)
	case out.IsArray():
		// Chat tool messages carry text only.
		var text []byte
		j := 0
		var err error
		out.ForEach(func(_, v gjson.Result) bool {
			pp := respIndex(p+".output", j)
			j++
			part := respReadObj(v)
			if t := part.typ.Str; t != "input_text" && t != "output_text" {
				err = &Error{Message: "only text is supported in function_call_output for this model", Param: pp + ".type"}
				return false
			}
			text = respInner(text, part.text)
			return true
		})
		if err != nil {
			return err
		}
		m.w.escaped(text)
	default:
		if !out.Exists() {
			return &Error{Message: "Missing required parameter: '" + p + ".output'.", Param: p + ".output"}
		}
		return respTypeError(p+".output", "a string or an array of content parts")
	}
	m.w.endObj()
	return nil
}
