package translate

import (
	"strconv"

	"github.com/tidwall/gjson"
)

// writeChatTools writes tools, tool_choice and parallel_tool_calls.
func (r *messagesRequest) writeChatTools(w *jsonOut) error {
	n := 0
	if isSet(r.tools) {
		if !r.tools.IsArray() {
			return invalidParam(reqPath("tools"), "an array")
		}
		var err error
		i := -1
		r.tools.ForEach(func(_, t gjson.Result) bool {
			i++
			p := reqPath("tools").at(i)
			if typ := t.Get("type"); isSet(typ) && typ.Str != "custom" {
				err = cannotExpress(p.key("type"), toChat,
					"Anthropic server and client tools ("+strconv.Quote(typ.Str)+") have no chat equivalent; declare a custom tool")
				return false
			}
			if err = checkBlockKeys(t, p, "name", "description", "input_schema", "strict"); err != nil {
				return false
			}
			name := t.Get("name")
			if name.Type != gjson.String || name.Str == "" {
				err = invalidParam(p.key("name"), "a non-empty string")
				return false
			}
			if n == 0 {
				w.key("tools")
				w.arr()
			}
			n++
			w.obj()
			w.keyStr("type", "function")
			w.key("function")
			w.obj()
			w.key("name")
			w.rawStr(name)
			if d := t.Get("description"); d.Type == gjson.String && d.Str != "" {
				w.key("description")
				w.rawStr(d)
			}
			if s := t.Get("input_schema"); isSet(s) {
				w.keyRaw("parameters", s.Raw)
			}
			if s := t.Get("strict"); s.Type == gjson.True || s.Type == gjson.False {
				w.keyRaw("strict", s.Raw)
			}
			w.endObj()
			w.endObj()
			return true
		})
		if err != nil {
			return err
		}
		if n > 0 {
			w.endArr()
		}
	}
	tc := r.toolChoice
	if !isSet(tc) {
		return nil
	}
	if !tc.IsObject() {
		return invalidParam(reqPath("tool_choice"), "an object")
	}
	if err := checkBlockKeys(tc, reqPath("tool_choice"), "name", "disable_parallel_tool_use"); err != nil {
		return err
	}
	if n == 0 {
		// No tools: a choice among none means nothing.
		return nil
	}
	switch tc.Get("type").Str {
	case "auto":
		w.keyStr("tool_choice", "auto")
	case "any":
		w.keyStr("tool_choice", "required")
	case "none":
		w.keyStr("tool_choice", "none")
	case "tool":
		name := tc.Get("name")
		if name.Type != gjson.String || name.Str == "" {
			return invalidParam(reqPath("tool_choice.name"), "a non-empty string")
		}
		w.key("tool_choice")
		w.obj()
		w.keyStr("type", "function")
		w.key("function")
		w.obj()
		w.key("name")
		w.rawStr(name)
		w.endObj()
		w.endObj()
	default:
		return invalidParam(reqPath("tool_choice.type"), `"auto", "any", "tool" or "none"`)
	}
	if tc.Get("disable_parallel_tool_use").Type == gjson.True && tc.Get("type").Str != "none" {
		w.key("parallel_tool_calls")
		w.boolean(false)
	}
	return nil
}
