package anthropic

import (
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// toolKeys are the members of a custom tool the translation takes: those
// it maps, and the ones it drops (droppedToolKeys). Any other member is
// refused as unknown.
var toolKeys = append([]string{"name", "description", "input_schema", "strict", "defer_loading"}, droppedToolKeys...)

// droppedToolKeys are the members of a custom tool that are left out on
// translation, since a chat tool has no place for them and the call works
// the same without: eager_input_streaming only changes how Anthropic
// streams the call's input (unbuffered, unvalidated), and input_examples
// are sample inputs shown to the model beside the schema and description,
// which are sent. Some clients send them whatever the model (the Vercel
// AI SDK's Anthropic provider among them).
var droppedToolKeys = []string{"eager_input_streaming", "input_examples"}

// writeChatTools writes tools, tool_choice and parallel_tool_calls.
func (r *messagesRequest) writeChatTools(w *translate.Writer) error {
	n := 0
	if translate.IsSet(r.tools) {
		if !r.tools.IsArray() {
			return translate.Invalid(translate.Param("tools"), "an array")
		}
		var err error
		i := -1
		r.tools.ForEach(func(_, t gjson.Result) bool {
			i++
			p := translate.Param("tools").At(i)
			if typ := t.Get("type"); translate.IsSet(typ) && typ.Str != "custom" {
				err = translate.CannotExpress(p.Key("type"), toChat,
					"Anthropic server and client tools ("+strconv.Quote(typ.Str)+") have no chat equivalent; declare a custom tool")
				return false
			}
			if err = checkBlockKeys(t, p, toolKeys...); err != nil {
				return false
			}
			name := t.Get("name")
			if name.Type != gjson.String || name.Str == "" {
				err = translate.Invalid(p.Key("name"), "a non-empty string")
				return false
			}
			if d := t.Get("defer_loading"); translate.IsSet(d) && d.Type != gjson.True && d.Type != gjson.False {
				err = translate.Invalid(p.Key("defer_loading"), "a boolean")
				return false
			} else if d.Type == gjson.True {
				// A deferred tool stays out of the model's view until a
				// tool search finds it; a chat model has no tool search,
				// so it is left out.
				return true
			}
			if n == 0 {
				w.Key("tools")
				w.Arr()
			}
			n++
			w.Obj()
			w.KeyStr("type", "function")
			w.Key("function")
			w.Obj()
			w.Key("name")
			w.RawStr(name)
			if d := t.Get("description"); d.Type == gjson.String && d.Str != "" {
				w.Key("description")
				w.RawStr(d)
			}
			if s := t.Get("input_schema"); translate.IsSet(s) {
				w.KeyRaw("parameters", s.Raw)
			}
			if s := t.Get("strict"); s.Type == gjson.True || s.Type == gjson.False {
				w.KeyRaw("strict", s.Raw)
			}
			w.EndObj()
			w.EndObj()
			return true
		})
		if err != nil {
			return err
		}
		if n > 0 {
			w.EndArr()
		}
	}
	tc := r.toolChoice
	if !translate.IsSet(tc) {
		return nil
	}
	if !tc.IsObject() {
		return translate.Invalid(translate.Param("tool_choice"), "an object")
	}
	if err := checkBlockKeys(tc, translate.Param("tool_choice"), "name", "disable_parallel_tool_use"); err != nil {
		return err
	}
	if n == 0 {
		// No tools: a choice among none means nothing.
		return nil
	}
	switch tc.Get("type").Str {
	case "auto":
		w.KeyStr("tool_choice", "auto")
	case "any":
		w.KeyStr("tool_choice", "required")
	case "none":
		w.KeyStr("tool_choice", "none")
	case "tool":
		name := tc.Get("name")
		if name.Type != gjson.String || name.Str == "" {
			return translate.Invalid(translate.Param("tool_choice.name"), "a non-empty string")
		}
		w.Key("tool_choice")
		w.Obj()
		w.KeyStr("type", "function")
		w.Key("function")
		w.Obj()
		w.Key("name")
		w.RawStr(name)
		w.EndObj()
		w.EndObj()
	default:
		return translate.Invalid(translate.Param("tool_choice.type"), `"auto", "any", "tool" or "none"`)
	}
	if tc.Get("disable_parallel_tool_use").Type == gjson.True && tc.Get("type").Str != "none" {
		w.Key("parallel_tool_calls")
		w.Bool(false)
	}
	return nil
}
