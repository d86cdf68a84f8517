package mock

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"
)

// CallTrigger is the text that makes the mock call a tool when the request
// leaves the choice to the model (tool_choice absent or "auto"): the last
// user message contains "mock:call" to call the first function tool, or
// "mock:call:<name>" to call the function named <name>. Without it the
// mock answers in text, so an agent that offers tools on every turn gets
// an answer rather than a call it did not ask for. tool_choice "required"
// or naming a function always calls.
const CallTrigger = "mock:call"

// trigger finds CallTrigger in text and returns the tool name it names
// ("" for the first tool), the text without the trigger, and whether it
// was found.
func trigger(text string) (name, rest string, ok bool) {
	i := strings.Index(text, CallTrigger)
	if i < 0 {
		return "", text, false
	}
	end := i + len(CallTrigger)
	if end < len(text) && text[end] == ':' {
		j := end + 1
		for j < len(text) && (isNameByte(text[j])) {
			j++
		}
		name, end = text[end+1:j], j
	}
	return name, strings.TrimSpace(strings.TrimRight(text[:i], " ") + " " + strings.TrimLeft(text[end:], " ")), true
}

// isNameByte reports whether c may appear in a function name.
func isNameByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// chooseTool validates the "tools" and "tool_choice" request fields and
// returns the "function" object of the tool the mock will call: the one
// named by tool_choice or by the trigger in text (see CallTrigger), else
// the first function tool. It returns nil when there is no function tool,
// tool_choice is "none", or the choice is left to the model and text
// carries no trigger.
func chooseTool(tools, choice gjson.Result, text string) (*gjson.Result, *apiError) {
	if !tools.Exists() || tools.Type == gjson.Null {
		return nil, nil
	}
	if !tools.IsArray() {
		return nil, invalidRequest("tools", "Invalid type for 'tools': expected an array of tool definitions.")
	}
	var functions []gjson.Result
	for i, t := range tools.Array() {
		if typ := t.Get("type"); typ.Exists() && typ.Str != "function" {
			continue // custom and built-in tools are not called by the mock
		}
		fn := t.Get("function")
		if name := fn.Get("name"); name.Type != gjson.String || name.Str == "" {
			return nil, invalidRequest("tools", "Missing required parameter: 'tools[%d].function.name'.", i)
		}
		functions = append(functions, fn)
	}

	var wanted string
	forced := false
	switch {
	case !choice.Exists() || choice.Type == gjson.Null:
	case choice.Type == gjson.String:
		switch choice.Str {
		case "none":
			return nil, nil
		case "required":
			forced = true
		case "auto":
		default:
			return nil, invalidRequest("tool_choice", "Invalid value for 'tool_choice': '%s'. Supported values are: 'none', 'auto' and 'required'.", choice.Str)
		}
	case choice.IsObject():
		if name := choice.Get("function.name"); name.Type == gjson.String {
			wanted = name.Str
		}
		forced = true
	default:
		return nil, invalidRequest("tool_choice", "Invalid type for 'tool_choice': expected a string or an object.")
	}

	if len(functions) == 0 {
		return nil, nil
	}
	if !forced {
		name, _, ok := trigger(text)
		if !ok {
			return nil, nil
		}
		wanted = name
	}
	if wanted == "" {
		return &functions[0], nil
	}
	for i := range functions {
		if functions[i].Get("name").Str == wanted {
			return &functions[i], nil
		}
	}
	return nil, invalidRequest("tool_choice", "Invalid value for 'tool_choice': no function named '%s' was specified in the 'tools' parameter.", wanted)
}

// toolArguments returns a JSON object (as a string) giving a value to every
// required property of the JSON schema params, or to every property when
// none is required. Values depend on the property schema: the first enum or
// the const value if any, else by type: string → text, number and integer →
// 1, boolean → true, array → [], object → {}, null → null.
func toolArguments(params gjson.Result, text string) string {
	props := map[string]gjson.Result{}
	var order []string
	if p := params.Get("properties"); p.IsObject() {
		p.ForEach(func(k, v gjson.Result) bool {
			if _, dup := props[k.Str]; !dup {
				order = append(order, k.Str)
			}
			props[k.Str] = v
			return true
		})
	}

	var keys []string
	seen := map[string]bool{}
	if req := params.Get("required"); req.IsArray() {
		req.ForEach(func(_, k gjson.Result) bool {
			if k.Type == gjson.String && !seen[k.Str] {
				seen[k.Str] = true
				keys = append(keys, k.Str)
			}
			return true
		})
	}
	if len(keys) == 0 {
		keys = order
	}

	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonString(k))
		b.WriteByte(':')
		b.WriteString(schemaValue(props[k], text, 0))
	}
	b.WriteByte('}')
	return b.String()
}

// schemaValue returns the JSON value the mock gives a property with the
// given schema (see toolArguments). Schemas without a usable type get text.
func schemaValue(schema gjson.Result, text string, depth int) string {
	if enum := schema.Get("enum"); enum.IsArray() {
		if first := enum.Get("0"); first.Exists() {
			return compactJSON(first.Raw)
		}
	}
	if c := schema.Get("const"); c.Exists() {
		return compactJSON(c.Raw)
	}
	switch schemaType(schema) {
	case "string":
		return jsonString(text)
	case "number", "integer":
		return "1"
	case "boolean":
		return "true"
	case "array":
		return "[]"
	case "object":
		return "{}"
	case "null":
		return "null"
	}
	if depth < 8 {
		for _, key := range []string{"anyOf", "oneOf", "allOf"} {
			if alt := schema.Get(key + ".0"); alt.Exists() {
				return schemaValue(alt, text, depth+1)
			}
		}
	}
	switch {
	case schema.Get("properties").Exists():
		return "{}"
	case schema.Get("items").Exists():
		return "[]"
	}
	return jsonString(text)
}

// schemaType returns the schema's "type", taking the first non-null entry
// when it is an array of types, or "" when there is none.
func schemaType(schema gjson.Result) string {
	t := schema.Get("type")
	if t.Type == gjson.String {
		return t.Str
	}
	typ := ""
	t.ForEach(func(_, v gjson.Result) bool {
		if v.Type == gjson.String && v.Str != "null" {
			typ = v.Str
			return false
		}
		return true
	})
	if typ == "" && t.IsArray() && len(t.Array()) > 0 {
		return "null"
	}
	return typ
}

// compactJSON removes insignificant white space from valid JSON raw text.
func compactJSON(raw string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(raw)); err != nil {
		return "null"
	}
	return b.String()
}
