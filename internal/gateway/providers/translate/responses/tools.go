package responses

import (
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// writeTools writes the chat "tools" array from Responses function
// tools and namespaces of function tools, and returns how many function
// tools it wrote. A namespace groups ordinary client-side function tools:
// each becomes one function tool under its qualified name (see
// qualifiedName), and calls to it are mapped back (see namespaces).
// Built-in tools (web search, file search, computer use, code interpreter,
// MCP, ...) run on OpenAI's servers and have no Chat Completions
// equivalent: they are left out of the request, their types appended to
// dropped, unless toolChoice forces one, which is refused by name.
func writeTools(w *translate.Writer, tools, toolChoice gjson.Result, dropped *[]string) (int, error) {
	if !tools.Exists() {
		return 0, nil
	}
	if !tools.IsArray() {
		return 0, translate.Invalid(translate.Param("tools"), "an array")
	}
	if !tools.Get("0").Exists() {
		return 0, nil
	}
	mark := w.Mark()
	w.Key("tools")
	w.Arr()
	n, i := 0, 0
	var err error
	tools.ForEach(func(_, v gjson.Result) bool {
		p := translate.Param("tools").At(i)
		i++
		t := readObject(v)
		switch t.typ.Str {
		case "function":
			err = writeTool(w, &t, "", p)
			n++
		case "namespace":
			var k int
			k, err = writeNamespace(w, &t, p)
			n += k
		default:
			switch {
			case !t.typ.Exists():
				err = translate.Missing(p.Key("type"))
			case toolChoice.Get("type").Str != t.typ.String():
				// A hosted tool the model may use or not (agents such as
				// Codex send web_search by default): the request goes on
				// without it.
				*dropped = append(*dropped, t.typ.String())
			default:
				err = translate.Refuse(p.Key("type"), "tool type '"+t.typ.String()+"' is not supported for this model: "+
					"it is a built-in tool that runs on the provider's servers; only function tools (and namespaces of them) "+
					"translate to Chat Completions. Leave the '"+t.typ.String()+"' tool out of the request")
			}
		}
		return err == nil
	})
	if err != nil {
		return 0, err
	}
	if n == 0 {
		// Only empty namespaces: no tools at all.
		w.Rollback(mark)
		return 0, nil
	}
	w.EndArr()
	return n, nil
}

// namespaceSep joins a namespace and a tool name into the qualified name
// its flattened function tool carries. Function names on chat APIs allow
// only letters, digits, '_' and '-', so the separator is "__".
const namespaceSep = "__"

// qualifiedName is the flat function name of tool name in namespace ns.
func qualifiedName(ns, name string) string { return ns + namespaceSep + name }

// writeNamespace writes the function tools of the namespace tool t as
// flat function tools and returns how many it wrote.
func writeNamespace(w *translate.Writer, t *object, p translate.Path) (int, error) {
	if t.name.Type != gjson.String || t.name.Str == "" {
		return 0, translate.Missing(p.Key("name"))
	}
	if !t.tools.IsArray() {
		return 0, translate.Invalid(p.Key("tools"), "an array of function tools")
	}
	n := 0
	var err error
	t.tools.ForEach(func(_, v gjson.Result) bool {
		pp := p.Key("tools").At(n)
		n++
		inner := readObject(v)
		if inner.typ.Str != "function" {
			err = translate.Refuse(pp.Key("type"), "tool type '"+inner.typ.String()+"' is not supported inside a namespace for this model: only function tools translate to Chat Completions")
			return false
		}
		err = writeTool(w, &inner, t.name.Str, pp)
		return err == nil
	})
	return n, err
}

// writeTool writes the function tool t at p; a tool of namespace ns (not
// empty) goes under its qualified name.
func writeTool(w *translate.Writer, t *object, ns string, p translate.Path) error {
	if t.name.Type != gjson.String || t.name.Str == "" {
		return translate.Missing(p.Key("name"))
	}
	w.Obj()
	w.Key("type")
	w.Str("function")
	w.Key("function")
	w.Obj()
	w.Key("name")
	if ns != "" {
		w.Str(qualifiedName(ns, t.name.Str))
	} else {
		w.Raw(t.name.Raw)
	}
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

// namespaced maps the qualified name of every namespaced function tool of
// a Responses request to its namespace and name, so a call the upstream
// makes under the qualified name goes back to the client as a call of the
// namespace's tool. It is nil when the request has no namespace.
type namespaced map[string]struct{ ns, name string }

// namespaces returns the namespaced tools of the request's tools array.
func namespaces(tools gjson.Result) namespaced {
	var m namespaced
	tools.ForEach(func(_, v gjson.Result) bool {
		if v.Get("type").Str != "namespace" {
			return true
		}
		ns := v.Get("name").Str
		v.Get("tools").ForEach(func(_, f gjson.Result) bool {
			if name := f.Get("name").Str; ns != "" && name != "" {
				if m == nil {
					m = namespaced{}
				}
				m[qualifiedName(ns, name)] = struct{ ns, name string }{ns, name}
			}
			return true
		})
		return true
	})
	return m
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
