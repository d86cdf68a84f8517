package responses

import (
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/providers/translate"
)

// writeTools writes the chat "tools" array from Responses function
// tools and returns how many there are. Built-in tools (web search, file
// search, computer use, code interpreter, MCP, ...) run on OpenAI's
// servers and have no Chat Completions equivalent, so they are refused.
func writeTools(w *translate.Writer, tools gjson.Result) (int, error) {
	if !tools.Exists() {
		return 0, nil
	}
	if !tools.IsArray() {
		return 0, translate.Invalid(translate.Param("tools"), "an array")
	}
	if !tools.Get("0").Exists() {
		return 0, nil
	}
	w.Key("tools")
	w.Arr()
	n := 0
	var err error
	tools.ForEach(func(_, t gjson.Result) bool {
		err = writeTool(w, t, n)
		n++
		return err == nil
	})
	if err != nil {
		return 0, err
	}
	w.EndArr()
	return n, nil
}

// writeTool writes tools[i].
func writeTool(w *translate.Writer, v gjson.Result, i int) error {
	t := readObject(v)
	if t.typ.Str != "function" {
		p := translate.Param("tools").At(i).Key("type")
		if !t.typ.Exists() {
			return translate.Missing(p)
		}
		return translate.Refuse(p, "tool type '"+t.typ.String()+"' is not supported for this model: built-in tools run on OpenAI's servers; only function tools translate to Chat Completions")
	}
	if t.name.Type != gjson.String || t.name.Str == "" {
		p := translate.Param("tools").At(i).Key("name")
		return translate.Missing(p)
	}
	w.Obj()
	w.Key("type")
	w.Str("function")
	w.Key("function")
	w.Obj()
	w.Key("name")
	w.Raw(t.name.Raw)
	if t.description.Type == gjson.String {
		w.Key("description")
		w.Raw(t.description.Raw)
	}
	if t.parameters.IsObject() {
		w.Key("parameters")
		w.Raw(t.parameters.Raw)
	}
	// Chat's default is non-strict; only an explicit true is sent.
	if t.strict.Type == gjson.True {
		w.Key("strict")
		w.Bool(true)
	}
	w.EndObj()
	w.EndObj()
	return nil
}

// writeToolChoice writes "tool_choice". Without tools, "auto" and
// "none" are dropped because OpenAI refuses tool_choice without tools
// (and both mean the same thing then).
func writeToolChoice(w *translate.Writer, choice gjson.Result, nTools int) error {
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
			return translate.Invalid(translate.Param("tool_choice"), `"none", "auto", "required" or a function tool choice object`)
		}
		w.Key("tool_choice")
		w.Raw(choice.Raw)
		return nil
	}
	if !choice.IsObject() {
		return translate.Invalid(translate.Param("tool_choice"), "a string or an object")
	}
	switch typ := choice.Get("type").Str; typ {
	case "function":
		name := choice.Get("name")
		if name.Type != gjson.String || name.Str == "" {
			return translate.Missing(translate.Param("tool_choice.name"))
		}
		w.Key("tool_choice")
		writeFunctionRef(w, name)
		return nil
	case "allowed_tools":
		mode := choice.Get("mode")
		if mode.Str != "auto" && mode.Str != "required" {
			return translate.Invalid(translate.Param("tool_choice.mode"), `"auto" or "required"`)
		}
		tools := choice.Get("tools")
		if !tools.IsArray() {
			return translate.Missing(translate.Param("tool_choice.tools"))
		}
		w.Key("tool_choice")
		w.Obj()
		w.Key("type")
		w.Str("allowed_tools")
		w.Key("allowed_tools")
		w.Obj()
		w.Key("mode")
		w.Raw(mode.Raw)
		w.Key("tools")
		w.Arr()
		var err error
		i := 0
		tools.ForEach(func(_, t gjson.Result) bool {
			p := translate.Param("tool_choice.tools").At(i)
			i++
			name := t.Get("name")
			if t.Get("type").Str != "function" || name.Type != gjson.String {
				err = translate.Refuse(p, "only function tools can be listed in allowed_tools for this model")
				return false
			}
			writeFunctionRef(w, name)
			return true
		})
		if err != nil {
			return err
		}
		w.EndArr()
		w.EndObj()
		w.EndObj()
		return nil
	default:
		return translate.Refuse(translate.Param("tool_choice.type"), "tool_choice type '"+typ+"' is not supported for this model: only function tools translate to Chat Completions")
	}
}

// writeFunctionRef writes {"type":"function","function":{"name":name}}.
func writeFunctionRef(w *translate.Writer, name gjson.Result) {
	w.Obj()
	w.Key("type")
	w.Str("function")
	w.Key("function")
	w.Obj()
	w.Key("name")
	w.Raw(name.Raw)
	w.EndObj()
	w.EndObj()
}

// writeText maps text.format to response_format and text.verbosity to
// verbosity.
func writeText(w *translate.Writer, text gjson.Result) error {
	if !text.Exists() {
		return nil
	}
	if !text.IsObject() {
		return translate.Invalid(translate.Param("text"), "an object")
	}
	format := text.Get("format")
	if format.Exists() && format.Type != gjson.Null {
		switch typ := format.Get("type").Str; typ {
		case "text":
		case "json_object":
			w.Key("response_format")
			w.Raw(`{"type":"json_object"}`)
		case "json_schema":
			name, schema := format.Get("name"), format.Get("schema")
			if name.Type != gjson.String || name.Str == "" {
				return translate.Missing(translate.Param("text.format.name"))
			}
			if !schema.IsObject() {
				return translate.Missing(translate.Param("text.format.schema"))
			}
			w.Key("response_format")
			w.Obj()
			w.Key("type")
			w.Str("json_schema")
			w.Key("json_schema")
			w.Obj()
			w.Key("name")
			w.Raw(name.Raw)
			if d := format.Get("description"); d.Type == gjson.String {
				w.Key("description")
				w.Raw(d.Raw)
			}
			w.Key("schema")
			w.Raw(schema.Raw)
			if s := format.Get("strict"); s.Type == gjson.True || s.Type == gjson.False {
				w.Key("strict")
				w.Raw(s.Raw)
			}
			w.EndObj()
			w.EndObj()
		default:
			return translate.Invalid(translate.Param("text.format.type"), `"text", "json_object" or "json_schema"`)
		}
	}
	if v := text.Get("verbosity"); v.Type == gjson.String {
		w.Key("verbosity")
		w.Raw(v.Raw)
	}
	return nil
}

// writeReasoning maps reasoning.effort to reasoning_effort. The summary
// settings have no Chat equivalent and are dropped: the upstream's
// reasoning text, when it sends any, is returned as reasoning_text content.
func writeReasoning(w *translate.Writer, reasoning gjson.Result) error {
	if !reasoning.Exists() {
		return nil
	}
	if !reasoning.IsObject() {
		return translate.Invalid(translate.Param("reasoning"), "an object")
	}
	effort := reasoning.Get("effort")
	switch effort.Type {
	case gjson.Null:
	case gjson.String:
		w.Key("reasoning_effort")
		w.Raw(effort.Raw)
	default:
		if effort.Exists() {
			return translate.Invalid(translate.Param("reasoning.effort"), "a string")
		}
	}
	return nil
}
