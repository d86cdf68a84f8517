package anthropic

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// writeChatSystem writes the Anthropic system prompt as system messages,
// one per text block.
func writeChatSystem(w *translate.Writer, system gjson.Result) error {
	switch {
	case !translate.IsSet(system):
		return nil
	case system.Type == gjson.String:
		if system.Str != "" {
			w.Obj()
			w.KeyStr("role", "system")
			w.Key("content")
			w.RawStr(system)
			w.EndObj()
		}
		return nil
	case system.IsArray():
		var err error
		i := -1
		system.ForEach(func(_, b gjson.Result) bool {
			i++
			p := translate.Param("system").At(i)
			if err = checkBlockKeys(b, p, "text", "citations"); err != nil {
				return false
			}
			text := b.Get("text")
			if b.Get("type").Str != "text" || text.Type != gjson.String {
				err = translate.Invalid(p, `a {"type":"text","text":...} block`)
				return false
			}
			if text.Str != "" {
				w.Obj()
				w.KeyStr("role", "system")
				w.Key("content")
				w.RawStr(text)
				w.EndObj()
			}
			return true
		})
		return err
	default:
		return translate.Invalid(translate.Param("system"), "a string or an array of text blocks")
	}
}

// writeChatSystemMessage writes a system-role message of the conversation
// (a string or an array of text blocks) as one chat system message at the
// same place, its text blocks joined by blank lines.
func writeChatSystemMessage(w *translate.Writer, content gjson.Result, param translate.Path) error {
	if content.Type == gjson.String {
		w.Obj()
		w.KeyStr("role", "system")
		w.Key("content")
		w.RawStr(content)
		w.EndObj()
		return nil
	}
	if !content.IsArray() {
		return translate.Invalid(param, "a string or an array of text blocks")
	}
	var text strings.Builder
	var err error
	i := -1
	content.ForEach(func(_, b gjson.Result) bool {
		i++
		p := param.At(i)
		if err = checkBlockKeys(b, p, "text", "citations"); err != nil {
			return false
		}
		t := b.Get("text")
		if b.Get("type").Str != "text" || t.Type != gjson.String {
			err = translate.Invalid(p, `a {"type":"text","text":...} block`)
			return false
		}
		if t.Str != "" {
			if text.Len() > 0 {
				text.WriteString("\n\n")
			}
			text.WriteString(t.Str)
		}
		return true
	})
	if err != nil {
		return err
	}
	w.Obj()
	w.KeyStr("role", "system")
	w.KeyStr("content", text.String())
	w.EndObj()
	return nil
}

// checkBlockKeys rejects members of a content block other than type,
// cache_control (a caching hint OpenAI-compatible APIs do not need) and
// the given ones.
func checkBlockKeys(b gjson.Result, param translate.Path, allowed ...string) error {
	if !b.IsObject() {
		return translate.Invalid(param, "a content block object")
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
		err = translate.Unknown(param.Key(k.Str), toChat)
		return false
	})
	return err
}

// writeChatMessage writes one Anthropic message as one or more chat
// messages.
func writeChatMessage(w *translate.Writer, m gjson.Result, param translate.Path) error {
	if !m.IsObject() {
		return translate.Invalid(param, "a message object")
	}
	var err error
	m.ForEach(func(k, _ gjson.Result) bool {
		if k.Str != "role" && k.Str != "content" {
			err = translate.Unknown(param.Key(k.Str), toChat)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	content := m.Get("content")
	cparam := param.Key("content")
	role := m.Get("role").Str
	if role == "system" {
		// A system message between the turns (a Messages API beta that
		// coding agents use) stays a system message, in place.
		return writeChatSystemMessage(w, content, cparam)
	}
	if role != "user" && role != "assistant" {
		return translate.Invalid(param.Key("role"), `"user", "assistant" or "system"`)
	}
	if content.Type == gjson.String {
		w.Obj()
		w.KeyStr("role", role)
		w.Key("content")
		w.RawStr(content)
		w.EndObj()
		return nil
	}
	if !content.IsArray() {
		return translate.Invalid(cparam, "a string or an array of content blocks")
	}
	if role == "assistant" {
		return writeChatAssistant(w, content, cparam)
	}
	return writeChatUser(w, content, cparam)
}

// writeChatUser writes a user turn: its tool results first, as tool
// messages, then a user message with the remaining blocks.
func writeChatUser(w *translate.Writer, content gjson.Result, param translate.Path) error {
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
		imgs, err = writeToolMessage(w, b, param.At(i))
		if len(imgs) > 0 {
			toolImages = append(toolImages, toolImage{b.Get("tool_use_id").Str, imgs, param.At(i)})
		}
		return err == nil
	})
	if err != nil || (others == 0 && len(toolImages) == 0) {
		return err
	}
	w.Obj()
	w.KeyStr("role", "user")
	w.Key("content")
	if len(toolImages) == 0 && others == 1 && first.Get("type").Str == "text" {
		if err := checkBlockKeys(first, param.At(firstAt), "text", "citations"); err != nil {
			return err
		}
		w.RawStr(first.Get("text"))
		w.EndObj()
		return nil
	}
	w.Arr()
	for _, ti := range toolImages {
		w.Obj()
		w.KeyStr("type", "text")
		w.KeyStr("text", "(images returned by tool call "+ti.id+")")
		w.EndObj()
		for _, img := range ti.images {
			if err := writeImagePart(w, img, ti.param.Key("content")); err != nil {
				return err
			}
		}
	}
	i = -1
	content.ForEach(func(_, b gjson.Result) bool {
		i++
		if b.Get("type").Str != "tool_result" {
			err = writeChatUserPart(w, b, param.At(i))
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	w.EndArr()
	w.EndObj()
	return nil
}

// toolImage holds the images of one tool result: chat tool messages carry
// text only, so they follow in a user message.
type toolImage struct {
	id     string
	images []gjson.Result
	param  translate.Path // of the tool_result block
}

// writeToolMessage writes a tool_result block as a tool message and
// returns its image blocks.
func writeToolMessage(w *translate.Writer, b gjson.Result, param translate.Path) ([]gjson.Result, error) {
	if err := checkBlockKeys(b, param, "tool_use_id", "content", "is_error"); err != nil {
		return nil, err
	}
	id := b.Get("tool_use_id")
	if id.Type != gjson.String || id.Str == "" {
		return nil, translate.Invalid(param.Key("tool_use_id"), "a non-empty string")
	}
	isErr := b.Get("is_error").Type == gjson.True
	content := b.Get("content")
	var images []gjson.Result
	w.Obj()
	w.KeyStr("role", "tool")
	w.Key("tool_call_id")
	w.RawStr(id)
	w.Key("content")
	switch {
	case !translate.IsSet(content):
		w.Str(strings.TrimSpace(errorPrefix(isErr)))
	case content.Type == gjson.String && !isErr:
		w.RawStr(content)
	case content.Type == gjson.String:
		w.Str(errorPrefix(isErr) + content.Str)
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
			p := param.Key("content").At(j)
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
				err = translate.CannotExpress(p.Key("type"), toChat,
					"tool results can carry text and images only, not "+strconv.Quote(c.Get("type").Str))
			}
			return err == nil
		})
		if err != nil {
			return nil, err
		}
		w.Str(sb.String())
	default:
		return nil, translate.Invalid(param.Key("content"), "a string or an array of content blocks")
	}
	w.EndObj()
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
func writeChatUserPart(w *translate.Writer, b gjson.Result, param translate.Path) error {
	switch t := b.Get("type").Str; t {
	case "text":
		if err := checkBlockKeys(b, param, "text", "citations"); err != nil {
			return err
		}
		w.Obj()
		w.KeyStr("type", "text")
		w.Key("text")
		w.RawStr(b.Get("text"))
		w.EndObj()
		return nil
	case "image":
		return writeImagePart(w, b, param)
	case "document":
		return writeDocumentPart(w, b, param)
	default:
		return translate.CannotExpress(param.Key("type"), toChat, "no chat equivalent for "+strconv.Quote(t)+" blocks")
	}
}

// writeImagePart writes an image block as an image_url part.
func writeImagePart(w *translate.Writer, b gjson.Result, param translate.Path) error {
	if err := checkBlockKeys(b, param, "source"); err != nil {
		return err
	}
	src := b.Get("source")
	w.Obj()
	w.KeyStr("type", "image_url")
	w.Key("image_url")
	w.Obj()
	w.Key("url")
	switch src.Get("type").Str {
	case "base64":
		w.Sep()
		w.Buf = append(w.Buf, `"data:`...)
		w.Buf = translate.AppendEscaped(w.Buf, src.Get("media_type").Str)
		w.Buf = append(w.Buf, ";base64,"...)
		w.Buf = translate.AppendEscaped(w.Buf, src.Get("data").Str)
		w.Buf = append(w.Buf, '"')
	case "url":
		w.RawStr(src.Get("url"))
	default:
		return translate.CannotExpress(param.Key("source.type"), toChat,
			"images must be inline (base64) or URLs; Anthropic file ids do not exist there")
	}
	w.EndObj()
	w.EndObj()
	return nil
}

// writeDocumentPart writes a document block: an inline PDF as a file part,
// plain text as a text part.
func writeDocumentPart(w *translate.Writer, b gjson.Result, param translate.Path) error {
	if err := checkBlockKeys(b, param, "source", "title", "context", "citations"); err != nil {
		return err
	}
	if c := b.Get("citations"); c.Get("enabled").Type == gjson.True {
		return translate.CannotExpress(param.Key("citations"), toChat, "chat completions have no citations")
	}
	src := b.Get("source")
	title := b.Get("title").Str
	if ctx := b.Get("context"); ctx.Type == gjson.String && ctx.Str != "" {
		w.Obj()
		w.KeyStr("type", "text")
		w.Key("text")
		w.RawStr(ctx)
		w.EndObj()
	}
	switch st, media := src.Get("type").Str, src.Get("media_type").Str; {
	case st == "base64" && media == "application/pdf":
		if title == "" {
			title = "document.pdf"
		}
		w.Obj()
		w.KeyStr("type", "file")
		w.Key("file")
		w.Obj()
		w.KeyStr("filename", title)
		w.Key("file_data")
		w.Sep()
		w.Buf = append(w.Buf, `"data:application/pdf;base64,`...)
		w.Buf = translate.AppendEscaped(w.Buf, src.Get("data").Str)
		w.Buf = append(w.Buf, '"')
		w.EndObj()
		w.EndObj()
	case st == "text":
		text := src.Get("data").Str
		if title != "" {
			text = title + "\n\n" + text
		}
		w.Obj()
		w.KeyStr("type", "text")
		w.KeyStr("text", text)
		w.EndObj()
	case st == "base64" && media == "text/plain":
		raw, err := base64.StdEncoding.DecodeString(src.Get("data").Str)
		if err != nil {
			return translate.Invalid(param.Key("source.data"), "valid base64")
		}
		text := string(raw)
		if title != "" {
			text = title + "\n\n" + text
		}
		w.Obj()
		w.KeyStr("type", "text")
		w.KeyStr("text", text)
		w.EndObj()
	default:
		return translate.CannotExpress(param.Key("source"), toChat,
			"only inline PDF (base64) and plain-text documents can be sent, not URL, file or content sources")
	}
	return nil
}

// writeChatAssistant writes an assistant turn: its text as content, its
// tool_use blocks as tool_calls. Thinking blocks are not sent: chat
// completions take no prior reasoning.
func writeChatAssistant(w *translate.Writer, content gjson.Result, param translate.Path) error {
	var textBuf, callBuf [4]gjson.Result
	texts, calls := textBuf[:0], callBuf[:0]
	var err error
	i := -1
	content.ForEach(func(_, b gjson.Result) bool {
		i++
		p := param.At(i)
		switch t := b.Get("type").Str; t {
		case "text":
			if err = checkBlockKeys(b, p, "text", "citations"); err == nil && b.Get("text").Str != "" {
				texts = append(texts, b.Get("text"))
			}
		case "tool_use":
			if err = checkBlockKeys(b, p, "id", "name", "input"); err == nil {
				if !b.Get("input").IsObject() {
					err = translate.Invalid(p.Key("input"), "an object")
				}
				calls = append(calls, b)
			}
		case "thinking", "redacted_thinking":
		default:
			err = translate.CannotExpress(p.Key("type"), toChat, "no chat equivalent for "+strconv.Quote(t)+" blocks")
		}
		return err == nil
	})
	if err != nil || (len(texts) == 0 && len(calls) == 0) {
		return err
	}
	w.Obj()
	w.KeyStr("role", "assistant")
	w.Key("content")
	switch len(texts) {
	case 0:
		w.Null()
	case 1:
		w.RawStr(texts[0])
	default:
		// Consecutive text blocks are one text split up (by citations,
		// for example): joined without a separator, as streams deliver
		// them.
		var sb strings.Builder
		for _, t := range texts {
			sb.WriteString(t.Str)
		}
		w.Str(sb.String())
	}
	if len(calls) > 0 {
		w.Key("tool_calls")
		w.Arr()
		for _, c := range calls {
			writeToolCall(w, c)
		}
		w.EndArr()
	}
	w.EndObj()
	return nil
}
