package translate

import (
	"strconv"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
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
	if !isSet(rf) {
		return chatJSONFormat{}, nil
	}
	if !rf.IsObject() {
		return chatJSONFormat{}, invalidParam(reqPath("response_format"), "an object")
	}
	switch t := rf.Get("type").Str; t {
	case "text":
		return chatJSONFormat{}, nil
	case "json_object":
		return chatJSONFormat{kind: t}, nil
	case "json_schema":
		js := rf.Get("json_schema")
		if !js.IsObject() {
			return chatJSONFormat{}, invalidParam(reqPath("response_format.json_schema"), "an object")
		}
		var err error
		js.ForEach(func(k, _ gjson.Result) bool {
			switch k.Str {
			case "name", "description", "schema", "strict":
			default:
				err = unknownField(reqPath("response_format.json_schema").key(k.Str))
			}
			return err == nil
		})
		if err != nil {
			return chatJSONFormat{}, err
		}
		f := chatJSONFormat{kind: t, schema: `{"type":"object"}`, description: js.Get("description")}
		if s := js.Get("schema"); isSet(s) {
			if !s.IsObject() || s.Get("type").Str != "object" {
				return chatJSONFormat{}, cannotExpress(reqPath("response_format.json_schema.schema"), toAnthropic,
					`the schema's root must be {"type":"object",...}`)
			}
			f.schema = s.Raw
		}
		return f, nil
	default:
		return chatJSONFormat{}, invalidParam(reqPath("response_format.type"), `"text", "json_object" or "json_schema"`)
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
	case !isSet(tc):
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
				return chatToolChoice{}, invalidParam(reqPath("tool_choice.function.name"), "a non-empty string")
			}
			return chatToolChoice{kind: "function", name: name}, nil
		case "allowed_tools", "custom":
			return chatToolChoice{}, cannotExpress(reqPath("tool_choice"), toAnthropic,
				strconv.Quote(t)+" tool choices have no Anthropic equivalent")
		}
	}
	return chatToolChoice{}, invalidParam(reqPath("tool_choice"),
		`"auto", "none", "required" or {"type":"function","function":{"name":...}}`)
}

// writeTools writes tools and tool_choice, including the forced tool that
// carries a json_schema response format.
func (r *chatRequest) writeTools(w *jsonOut, f chatJSONFormat, thinking bool) error {
	choice, err := parseChatToolChoice(r.toolChoice)
	if err != nil {
		return err
	}
	if isSet(r.parallel) && r.parallel.Type != gjson.True && r.parallel.Type != gjson.False {
		return invalidParam(reqPath("parallel_tool_calls"), "a boolean")
	}
	if thinking && (choice.kind == "required" || choice.kind == "function") {
		return cannotExpress(reqPath("tool_choice"), toAnthropic,
			"with reasoning_effort set only \"auto\" and \"none\" are possible (Anthropic cannot force tool use during extended thinking)")
	}
	userTools := false
	if isSet(r.tools) {
		if !r.tools.IsArray() {
			return invalidParam(reqPath("tools"), "an array")
		}
		userTools = hasElements(r.tools)
	}
	jsonTool := f.kind == "json_schema"
	if !userTools && !jsonTool {
		// Without tools, tool_choice and parallel_tool_calls mean nothing.
		return nil
	}
	w.key("tools")
	w.arr()
	i := -1
	r.tools.ForEach(func(_, t gjson.Result) bool {
		i++
		err = writeAnthropicTool(w, t, reqPath("tools").at(i))
		return err == nil
	})
	if err != nil {
		return err
	}
	if jsonTool {
		w.obj()
		w.keyStr("name", jsonToolName)
		w.key("description")
		if f.description.Type == gjson.String && f.description.Str != "" {
			w.rawStr(f.description)
		} else {
			w.str("Give your final answer by calling this tool; its input is the answer.")
		}
		w.keyRaw("input_schema", f.schema)
		w.endObj()
	}
	w.endArr()

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
	w.key("tool_choice")
	w.obj()
	w.keyStr("type", typ)
	if typ == "tool" {
		w.keyStr("name", name)
	}
	if noParallel && typ != "none" {
		w.key("disable_parallel_tool_use")
		w.boolean(true)
	}
	w.endObj()
	return nil
}

// writeAnthropicTool writes one chat function tool as an Anthropic custom
// tool.
func writeAnthropicTool(w *jsonOut, t gjson.Result, param jpath) error {
	var err error
	t.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "function", "cache_control":
		case "type":
			if v.Str != "function" {
				err = cannotExpress(param.key("type"), toAnthropic,
					"only function tools can be declared, not "+strconv.Quote(v.Str))
			}
		default:
			err = unknownField(param.key(k.Str))
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	fn := t.Get("function")
	if !fn.IsObject() {
		return invalidParam(param.key("function"), "an object")
	}
	fn.ForEach(func(k, _ gjson.Result) bool {
		switch k.Str {
		case "name", "description", "parameters", "strict":
			// strict: Anthropic follows the schema without a strict mode.
		default:
			err = unknownField(param.key("function").key(k.Str))
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	name := fn.Get("name")
	if name.Type != gjson.String || name.Str == "" {
		return invalidParam(param.key("function.name"), "a non-empty string")
	}
	if name.Str == jsonToolName {
		return &Error{Message: "the tool name " + jsonToolName + " is reserved by the gateway", Param: param.key("function.name").String()}
	}
	w.obj()
	w.key("name")
	w.rawStr(name)
	if d := fn.Get("description"); d.Type == gjson.String && d.Str != "" {
		w.key("description")
		w.rawStr(d)
	}
	w.key("input_schema")
	if p := fn.Get("parameters"); isSet(p) {
		if !p.IsObject() {
			return invalidParam(param.key("function.parameters"), "a JSON schema object")
		}
		if !p.Get("type").Exists() {
			// Anthropic requires the root type; OpenAI implies it.
			fixed, serr := sjson.Set(p.Raw, "type", "object")
			if serr != nil {
				return invalidParam(param.key("function.parameters"), "a JSON schema object")
			}
			w.raw(fixed)
		} else {
			w.raw(p.Raw)
		}
	} else {
		w.raw(`{"type":"object","properties":{}}`)
	}
	if cc := t.Get("cache_control"); isSet(cc) {
		w.keyRaw("cache_control", cc.Raw)
	}
	w.endObj()
	return nil
}
