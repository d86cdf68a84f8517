package anthropic

import (
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// assistant writes an assistant message: signed thinking blocks sent back
// by the client, then text, then tool calls as tool_use blocks. A message
// with none of these is left out.
func (c *anthropicMsgWriter) assistant(m gjson.Result, param translate.Path) error {
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
			if translate.IsSet(v) && v.Str != "" {
				err = translate.CannotExpress(param.Key("name"), toAnthropic, "Anthropic messages have no participant names")
			}
		case "audio":
			if translate.IsSet(v) {
				err = translate.CannotExpress(param.Key("audio"), toAnthropic, "Anthropic models have no audio output")
			}
		case "function_call":
			if translate.IsSet(v) {
				err = translate.CannotExpress(param.Key("function_call"), toAnthropic, "deprecated; use tool_calls")
			}
		default:
			err = translate.Unknown(param.Key(k.Str), toAnthropic)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	w := c.w
	start := w.Mark()
	w.Obj()
	w.KeyStr("role", "assistant")
	w.Key("content")
	w.Arr()
	n := 0
	if translate.IsSet(thinkingBlocks) {
		if err := writeThinkingBlocks(w, thinkingBlocks, param.Key("thinking_blocks"), &n); err != nil {
			return err
		}
	}
	text := func(t, part gjson.Result) {
		if t.Str == "" {
			return
		}
		n++
		w.Obj()
		w.KeyStr("type", "text")
		w.Key("text")
		w.RawStr(t)
		if cc := part.Get("cache_control"); translate.IsSet(cc) {
			w.KeyRaw("cache_control", cc.Raw)
		}
		w.EndObj()
	}
	cparam := param.Key("content")
	switch {
	case !translate.IsSet(content):
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
				err = translate.CannotExpress(cparam.At(j).Key("type"), toAnthropic,
					"assistant content parts must be text or refusal")
			}
			return err == nil
		})
		if err != nil {
			return err
		}
	default:
		return translate.Invalid(cparam, "a string, an array of text parts or null")
	}
	if refusal.Type == gjson.String {
		text(refusal, gjson.Result{})
	}
	if tcs := toolCalls; translate.IsSet(tcs) {
		if !tcs.IsArray() {
			return translate.Invalid(param.Key("tool_calls"), "an array")
		}
		j := -1
		tcs.ForEach(func(_, tc gjson.Result) bool {
			j++
			err = writeToolCallBlock(w, tc, param.Key("tool_calls").At(j))
			n++
			return err == nil
		})
		if err != nil {
			return err
		}
	}
	if n == 0 {
		// Nothing Anthropic can carry (an empty assistant turn).
		w.Rollback(start)
		return nil
	}
	w.EndArr()
	w.EndObj()
	return nil
}

// writeThinkingBlocks copies signed thinking blocks that an earlier
// response gave the client (message.thinking_blocks) back to Anthropic.
func writeThinkingBlocks(w *translate.Writer, tb gjson.Result, param translate.Path, n *int) error {
	if !tb.IsArray() {
		return translate.Invalid(param, "an array")
	}
	var err error
	j := -1
	tb.ForEach(func(_, b gjson.Result) bool {
		j++
		p := param.At(j)
		switch b.Get("type").Str {
		case "thinking":
			th, sig := b.Get("thinking"), b.Get("signature")
			if th.Type != gjson.String || sig.Type != gjson.String {
				err = translate.Invalid(p, `{"type":"thinking","thinking":string,"signature":string}`)
				return false
			}
			if sig.Str == "" {
				return true // unsigned reasoning from another provider
			}
			w.Obj()
			w.KeyStr("type", "thinking")
			w.Key("thinking")
			w.RawStr(th)
			w.Key("signature")
			w.RawStr(sig)
			w.EndObj()
		case "redacted_thinking":
			data := b.Get("data")
			if data.Type != gjson.String {
				err = translate.Invalid(p, `{"type":"redacted_thinking","data":string}`)
				return false
			}
			w.Obj()
			w.KeyStr("type", "redacted_thinking")
			w.Key("data")
			w.RawStr(data)
			w.EndObj()
		default:
			err = translate.Invalid(p.Key("type"), `"thinking" or "redacted_thinking"`)
			return false
		}
		*n++
		return true
	})
	return err
}

// writeToolCallBlock writes an assistant tool call as a tool_use block.
func writeToolCallBlock(w *translate.Writer, tc gjson.Result, param translate.Path) error {
	var err error
	tc.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "id", "function", "index":
		case "type":
			if v.Str != "function" {
				err = translate.CannotExpress(param.Key("type"), toAnthropic, "only function tool calls can be sent")
			}
		default:
			err = translate.Unknown(param.Key(k.Str), toAnthropic)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	id := tc.Get("id")
	if id.Type != gjson.String || id.Str == "" {
		return translate.Invalid(param.Key("id"), "a non-empty string")
	}
	name := tc.Get("function.name")
	if name.Type != gjson.String || name.Str == "" {
		return translate.Invalid(param.Key("function.name"), "a non-empty string")
	}
	input, ok := toolInput(tc.Get("function.arguments"))
	if !ok {
		return translate.Invalid(param.Key("function.arguments"), "a JSON object encoded as a string")
	}
	writeToolUse(w, id.Str, name, input)
	return nil
}

// tool writes a tool message as a tool_result block of the open user
// message, opening one if needed.
func (c *anthropicMsgWriter) tool(m gjson.Result, param translate.Path) error {
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
			err = translate.Unknown(param.Key(k.Str), toAnthropic)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if id.Type != gjson.String || id.Str == "" {
		return translate.Invalid(param.Key("tool_call_id"), "a non-empty string")
	}
	w := c.w
	if !c.open {
		w.Obj()
		w.KeyStr("role", "user")
		w.Key("content")
		w.Arr()
		c.open = true
	}
	w.Obj()
	w.KeyStr("type", "tool_result")
	w.KeyStr("tool_use_id", sanitizeToolID(id.Str))
	cparam := param.Key("content")
	switch {
	case !translate.IsSet(content):
	case content.Type == gjson.String:
		if content.Str != "" {
			w.Key("content")
			w.RawStr(content)
		}
	default:
		mark := w.Mark()
		w.Key("content")
		w.Arr()
		n := 0
		err = stringOrTextParts(content, cparam, func(text, part gjson.Result) {
			if text.Str == "" {
				return
			}
			n++
			w.Obj()
			w.KeyStr("type", "text")
			w.Key("text")
			w.RawStr(text)
			if cc := part.Get("cache_control"); translate.IsSet(cc) {
				w.KeyRaw("cache_control", cc.Raw)
			}
			w.EndObj()
		})
		if err != nil {
			return err
		}
		if n == 0 {
			w.Rollback(mark)
		} else {
			w.EndArr()
		}
	}
	w.EndObj()
	return nil
}
