package responses

import (
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// msgWriter writes the chat messages array. The last assistant message
// stays open so that function_call items following it become its
// tool_calls: Chat Completions wants one assistant message carrying every
// call of a turn, followed by one tool message per call.
type msgWriter struct {
	w         *translate.Writer
	n         int  // messages written
	asstOpen  bool // the last message is an assistant object not yet closed
	callsOpen bool // ... and its tool_calls array is open
}

func (m *msgWriter) closePending() {
	if m.callsOpen {
		m.w.EndArr()
		m.callsOpen = false
	}
	if m.asstOpen {
		m.w.EndObj()
		m.asstOpen = false
	}
}

// begin opens a message object with role.
func (m *msgWriter) begin(role string) {
	m.closePending()
	m.w.Obj()
	m.w.Key("role")
	m.w.Str(role)
	m.n++
}

// writeMessages writes "messages": instructions as a leading system
// message, then every input item.
func writeMessages(w *translate.Writer, instructions, input gjson.Result) error {
	w.Key("messages")
	w.Arr()
	m := msgWriter{w: w}
	if instructions.Exists() && instructions.Str != "" {
		m.begin("system")
		w.Key("content")
		w.Raw(instructions.Raw)
		w.EndObj()
	}
	switch {
	case input.Type == gjson.String:
		m.begin("user")
		w.Key("content")
		w.Raw(input.Raw)
		w.EndObj()
	case input.IsArray():
		var err error
		i := 0
		input.ForEach(func(_, item gjson.Result) bool {
			err = m.item(item, translate.Param("input").At(i))
			i++
			return err == nil
		})
		if err != nil {
			return err
		}
	default:
		return translate.Invalid(translate.Param("input"), "a string or an array of input items")
	}
	m.closePending()
	w.EndArr()
	if m.n == 0 {
		return translate.Refuse(translate.Param("input"), "input must contain at least one message")
	}
	return nil
}

// item translates one input item at path p.
func (m *msgWriter) item(item gjson.Result, p translate.Path) error {
	if !item.IsObject() {
		return translate.Invalid(p, "an input item object")
	}
	o := readObject(item)
	typ := o.typ
	switch typ.Str {
	case "", "message":
		if typ.Exists() && typ.Type != gjson.String {
			return translate.Invalid(p.Key("type"), "a string")
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
		return translate.Refuse(p.Key("type"), "item_reference is not supported for this model: the gateway keeps no stored items; send the item itself")
	default:
		return translate.Refuse(p.Key("type"), "input item type '"+typ.Str+"' is not supported for this model: only message, function_call, function_call_output and reasoning items translate to Chat Completions")
	}
}

// message translates a message item (easy or typed form).
func (m *msgWriter) message(o *object, p translate.Path) error {
	role, content := o.role, o.content
	if !content.Exists() {
		return translate.Missing(p.Key("content"))
	}
	if content.Type != gjson.String && !content.IsArray() {
		return translate.Invalid(p.Key("content"), "a string or an array of content parts")
	}
	switch role.Str {
	case "user":
		m.begin("user")
		m.w.Key("content")
		if err := writeUserContent(m.w, content, p.Key("content")); err != nil {
			return err
		}
		m.w.EndObj()
	case "system", "developer":
		// Chat's system role is the developer role: OpenAI treats a system
		// message as developer instructions, and other providers know only
		// system.
		m.begin("system")
		m.w.Key("content")
		if err := writeTextContent(m.w, content, p.Key("content"), false); err != nil {
			return err
		}
		m.w.EndObj()
	case "assistant":
		m.begin("assistant")
		m.w.Key("content")
		if err := writeTextContent(m.w, content, p.Key("content"), true); err != nil {
			return err
		}
		if content.IsArray() {
			if refusal := joinRefusals(content); refusal != nil {
				m.w.Key("refusal")
				m.w.Escaped(refusal)
			}
		}
		m.asstOpen = true // function_call items may follow
	default:
		if !role.Exists() {
			return translate.Missing(p.Key("role"))
		}
		return translate.Invalid(p.Key("role"), `"user", "assistant", "system" or "developer"`)
	}
	return nil
}

// functionCall appends a function_call item to the open assistant message
// (opening one when the previous message is not an assistant's).
func (m *msgWriter) functionCall(o *object, p translate.Path) error {
	callID, name, args := o.callID, o.name, o.arguments
	if callID.Type != gjson.String || callID.Str == "" {
		return translate.Missing(p.Key("call_id"))
	}
	if name.Type != gjson.String || name.Str == "" {
		return translate.Missing(p.Key("name"))
	}
	if args.Exists() && args.Type != gjson.String {
		return translate.Invalid(p.Key("arguments"), "a string")
	}
	if !m.asstOpen {
		m.begin("assistant")
		m.w.Key("content")
		m.w.Null()
		m.asstOpen = true
	}
	if !m.callsOpen {
		m.w.Key("tool_calls")
		m.w.Arr()
		m.callsOpen = true
	}
	w := m.w
	w.Obj()
	w.Key("id")
	w.Raw(callID.Raw)
	w.Key("type")
	w.Str("function")
	w.Key("function")
	w.Obj()
	w.Key("name")
	if ns := o.namespace; ns.Type == gjson.String && ns.Str != "" {
		// A call to a tool of a namespace goes by its qualified name, the
		// name the namespace's tools were flattened under.
		w.Str(qualifiedName(ns.Str, name.Str))
	} else {
		w.Raw(name.Raw)
	}
	w.Key("arguments")
	if args.Exists() {
		w.Raw(args.Raw)
	} else {
		w.Str("{}")
	}
	w.EndObj()
	w.EndObj()
	return nil
}

// functionCallOutput writes a tool message answering call_id.
func (m *msgWriter) functionCallOutput(o *object, p translate.Path) error {
	callID, out := o.callID, o.output
	if callID.Type != gjson.String || callID.Str == "" {
		return translate.Missing(p.Key("call_id"))
	}
	m.begin("tool")
	m.w.Key("tool_call_id")
	m.w.Raw(callID.Raw)
	m.w.Key("content")
	switch {
	case out.Type == gjson.String:
		m.w.Raw(out.Raw)
	case out.IsArray():
		// Chat tool messages carry text only.
		var text []byte
		j := 0
		var err error
		out.ForEach(func(_, v gjson.Result) bool {
			pp := p.Key("output").At(j)
			j++
			part := readObject(v)
			if t := part.typ.Str; t != "input_text" && t != "output_text" {
				err = translate.Refuse(pp.Key("type"), "only text is supported in function_call_output for this model")
				return false
			}
			text = translate.AppendInner(text, part.text)
			return true
		})
		if err != nil {
			return err
		}
		m.w.Escaped(text)
	default:
		if !out.Exists() {
			return translate.Missing(p.Key("output"))
		}
		return translate.Invalid(p.Key("output"), "a string or an array of content parts")
	}
	m.w.EndObj()
	return nil
}
