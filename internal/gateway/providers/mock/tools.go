package mock

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// CallTrigger is the text that makes the mock call tools when the request
// leaves the choice to the model (tool_choice absent or "auto"): the last
// user message contains "mock:call" to call the first function tool,
// "mock:call:<name>" to call the function named <name>, or
// "mock:call:<a>,<b>,..." (no spaces) to call the functions named a, b,
// ... in parallel, in that order (a name may repeat). Without it the mock
// answers in text, so an agent that offers tools on every turn gets an
// answer rather than a call it did not ask for. tool_choice "required"
// always calls (the trigger's functions, else the first), and
// tool_choice naming a function calls that one only.
const CallTrigger = "mock:call"

// trigger finds CallTrigger in text and returns the tool names it lists
// (none for the first tool), the text without the trigger, and whether it
// was found.
func trigger(text string) (names []string, rest string, ok bool) {
	i := strings.Index(text, CallTrigger)
	if i < 0 {
		return nil, text, false
	}
	end := i + len(CallTrigger)
	for sep := byte(':'); end+1 < len(text) && text[end] == sep && isNameByte(text[end+1]); sep = ',' {
		j := end + 1
		for j < len(text) && isNameByte(text[j]) {
			j++
		}
		names, end = append(names, text[end+1:j]), j
	}
	if len(names) == 0 && end < len(text) && text[end] == ':' {
		end++ // "mock:call:" names nothing: the first tool
	}
	return names, strings.TrimSpace(strings.TrimRight(text[:i], " ") + " " + strings.TrimLeft(text[end:], " ")), true
}

// isNameByte reports whether c may appear in a function name.
func isNameByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// chooseTools validates the "tools", "tool_choice" and
// "parallel_tool_calls" request fields and returns the "function" objects
// of the tools the mock will call, in order: the one named by
// tool_choice, else those named by the trigger in text (see CallTrigger),
// else the first function tool; only the first of them when
// parallel_tool_calls is false. It returns none when there is no function
// tool, tool_choice is "none", or the choice is left to the model and text
// carries no trigger. A trigger naming a function the request does not
// declare is an error.
func chooseTools(tools, choice, parallel gjson.Result, text string) ([]gjson.Result, *apiError) {
	if parallel.Exists() && parallel.Type != gjson.Null && parallel.Type != gjson.True && parallel.Type != gjson.False {
		return nil, invalidRequest("parallel_tool_calls", "Invalid type for 'parallel_tool_calls': expected a boolean.")
	}
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

	var wanted []string
	forced, named := false, false
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
			wanted, named = []string{name.Str}, true
		}
		forced = true
	default:
		return nil, invalidRequest("tool_choice", "Invalid type for 'tool_choice': expected a string or an object.")
	}

	if len(functions) == 0 {
		return nil, nil
	}
	if !named {
		names, _, ok := trigger(text)
		if !ok && !forced {
			return nil, nil
		}
		wanted = names
	}
	if len(wanted) == 0 {
		return functions[:1], nil
	}
	if parallel.Type == gjson.False {
		wanted = wanted[:1]
	}
	calls := make([]gjson.Result, 0, len(wanted))
	for _, name := range wanted {
		i := slices.IndexFunc(functions, func(fn gjson.Result) bool { return fn.Get("name").Str == name })
		if i < 0 {
			return nil, invalidRequest("tool_choice", "Invalid value for 'tool_choice': no function named '%s' was specified in the 'tools' parameter.", name)
		}
		calls = append(calls, functions[i])
	}
	return calls, nil
}

// toolArguments returns the arguments of a call of a function whose
// parameters are the JSON schema params: the JSON object generateJSON
// makes for it, with text as the value of plain strings: every required
// property (every property when none is required), by type: string →
// text, number and integer → 1, boolean → true, array → one item, object
// → its properties likewise; enums give their first value. A function
// without parameters (or whose schema is not an object's) gets {}.
func toolArguments(params gjson.Result, text string) string {
	if !params.IsObject() {
		return "{}"
	}
	if args := generateJSON(params, text); strings.HasPrefix(args, "{") {
		return args
	}
	return "{}"
}

// compactJSON removes insignificant white space from valid JSON raw text.
func compactJSON(raw string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(raw)); err != nil {
		return "null"
	}
	return b.String()
}
