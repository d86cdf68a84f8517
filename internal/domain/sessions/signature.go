package sessions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// ToolCallSignature identifies the tool calls an answer asks for: the
// name and canonical arguments (JSON re-encoded with sorted keys and no
// spacing) of each call, in order, for a chat completion
// (choices[0].message.tool_calls), an Anthropic message (tool_use content
// blocks) or a Responses response (function_call output items). body is
// the answer as one JSON object (a stream added up first). "" when the
// answer asks for no tool.
func ToolCallSignature(body []byte) string {
	if !gjson.ValidBytes(body) {
		return ""
	}
	root := gjson.ParseBytes(body)
	var b strings.Builder
	add := func(name string, args gjson.Result) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("tool:")
		b.WriteString(name)
		b.WriteByte(' ')
		b.WriteString(canonical(args))
	}
	root.Get("choices.0.message.tool_calls").ForEach(func(_, tc gjson.Result) bool {
		add(tc.Get("function.name").String(), tc.Get("function.arguments"))
		return true
	})
	root.Get("content").ForEach(func(_, blk gjson.Result) bool {
		if blk.Get("type").String() == "tool_use" {
			add(blk.Get("name").String(), blk.Get("input"))
		}
		return true
	})
	root.Get("output").ForEach(func(_, it gjson.Result) bool {
		if it.Get("type").String() == "function_call" {
			add(it.Get("name").String(), it.Get("arguments"))
		}
		return true
	})
	return b.String()
}

// canonical returns arguments in one form whatever their spacing and key
// order: a JSON string holding JSON (chat completions, Responses) is
// decoded first; JSON is re-encoded with sorted keys; anything else is
// kept as it is.
func canonical(v gjson.Result) string {
	raw := v.Raw
	if v.Type == gjson.String {
		raw = v.Str
	}
	var x any
	d := json.NewDecoder(strings.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&x); err != nil {
		return raw
	}
	var out bytes.Buffer
	e := json.NewEncoder(&out)
	e.SetEscapeHTML(false)
	if err := e.Encode(x); err != nil {
		return raw
	}
	return strings.TrimSpace(out.String())
}

// ErrorSignature identifies an error answer by its status, error code and
// message.
func ErrorSignature(status int, code, message string) string {
	return fmt.Sprintf("error:%d %s %s", status, code, message)
}
