package translate

import (
	"github.com/tidwall/gjson"
)

// respWriteTools writes the chat "tools" array from Responses function
// tools and returns how many there are. Built-in tools (web search, file
// search, computer use, code interpreter, MCP, ...) run on OpenAI's
// servers and have no Chat Completions equivalent, so they are refused.
func respWriteTools(w *respWriter, tools gjson.Result) (int, error) {
	if !tools.Exists() {
		return 0, nil
	}
	if !tools.IsArray() {
		return 0, respTypeError("tools", "an array")
	}
	if !tools.Get("0").Exists() {
		return 0, nil
	}
	w.key("tools")
	w.arr()
	n := 0
	var err error
	tools.ForEach(func(_, t gjson.Result) bool {
		err = respWriteTool(w, t, n)
		n++
		return err == nil
	})
	if err != nil {
		return 0, err
	}
	w.endArr()
	return n, nil
}

// respWriteTool writes tools[i].
func respWriteTool(w *respWriter, v gjson.Result, i int) error {
	t := respReadObj(v)
	if t.typ.Str != "function" {
		p := respIndex("tools", i) + ".type"
		if !t.typ.Exists() {
			return &Error{Message: "Missing required parameter: '" + p + "'.", Param: p}
		}
		return &Error{Message: "tool type '" + t.typ.String() + "' is not supported for this model: built-in tools run on OpenAI's servers; only function tools translate to Chat Completions", Param: p}
	}
	if t.name.Type != gjson.String || t.name.Str == "" {
		p := respIndex("tools", i) + ".name"
		return &Error{Message: "Missing required parameter: '" + p + "'.", Param: p}
	}
	w.obj()
	w.key("type")
	w.str("function")
	w.key("function")
	w.obj()
	w.key("name")
	w.raw(t.name.Raw)
	if t.description.Type == gjson.String {
		w.key("description")
		w.raw(t.description.Raw)
	}
	if t.parameters.IsObject() {
		w.key("parameters")
		w.raw(t.parameters.Raw)
	}
	// Chat's default is non-strict; only an explicit true is sent.
	if t.strict.Type == gjson.True {
		w.key("strict")
		w.bool(true)
	}
	w.endObj()
	w.endObj()
	return nil
}

// respWriteToolChoice writes "tool_choice". Without tools, "auto" and
// "none" are dropped because OpenAI refuses tool_choice without tools
// (and both mean the same thing then).
func respWriteToolChoice(w *respWriter, choice gjson.Result, nTools int) error {
	if !choice.Exists() {
		return nil
	}
	if choice.Type == gjson.String {
		switch choice.Str {
		case "auto", "none":
			if nTools == 0 {
				return nil
			}
		case "required":
		default:
			return &Error{Message: "Invalid value for 'tool_choice': expected one of none, auto, required, or a function tool choice object.", Param: "tool_choice"}
		}
		w.key("tool_choice")
		w.raw(choice.Raw)
		return nil
	}
	if !choice.IsObject() {
		return respTypeError("tool_choice", "a string or an object")
	}
	switch typ := choice.Get("type").Str; typ {
	case "function":
		name := choice.Get("name")
		if name.Type != gjson.String || name.Str == "" {
			return &Error{Message: "Missing required parameter: 'tool_choice.name'.", Param: "tool_choice.name"}
		}
		w.key("tool_choice")
		respFunctionRef(w, name)
		return nil
	case "allowed_tools":
		mode := choice.Get("mode")
		if mode.Str != "auto" && mode.Str != "required" {
			return &Error{Message: "Invalid value for 'tool_choice.mode': expected auto or required.", Param: "tool_choice.mode"}
		}
		tools := choice.Get("tools")
		if !tools.IsArray() {
			return &Error{Message: "Missing required parameter: 'tool_choice.tools'.", Param: "tool_choice.tools"}
		}
		w.key("tool_choice")
		w.obj()
		w.key("type")
		w.str("allowed_tools")
		w.key("allowed_tools")
		w.obj()
		w.key("mode")
		w.raw(mode.Raw)
		w.key("tools")
		w.arr()
		var err error
		i := 0
		tools.ForEach(func(_, t gjson.Result) bool {
			p := respIndex("tool_choice.tools", i)
			i++
			name := t.Get("name")
			if t.Get("type").Str != "function" || name.Type != gjson.String {
				err = &Error{Message: "only function tools can be listed in allowed_tools for this model", Param: p}
				return false
			}
			respFunctionRef(w, name)
			return true
		})
		if err != nil {
			return err
		}
		w.endArr()
		w.endObj()
		w.endObj()
		return nil
	default:
		return &Error{Message: "tool_choice type '" + typ + "' is not supported for this model: only function tools translate to Chat Completions", Param: "tool_choice.type"}
	}
}

// respFunctionRef writes {"type":"function","function":{"name":name}}.
func respFunctionRef(w *respWriter, name gjson.Result) {
	w.obj()
	w.key("type")
	w.str("function")
	w.key("function")
	w.obj()
	w.key("name")
	w.raw(name.Raw)
	w.endObj()
	w.endObj()
}

// respWriteText maps text.format to response_format and text.verbosity to
// verbosity.
func respWriteText(w *respWriter, text gjson.Result) error {
	if !text.Exists() {
		return nil
	}
	if !text.IsObject() {
		return respTypeError("text", "an object")
	}
	format := text.Get("format")
	if format.Exists() && format.Type != gjson.Null {
		switch typ := format.Get("type").Str; typ {
		case "text":
		case "json_object":
			w.key("response_format")
			w.raw(`{"type":"json_object"}`)
		case "json_schema":
			name, schema := format.Get("name"), format.Get("schema")
			if name.Type != gjson.String || name.Str == "" {
				return &Error{Message: "Missing required parameter: 'text.format.name'.", Param: "text.format.name"}
			}
			if !schema.IsObject() {
				return &Error{Message: "Missing required parameter: 'text.format.schema'.", Param: "text.format.schema"}
			}
			w.key("response_format")
			w.obj()
			w.key("type")
			w.str("json_schema")
			w.key("json_schema")
			w.obj()
			w.key("name")
			w.raw(name.Raw)
			if d := format.Get("description"); d.Type == gjson.String {
				w.key("description")
				w.raw(d.Raw)
			}
			w.key("schema")
			w.raw(schema.Raw)
			if s := format.Get("strict"); s.Type == gjson.True || s.Type == gjson.False {
				w.key("strict")
				w.raw(s.Raw)
			}
			w.endObj()
			w.endObj()
		default:
			return &Error{Message: "Invalid value for 'text.format.type': expected text, json_object or json_schema.", Param: "text.format.type"}
		}
	}
	if v := text.Get("verbosity"); v.Type == gjson.String {
		w.key("verbosity")
		w.raw(v.Raw)
	}
	return nil
}

// respWriteReasoning maps reasoning.effort to reasoning_effort. The summary
// settings have no Chat equivalent and are dropped: the upstream's
// reasoning text, when it sends any, is returned as reasoning_text content.
func respWriteReasoning(w *respWriter, reasoning gjson.Result) error {
	if !reasoning.Exists() {
		return nil
	}
	if !reasoning.IsObject() {
		return respTypeError("reasoning", "an object")
	}
	effort := reasoning.Get("effort")
	switch effort.Type {
	case gjson.Null:
	case gjson.String:
		w.key("reasoning_effort")
		w.raw(effort.Raw)
	default:
		if effort.Exists() {
			return respTypeError("reasoning.effort", "a string")
		}
	}
	return nil
}
