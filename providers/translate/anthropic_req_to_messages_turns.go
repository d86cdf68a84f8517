package translate

import (
	"strings"

	"github.com/tidwall/gjson"
)

// assistant writes an assistant message: signed thinking blocks sent back
// by the client, then text, then tool calls as tool_use blocks. A message
// with none of these is left out.
func (c *anthropicMsgWriter) assistant(m gjson.Result, param jpath) error {
	var err error
	var content, toolCalls, refusal, thinkingBlocks gjson.Result
	m.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "content":
			content = v
		case "tool_calls":
			toolCalls = v
		case "refusal":
			refusal = v
		case "thinking_blocks":
			thinkingBlocks = v
		case "role", "annotations":
		case "reasoning_content", "reasoning":
			// Prior reasoning without thinking_blocks carries no
			// signature, which Anthropic requires; it is not sent.
		case "name":
			if isSet(v) && v.Str != "" {
				err = cannotExpress(param.key("name"), toAnthropic, "Anthropic messages have no participant names")
			}
		case "audio":
			if isSet(v) {
				err = cannotExpress(param.key("audio"), toAnthropic, "Anthropic models have no audio output")
			}
		case "function_call":
			if isSet(v) {
				err = cannotExpress(param.key("function_call"), toAnthropic, "deprecated; use tool_calls")
			}
		default:
			err = unknownField(param.key(k.Str))
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	w := c.w
	start := w.mark()
	w.obj()
	w.keyStr("role", "assistant")
	w.key("content")
	w.arr()
	n := 0
	if isSet(thinkingBlocks) {
		if err := writeThinkingBlocks(w, thinkingBlocks, param.key("thinking_blocks"), &n); err != nil {
			return err
		}
	}
	text := func(t, part gjson.Result) {
		if t.Str == "" {
			return
		}
		n++
		w.obj()
		w.keyStr("type", "text")
		w.key("text")
		w.rawStr(t)
		if cc := part.Get("cache_control"); isSet(cc) {
			w.keyRaw("cache_control", cc.Raw)
		}
		w.endObj()
	}
	cparam := param.key("content")
	switch {
	case !isSet(content):
	case content.Type == gjson.String:
		text(content, gjson.Result{})
	case content.IsArray():
		j := -1
		content.ForEach(func(_, part gjson.Result) bool {
			j++
			switch part.Get("type").Str {
			case "text":
				text(part.Get("text"), part)
			case "refusal":
				text(part.Get("refusal"), part)
			default:
				err = cannotExpress(cparam.at(j).key("type"), toAnthropic,
					"assistant content parts must be text or refusal")
			}
			return err == nil
		})
		if err != nil {
			return err
		}
	default:
		return invalidParam(cparam, "a string, an array of text parts or null")
	}
	if refusal.Type == gjson.String {
		text(refusal, gjson.Result{})
	}
	if tcs := toolCalls; isSet(tcs) {
		if !tcs.IsArray() {
			return invalidParam(param.key("tool_calls"), "an array")
		}
		j := -1
		tcs.ForEach(func(_, tc gjson.Result) bool {
			j++
			err = writeToolUse(w, tc, param.key("tool_calls").at(j))
			n++
			return err == nil
		})
		if err != nil {
			return err
		}
	}
	if n == 0 {
		// Nothing Anthropic can carry (an empty assistant turn).
		w.reset(start)
		return nil
	}
	w.endArr()
	w.endObj()
	return nil
}

// writeThinkingBlocks copies signed thinking blocks that an earlier
// response gave the client (message.thinking_blocks) back to Anthropic.
func writeThinkingBlocks(w *jsonOut, tb gjson.Result, param jpath, n *int) error {
	if !tb.IsArray() {
		return invalidParam(param, "an array")
	}
	var err error
	j := -1
	tb.ForEach(func(_, b gjson.Result) bool {
		j++
		p := param.at(j)
		switch b.Get("type").Str {
		case "thinking":
			th, sig := b.Get("thinking"), b.Get("signature")
			if th.Type != gjson.String || sig.Type != gjson.String {
				err = invalidParam(p, `{"type":"thinking","thinking":string,"signature":string}`)
				return false
			}
			if sig.Str == "" {
				return true // unsigned reasoning from another provider
			}
			w.obj()
			w.keyStr("type", "thinking")
			w.key("thinking")
			w.rawStr(th)
			w.key("signature")
			w.rawStr(sig)
			w.endObj()
		case "redacted_thinking":
			data := b.Get("data")
			if data.Type != gjson.String {
				err = invalidParam(p, `{"type":"redacted_thinking","data":string}`)
				return false
			}
			w.obj()
			w.keyStr("type", "redacted_thinking")
			w.key("data")
			w.rawStr(data)
			w.endObj()
		default:
			err = invalidParam(p.key("type"), `"thinking" or "redacted_thinking"`)
			return false
		}
		*n++
		return true
	})
	return err
}

// writeToolUse writes an assistant tool call as a tool_use block.
func writeToolUse(w *jsonOut, tc gjson.Result, param jpath) error {
	var err error
	tc.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "id", "function", "index":
		case "type":
			if v.Str != "function" {
				err = cannotExpress(param.key("type"), toAnthropic, "only function tool calls can be sent")
			}
		default:
			err = unknownField(param.key(k.Str))
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	id := tc.Get("id")
	if id.Type != gjson.String || id.Str == "" {
		return invalidParam(param.key("id"), "a non-empty string")
	}
	name := tc.Get("function.name")
	if name.Type != gjson.String || name.Str == "" {
		return invalidParam(param.key("function.name"), "a non-empty string")
	}
	args := tc.Get("function.arguments")
	input := "{}"
	switch {
	case !isSet(args):
	case args.Type != gjson.String:
		return invalidParam(param.key("function.arguments"), "a JSON object encoded as a string")
	case strings.TrimSpace(args.Str) != "":
		if !gjson.Valid(args.Str) || !gjson.Parse(args.Str).IsObject() {
			return invalidParam(param.key("function.arguments"), "a JSON object encoded as a string")
		}
		input = args.Str
	}
	w.obj()
	w.keyStr("type", "tool_use")
	w.keyStr("id", sanitizeToolID(id.Str))
	w.key("name")
	w.rawStr(name)
	w.keyRaw("input", input)
	w.endObj()
	return nil
}

// tool writes a tool message as a tool_result block of the open user
// message, opening one if needed.
func (c *anthropicMsgWriter) tool(m gjson.Result, param jpath) error {
	var err error
	var id, content gjson.Result
	m.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "tool_call_id":
			id = v
		case "content":
			content = v
		case "role", "name":
		default:
			err = unknownField(param.key(k.Str))
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if id.Type != gjson.String || id.Str == "" {
		return invalidParam(param.key("tool_call_id"), "a non-empty string")
	}
	w := c.w
	if !c.open {
		w.obj()
		w.keyStr("role", "user")
		w.key("content")
		w.arr()
		c.open = true
	}
	w.obj()
	w.keyStr("type", "tool_result")
	w.keyStr("tool_use_id", sanitizeToolID(id.Str))
	cparam := param.key("content")
	switch {
	case !isSet(content):
	case content.Type == gjson.String:
		if content.Str != "" {
			w.key("content")
			w.rawStr(content)
		}
	default:
		mark := w.mark()
		w.key("content")
		w.arr()
		n := 0
		err = stringOrTextParts(content, cparam, func(text, part gjson.Result) {
			if text.Str == "" {
				return
			}
			n++
			w.obj()
			w.keyStr("type", "text")
			w.key("text")
			w.rawStr(text)
			if cc := part.Get("cache_control"); isSet(cc) {
				w.keyRaw("cache_control", cc.Raw)
			}
			w.endObj()
		})
		if err != nil {
			return err
		}
		if n == 0 {
			w.reset(mark)
		} else {
			w.endArr()
		}
	}
	w.endObj()
	return nil
}
