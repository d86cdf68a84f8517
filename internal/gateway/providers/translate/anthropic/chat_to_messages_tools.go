package anthropic

import (
	"strconv"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// chatJSONFormat is a chat request's response_format.
type chatJSONFormat struct {
	kind        string // "", "json_object" or "json_schema"
	schema      string // raw JSON schema (json_schema)
	description gjson.Result
}

// jsonFormat reads response_format.
func (r *chatRequest) jsonFormat() (chatJSONFormat, error) {
	rf := r.responseFormat
	if !translate.IsSet(rf) {
		return chatJSONFormat{}, nil
	}
	if !rf.IsObject() {
		return chatJSONFormat{}, translate.Invalid(translate.Param("response_format"), "an object")
	}
	switch t := rf.Get("type").Str; t {
	case "text":
		return chatJSONFormat{}, nil
	case "json_object":
		return chatJSONFormat{kind: t}, nil
	case "json_schema":
		js := rf.Get("json_schema")
		if !js.IsObject() {
			return chatJSONFormat{}, translate.Invalid(translate.Param("response_format.json_schema"), "an object")
		}
		var err error
		js.ForEach(func(k, _ gjson.Result) bool {
			switch k.Str {
			case "name", "description", "schema", "strict":
			default:
				err = translate.Unknown(translate.Param("response_format.json_schema").Key(k.Str), toAnthropic)
			}
			return err == nil
		})
		if err != nil {
			return chatJSONFormat{}, err
		}
		f := chatJSONFormat{kind: t, schema: `{"type":"object"}`, description: js.Get("description")}
		if s := js.Get("schema"); translate.IsSet(s) {
			if !s.IsObject() || s.Get("type").Str != "object" {
				return chatJSONFormat{}, translate.CannotExpress(translate.Param("response_format.json_schema.schema"), toAnthropic,
					`the schema's root must be {"type":"object",...}`)
			}
			f.schema = s.Raw
		}
		return f, nil
	default:
		return chatJSONFormat{}, translate.Invalid(translate.Param("response_format.type"), `"text", "json_object" or "json_schema"`)
	}
}

// chatToolChoice is a parsed chat tool_choice.
type chatToolChoice struct {
	kind string // "", "auto", "none", "required" or "function"
	name gjson.Result
}

// parseChatToolChoice reads a chat tool_choice.
func parseChatToolChoice(tc gjson.Result) (chatToolChoice, error) {
	switch {
	case !translate.IsSet(tc):
		return chatToolChoice{}, nil
	case tc.Type == gjson.String:
		switch tc.Str {
		case "auto", "none", "required":
			return chatToolChoice{kind: tc.Str}, nil
		}
	case tc.IsObject():
		switch t := tc.Get("type").Str; t {
		case "function":
			name := tc.Get("function.name")
			if name.Type != gjson.String || name.Str == "" {
				return chatToolChoice{}, translate.Invalid(translate.Param("tool_choice.function.name"), "a non-empty string")
			}
			return chatToolChoice{kind: "function", name: name}, nil
		case "allowed_tools", "custom":
			return chatToolChoice{}, translate.CannotExpress(translate.Param("tool_choice"), toAnthropic,
				strconv.Quote(t)+" tool choices have no Anthropic equivalent")
		}
	}
	return chatToolChoice{}, translate.Invalid(translate.Param("tool_choice"),
		`"auto", "none", "required" or {"type":"function","function":{"name":...}}`)
}

// writeTools writes tools and tool_choice, including the forced tool that
// carries a json_schema response format.
func (r *chatRequest) writeTools(w *translate.Writer, f chatJSONFormat, thinking bool) error {
	choice, err := parseChatToolChoice(r.toolChoice)
	if err != nil {
		return err
	}
	if translate.IsSet(r.parallel) && r.parallel.Type != gjson.True && r.parallel.Type != gjson.False {
		return translate.Invalid(translate.Param("parallel_tool_calls"), "a boolean")
	}
	if thinking && (choice.kind == "required" || choice.kind == "function") {
		return translate.CannotExpress(translate.Param("tool_choice"), toAnthropic,
			"with reasoning_effort set only \"auto\" and \"none\" are possible (Anthropic cannot force tool use during extended thinking)")
	}
	userTools := false
	if translate.IsSet(r.tools) {
		if !r.tools.IsArray() {
			return translate.Invalid(translate.Param("tools"), "an array")
		}
		userTools = translate.HasElements(r.tools)
	}
	jsonTool := f.kind == "json_schema"
	if !userTools && !jsonTool {
		// Without tools, tool_choice and parallel_tool_calls mean nothing.
		return nil
	}
	w.Key("tools")
	w.Arr()
	i := -1
	r.tools.ForEach(func(_, t gjson.Result) bool {
		i++
		err = writeAnthropicTool(w, t, translate.Param("tools").At(i))
		return err == nil
	})
	if err != nil {
		return err
	}
	if jsonTool {
		w.Obj()
		w.KeyStr("name", jsonToolName)
		w.Key("description")
		if f.description.Type == gjson.String && f.description.Str != "" {
			w.RawStr(f.description)
		} else {
			w.Str("Give your final answer by calling this tool; its input is the answer.")
		}
		w.KeyRaw("input_schema", f.schema)
		w.EndObj()
	}
	w.EndArr()

	// Choose the Anthropic tool_choice.
	typ, name := choice.kind, choice.name.Str
	switch typ {
	case "required":
		typ = "any"
	case "function":
		typ = "tool"
	}
	if jsonTool && !thinking {
		switch choice.kind {
		case "", "auto":
			if userTools {
				typ = "any" // a client tool, or the answer
			} else {
				typ, name = "tool", jsonToolName
			}
		case "none":
			typ, name = "tool", jsonToolName
		}
	}
	if jsonTool && thinking {
		typ = "auto" // see the system instruction
	}
	noParallel := r.parallel.Type == gjson.False
	if typ == "" && !noParallel {
		return nil
	}
	if typ == "" {
		typ = "auto"
	}
	w.Key("tool_choice")
	w.Obj()
	w.KeyStr("type", typ)
	if typ == "tool" {
		w.KeyStr("name", name)
	}
	if noParallel && typ != "none" {
		w.Key("disable_parallel_tool_use")
		w.Bool(true)
	}
	w.EndObj()
	return nil
}

// writeAnthropicTool writes one chat function tool as an Anthropic custom
// tool.
func writeAnthropicTool(w *translate.Writer, t gjson.Result, param translate.Path) error {
	var err error
	t.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "function", "cache_control":
		case "type":
			if v.Str != "function" {
				err = translate.CannotExpress(param.Key("type"), toAnthropic,
					"only function tools can be declared, not "+strconv.Quote(v.Str))
			}
		default:
			err = translate.Unknown(param.Key(k.Str), toAnthropic)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	fn := t.Get("function")
	if !fn.IsObject() {
		return translate.Invalid(param.Key("function"), "an object")
	}
	fn.ForEach(func(k, _ gjson.Result) bool {
		switch k.Str {
		case "name", "description", "parameters", "strict":
			// strict: Anthropic follows the schema without a strict mode.
		default:
			err = translate.Unknown(param.Key("function").Key(k.Str), toAnthropic)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	name := fn.Get("name")
	if name.Type != gjson.String || name.Str == "" {
		return translate.Invalid(param.Key("function.name"), "a non-empty string")
	}
	if name.Str == jsonToolName {
		return translate.Refuse(param.Key("function.name"), "the tool name "+jsonToolName+" is reserved by the gateway")
	}
	w.Obj()
	w.Key("name")
	w.RawStr(name)
	if d := fn.Get("description"); d.Type == gjson.String && d.Str != "" {
		w.Key("description")
		w.RawStr(d)
	}
	w.Key("input_schema")
	if p := fn.Get("parameters"); translate.IsSet(p) {
		if !p.IsObject() {
			return translate.Invalid(param.Key("function.parameters"), "a JSON schema object")
		}
		if !p.Get("type").Exists() {
			// Anthropic requires the root type; OpenAI implies it.
			fixed, serr := sjson.Set(p.Raw, "type", "object")
			if serr != nil {
				return translate.Invalid(param.Key("function.parameters"), "a JSON schema object")
			}
			w.Raw(fixed)
		} else {
			w.Raw(p.Raw)
		}
	} else {
		w.Raw(`{"type":"object","properties":{}}`)
	}
	if cc := t.Get("cache_control"); translate.IsSet(cc) {
		w.KeyRaw("cache_control", cc.Raw)
	}
	w.EndObj()
	return nil
}
