package anthropic

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// The one mapping between an Anthropic tool_use block and a chat tool
// call, shared by the request, response and stream converters so that the
// same call reads the same in every direction.

// toolArguments is a tool_use input as a chat arguments string: the input
// object as compact JSON text, "{}" when the input is not an object.
func toolArguments(input gjson.Result) string {
	if !input.IsObject() {
		return "{}"
	}
	return translate.CompactJSON(input.Raw)
}

// writeToolCall writes the tool_use block b as a chat tool call:
// {"id":...,"type":"function","function":{"name":...,"arguments":...}}.
func writeToolCall(w *translate.Writer, b gjson.Result) {
	w.Obj()
	w.Key("id")
	w.RawStr(b.Get("id"))
	w.KeyStr("type", "function")
	w.Key("function")
	w.Obj()
	w.Key("name")
	w.RawStr(b.Get("name"))
	w.KeyStr("arguments", toolArguments(b.Get("input")))
	w.EndObj()
	w.EndObj()
}

// toolInput is a chat tool call's arguments as a tool_use input: the JSON
// object the arguments string holds, compacted; "{}" when the arguments
// are absent, null or blank. ok is false when they are anything else (a
// string holding no JSON object, or not a string at all).
func toolInput(args gjson.Result) (input string, ok bool) {
	switch {
	case !translate.IsSet(args):
		return "{}", true
	case args.Type != gjson.String:
		return "", false
	}
	s := strings.TrimSpace(args.Str)
	if s == "" {
		return "{}", true
	}
	if !gjson.Valid(s) || !gjson.Parse(s).IsObject() {
		return "", false
	}
	return translate.CompactJSON(s), true
}

// writeToolUse writes a chat tool call as a tool_use block whose id is
// made acceptable to Anthropic (see sanitizeToolID) and whose input is
// what toolInput returned.
func writeToolUse(w *translate.Writer, id string, name gjson.Result, input string) {
	w.Obj()
	w.KeyStr("type", "tool_use")
	w.KeyStr("id", sanitizeToolID(id))
	w.Key("name")
	w.RawStr(name)
	w.KeyRaw("input", input)
	w.EndObj()
}
