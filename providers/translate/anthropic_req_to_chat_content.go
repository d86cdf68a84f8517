package translate

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// writeChatSystem writes the Anthropic system prompt as system messages,
// one per text block.
func writeChatSystem(w *jsonOut, system gjson.Result) error {
	switch {
	case !isSet(system):
		return nil
	case system.Type == gjson.String:
		if system.Str != "" {
			w.obj()
			w.keyStr("role", "system")
			w.key("content")
			w.rawStr(system)
			w.endObj()
		}
		return nil
	case system.IsArray():
		var err error
		i := -1
		system.ForEach(func(_, b gjson.Result) bool {
			i++
			p := reqPath("system").at(i)
			if err = checkBlockKeys(b, p, "text", "citations"); err != nil {
				return false
			}
			text := b.Get("text")
			if b.Get("type").Str != "text" || text.Type != gjson.String {
				err = invalidParam(p, `a {"type":"text","text":...} block`)
				return false
			}
			if text.Str != "" {
				w.obj()
				w.keyStr("role", "system")
				w.key("content")
				w.rawStr(text)
				w.endObj()
			}
			return true
		})
		return err
	default:
		return invalidParam(reqPath("system"), "a string or an array of text blocks")
	}
}

// checkBlockKeys rejects members of a content block other than type,
// cache_control (a caching hint OpenAI-compatible APIs do not need) and
// the given ones.
func checkBlockKeys(b gjson.Result, param jpath, allowed ...string) error {
	if !b.IsObject() {
		return invalidParam(param, "a content block object")
	}
	var err error
	b.ForEach(func(k, _ gjson.Result) bool {
		if k.Str == "type" || k.Str == "cache_control" {
			return true
		}
		for _, a := range allowed {
			if k.Str == a {
				return true
			}
		}
		err = &Error{Message: "unknown or unsupported field " + strconv.Quote(k.Str) + " in a " +
			strconv.Quote(b.Get("type").Str) + " block for " + toChat, Param: param.key(k.Str).String()}
		return false
	})
	return err
}

// writeChatMessage writes one Anthropic message as one or more chat
// messages.
func writeChatMessage(w *jsonOut, m gjson.Result, param jpath) error {
	if !m.IsObject() {
		return invalidParam(param, "a message object")
	}
	var err error
	m.ForEach(func(k, _ gjson.Result) bool {
		if k.Str != "role" && k.Str != "content" {
			err = &Error{Message: "unknown message field " + strconv.Quote(k.Str), Param: param.key(k.Str).String()}
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	content := m.Get("content")
	cparam := param.key("content")
	role := m.Get("role").Str
	if role != "user" && role != "assistant" {
		return invalidParam(param.key("role"), `"user" or "assistant"`)
	}
	if content.Type == gjson.String {
		w.obj()
		w.keyStr("role", role)
		w.key("content")
		w.rawStr(content)
		w.endObj()
		return nil
	}
	if !content.IsArray() {
		return invalidParam(cparam, "a string or an array of content blocks")
	}
	if role == "assistant" {
		return writeChatAssistant(w, content, cparam)
	}
	return writeChatUser(w, content, cparam)
}

// writeChatUser writes a user turn: its tool results first, as tool
// messages, then a user message with the remaining blocks.
func writeChatUser(w *jsonOut, content gjson.Result, param jpath) error {
	var err error
	var toolImages []toolImage
	others, i := 0, -1
	var first gjson.Result // the first block that is not a tool result
	var firstAt int
	content.ForEach(func(_, b gjson.Result) bool {
		i++
		if b.Get("type").Str != "tool_result" {
			if others == 0 {
				first, firstAt = b, i
			}
			others++
			return true
		}
		var imgs []gjson.Result
		imgs, err = writeToolMessage(w, b, param.at(i))
		if len(imgs) > 0 {
			toolImages = append(toolImages, toolImage{b.Get("tool_use_id").Str, imgs, param.at(i)})
		}
		return err == nil
	})
	if err != nil || (others == 0 && len(toolImages) == 0) {
		return err
	}
	w.obj()
	w.keyStr("role", "user")
	w.key("content")
	if len(toolImages) == 0 && others == 1 && first.Get("type").Str == "text" {
		if err := checkBlockKeys(first, param.at(firstAt), "text", "citations"); err != nil {
			return err
		}
		w.rawStr(first.Get("text"))
		w.endObj()
		return nil
	}
	w.arr()
	for _, ti := range toolImages {
		w.obj()
		w.keyStr("type", "text")
		w.keyStr("text", "(images returned by tool call "+ti.id+")")
		w.endObj()
		for _, img := range ti.images {
			if err := writeImagePart(w, img, ti.param.key("content")); err != nil {
				return err
			}
		}
	}
	i = -1
	content.ForEach(func(_, b gjson.Result) bool {
		i++
		if b.Get("type").Str != "tool_result" {
			err = writeChatUserPart(w, b, param.at(i))
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	w.endArr()
	w.endObj()
	return nil
}

// toolImage holds the images of one tool result: chat tool messages carry
// text only, so they follow in a user message.
type toolImage struct {
	id     string
	images []gjson.Result
	param  jpath // of the tool_result block
}

// writeToolMessage writes a tool_result block as a tool message and
// returns its image blocks.
func writeToolMessage(w *jsonOut, b gjson.Result, param jpath) ([]gjson.Result, error) {
	if err := checkBlockKeys(b, param, "tool_use_id", "content", "is_error"); err != nil {
		return nil, err
	}
	id := b.Get("tool_use_id")
	if id.Type != gjson.String || id.Str == "" {
		return nil, invalidParam(param.key("tool_use_id"), "a non-empty string")
	}
	isErr := b.Get("is_error").Type == gjson.True
	content := b.Get("content")
	var images []gjson.Result
	w.obj()
	w.keyStr("role", "tool")
	w.key("tool_call_id")
	w.rawStr(id)
	w.key("content")
	switch {
	case !isSet(content):
		w.str(strings.TrimSpace(errorPrefix(isErr)))
	case content.Type == gjson.String && !isErr:
		w.rawStr(content)
	case content.Type == gjson.String:
		w.str(errorPrefix(isErr) + content.Str)
	case content.IsArray():
		// Texts joined into one string, which every OpenAI-compatible
		// upstream accepts.
		var sb strings.Builder
		sb.WriteString(errorPrefix(isErr))
		var err error
		n := 0
		j := -1
		content.ForEach(func(_, c gjson.Result) bool {
			j++
			p := param.key("content").at(j)
			switch c.Get("type").Str {
			case "text":
				if err = checkBlockKeys(c, p, "text", "citations"); err != nil {
					return false
				}
				if n > 0 {
					sb.WriteByte('\n')
				}
				n++
				sb.WriteString(c.Get("text").Str)
			case "image":
				images = append(images, c)
			default:
				err = cannotExpress(p.key("type"), toChat,
					"tool results can carry text and images only, not "+strconv.Quote(c.Get("type").Str))
			}
			return err == nil
		})
		if err != nil {
			return nil, err
		}
		w.str(sb.String())
	default:
		return nil, invalidParam(param.key("content"), "a string or an array of content blocks")
	}
	w.endObj()
	return images, nil
}

// errorPrefix is how a tool result with is_error reads in a tool message.
func errorPrefix(isErr bool) string {
	if isErr {
		return "Error: "
	}
	return ""
}

// writeChatUserPart writes one user block as a chat content part.
func writeChatUserPart(w *jsonOut, b gjson.Result, param jpath) error {
	switch t := b.Get("type").Str; t {
	case "text":
		if err := checkBlockKeys(b, param, "text", "citations"); err != nil {
			return err
		}
		w.obj()
		w.keyStr("type", "text")
		w.key("text")
		w.rawStr(b.Get("text"))
		w.endObj()
		return nil
	case "image":
		return writeImagePart(w, b, param)
	case "document":
		return writeDocumentPart(w, b, param)
	default:
		return cannotExpress(param.key("type"), toChat, "no chat equivalent for "+strconv.Quote(t)+" blocks")
	}
}

// writeImagePart writes an image block as an image_url part.
func writeImagePart(w *jsonOut, b gjson.Result, param jpath) error {
	if err := checkBlockKeys(b, param, "source"); err != nil {
		return err
	}
	src := b.Get("source")
	w.obj()
	w.keyStr("type", "image_url")
	w.key("image_url")
	w.obj()
	w.key("url")
	switch src.Get("type").Str {
	case "base64":
		w.sep()
		w.b = append(w.b, `"data:`...)
		w.b = escapeJSON(w.b, src.Get("media_type").Str)
		w.b = append(w.b, ";base64,"...)
		w.b = escapeJSON(w.b, src.Get("data").Str)
		w.b = append(w.b, '"')
	case "url":
		w.rawStr(src.Get("url"))
	default:
		return cannotExpress(param.key("source.type"), toChat,
			"images must be inline (base64) or URLs; Anthropic file ids do not exist there")
	}
	w.endObj()
	w.endObj()
	return nil
}

// writeDocumentPart writes a document block: an inline PDF as a file part,
// plain text as a text part.
func writeDocumentPart(w *jsonOut, b gjson.Result, param jpath) error {
	if err := checkBlockKeys(b, param, "source", "title", "context", "citations"); err != nil {
		return err
	}
	if c := b.Get("citations"); c.Get("enabled").Type == gjson.True {
		return cannotExpress(param.key("citations"), toChat, "chat completions have no citations")
	}
	src := b.Get("source")
	title := b.Get("title").Str
	if ctx := b.Get("context"); ctx.Type == gjson.String && ctx.Str != "" {
		w.obj()
		w.keyStr("type", "text")
		w.key("text")
		w.rawStr(ctx)
		w.endObj()
	}
	switch st, media := src.Get("type").Str, src.Get("media_type").Str; {
	case st == "base64" && media == "application/pdf":
		if title == "" {
			title = "document.pdf"
		}
		w.obj()
		w.keyStr("type", "file")
		w.key("file")
		w.obj()
		w.keyStr("filename", title)
		w.key("file_data")
		w.sep()
		w.b = append(w.b, `"data:application/pdf;base64,`...)
		w.b = escapeJSON(w.b, src.Get("data").Str)
		w.b = append(w.b, '"')
		w.endObj()
		w.endObj()
	case st == "text":
		text := src.Get("data").Str
		if title != "" {
			text = title + "\n\n" + text
		}
		w.obj()
		w.keyStr("type", "text")
		w.keyStr("text", text)
		w.endObj()
	case st == "base64" && media == "text/plain":
		raw, err := base64.StdEncoding.DecodeString(src.Get("data").Str)
		if err != nil {
			return invalidParam(param.key("source.data"), "valid base64")
		}
		text := string(raw)
		if title != "" {
			text = title + "\n\n" + text
		}
		w.obj()
		w.keyStr("type", "text")
		w.keyStr("text", text)
		w.endObj()
	default:
		return cannotExpress(param.key("source"), toChat,
			"only inline PDF (base64) and plain-text documents can be sent, not URL, file or content sources")
	}
	return nil
}

// writeChatAssistant writes an assistant turn: its text as content, its
// tool_use blocks as tool_calls. Thinking blocks are not sent: chat
// completions take no prior reasoning.
func writeChatAssistant(w *jsonOut, content gjson.Result, param jpath) error {
	var textBuf, callBuf [4]gjson.Result
	texts, calls := textBuf[:0], callBuf[:0]
	var err error
	i := -1
	content.ForEach(func(_, b gjson.Result) bool {
		i++
		p := param.at(i)
		switch t := b.Get("type").Str; t {
		case "text":
			if err = checkBlockKeys(b, p, "text", "citations"); err == nil && b.Get("text").Str != "" {
				texts = append(texts, b.Get("text"))
			}
		case "tool_use":
			if err = checkBlockKeys(b, p, "id", "name", "input"); err == nil {
				if !b.Get("input").IsObject() {
					err = invalidParam(p.key("input"), "an object")
				}
				calls = append(calls, b)
			}
		case "thinking", "redacted_thinking":
		default:
			err = cannotExpress(p.key("type"), toChat, "no chat equivalent for "+strconv.Quote(t)+" blocks")
		}
		return err == nil
	})
	if err != nil || (len(texts) == 0 && len(calls) == 0) {
		return err
	}
	w.obj()
	w.keyStr("role", "assistant")
	w.key("content")
	switch len(texts) {
	case 0:
		w.null()
	case 1:
		w.rawStr(texts[0])
	default:
		// Consecutive text blocks are one text split up (by citations,
		// for example): joined without a separator, as streams deliver
		// them.
		var sb strings.Builder
		for _, t := range texts {
			sb.WriteString(t.Str)
		}
		w.str(sb.String())
	}
	if len(calls) > 0 {
		w.key("tool_calls")
		w.arr()
		for _, c := range calls {
			w.obj()
			w.key("id")
			w.rawStr(c.Get("id"))
			w.keyStr("type", "function")
			w.key("function")
			w.obj()
			w.key("name")
			w.rawStr(c.Get("name"))
			w.keyStr("arguments", compactJSON(c.Get("input").Raw))
			w.endObj()
			w.endObj()
		}
		w.endArr()
	}
	w.endObj()
	return nil
}
