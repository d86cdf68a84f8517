package anthropic

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// writeAnthropicSystem writes the top-level system prompt: the text of
// every system and developer message in order, plus the instruction a JSON
// response format needs.
func writeAnthropicSystem(w *translate.Writer, msgs gjson.Result, f chatJSONFormat, thinking bool) error {
	type block struct{ text, cache gjson.Result }
	var blocks []block
	var err error
	i := -1
	msgs.ForEach(func(_, m gjson.Result) bool {
		i++
		role := m.Get("role").Str
		if role != "system" && role != "developer" {
			return true
		}
		param := translate.Param("messages").At(i)
		m.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "role", "content":
			case "name":
				if translate.IsSet(v) && v.Str != "" {
					err = translate.CannotExpress(param.Key("name"), toAnthropic, "Anthropic messages have no participant names")
				}
			default:
				err = translate.Unknown(param.Key(k.Str), toAnthropic)
			}
			return err == nil
		})
		if err != nil {
			return false
		}
		err = stringOrTextParts(m.Get("content"), param.Key("content"), func(text, part gjson.Result) {
			if text.Str != "" {
				blocks = append(blocks, block{text, part.Get("cache_control")})
			}
		})
		return err == nil
	})
	if err != nil {
		return err
	}
	extra := ""
	switch {
	case f.kind == "json_object":
		extra = jsonObjectInstruction
	case f.kind == "json_schema" && thinking:
		extra = "Give your final answer by calling the " + jsonToolName + " tool; do not answer in plain text."
	}
	if len(blocks) == 0 && extra == "" {
		return nil
	}
	w.Key("system")
	if len(blocks) == 1 && extra == "" && !translate.IsSet(blocks[0].cache) {
		w.RawStr(blocks[0].text)
		return nil
	}
	w.Arr()
	for _, b := range blocks {
		w.Obj()
		w.KeyStr("type", "text")
		w.Key("text")
		w.RawStr(b.text)
		if translate.IsSet(b.cache) {
			w.KeyRaw("cache_control", b.cache.Raw)
		}
		w.EndObj()
	}
	if extra != "" {
		w.Obj()
		w.KeyStr("type", "text")
		w.KeyStr("text", extra)
		w.EndObj()
	}
	w.EndArr()
	return nil
}

// anthropicMsgWriter writes the messages array. A user message that holds
// tool results stays open so that following tool messages (and a user
// message right after them) join it: Anthropic wants all results of one
// assistant turn in the next user turn.
type anthropicMsgWriter struct {
	w    *translate.Writer
	open bool
}

// writeAnthropicMessages writes the non-system messages of a chat request.
func writeAnthropicMessages(w *translate.Writer, msgs gjson.Result) error {
	c := anthropicMsgWriter{w: w}
	w.Arr()
	var err error
	i := -1
	msgs.ForEach(func(_, m gjson.Result) bool {
		i++
		param := translate.Param("messages").At(i)
		if !m.IsObject() {
			err = translate.Invalid(param, "a message object")
			return false
		}
		switch role := m.Get("role"); role.Str {
		case "system", "developer":
			// Written as the system prompt.
		case "user":
			err = c.user(m, param)
		case "assistant":
			c.closeOpen()
			err = c.assistant(m, param)
		case "tool":
			err = c.tool(m, param)
		case "function":
			err = translate.CannotExpress(param.Key("role"), toAnthropic, "function messages are deprecated; use tool messages")
		default:
			err = translate.Invalid(param.Key("role"), `"system", "developer", "user", "assistant" or "tool"`)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	c.closeOpen()
	w.EndArr()
	return nil
}

// closeOpen closes the open user message of tool results, if any.
func (c *anthropicMsgWriter) closeOpen() {
	if c.open {
		c.w.EndArr()
		c.w.EndObj()
		c.open = false
	}
}

// user writes a user message, or adds its content to the open message of
// tool results.
func (c *anthropicMsgWriter) user(m gjson.Result, param translate.Path) error {
	var err error
	var content gjson.Result
	m.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "role":
		case "content":
			content = v
		case "name":
			if translate.IsSet(v) && v.Str != "" {
				err = translate.CannotExpress(param.Key("name"), toAnthropic, "Anthropic messages have no participant names")
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
	cparam := param.Key("content")
	switch {
	case content.Type == gjson.String:
		if c.open {
			if content.Str != "" {
				w.Obj()
				w.KeyStr("type", "text")
				w.Key("text")
				w.RawStr(content)
				w.EndObj()
			}
			return nil
		}
		w.Obj()
		w.KeyStr("role", "user")
		w.Key("content")
		w.RawStr(content)
		w.EndObj()
		return nil
	case content.IsArray() && translate.HasElements(content):
		if !c.open {
			w.Obj()
			w.KeyStr("role", "user")
			w.Key("content")
			w.Arr()
		}
		j := -1
		content.ForEach(func(_, part gjson.Result) bool {
			j++
			err = writeUserPart(w, part, cparam.At(j))
			return err == nil
		})
		if !c.open {
			w.EndArr()
			w.EndObj()
		}
		return err
	default:
		return translate.Invalid(cparam, "a string or a non-empty array of content parts")
	}
}

// writeUserPart writes one user content part as an Anthropic block.
func writeUserPart(w *translate.Writer, part gjson.Result, param translate.Path) error {
	typ := part.Get("type").Str
	var cache gjson.Result
	var err error
	part.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
		case "cache_control":
			cache = v
		case typ:
		default:
			err = translate.Unknown(param.Key(k.Str), toAnthropic)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	switch typ {
	case "text":
		text := part.Get("text")
		if text.Type != gjson.String {
			return translate.Invalid(param.Key("text"), "a string")
		}
		w.Obj()
		w.KeyStr("type", "text")
		w.Key("text")
		w.RawStr(text)
	case "image_url":
		w.Obj()
		if err := writeImageSource(w, part.Get("image_url"), param.Key("image_url")); err != nil {
			return err
		}
	case "file":
		w.Obj()
		if err := writeDocument(w, part.Get("file"), param.Key("file")); err != nil {
			return err
		}
	case "input_audio":
		return translate.CannotExpress(param.Key("input_audio"), toAnthropic, "Anthropic models take no audio input")
	default:
		return translate.CannotExpress(param.Key("type"), toAnthropic, "unknown content part type "+strconv.Quote(typ))
	}
	if translate.IsSet(cache) {
		w.KeyRaw("cache_control", cache.Raw)
	}
	w.EndObj()
	return nil
}

// writeImageSource writes the type and source members of an image block
// from an image_url value ({"url":..., "detail":...} or a bare URL).
// detail has no Anthropic counterpart and is not sent.
func writeImageSource(w *translate.Writer, img gjson.Result, param translate.Path) error {
	url := img
	if img.IsObject() {
		var err error
		img.ForEach(func(k, _ gjson.Result) bool {
			if k.Str != "url" && k.Str != "detail" {
				err = translate.Unknown(param.Key(k.Str), toAnthropic)
			}
			return err == nil
		})
		if err != nil {
			return err
		}
		url = img.Get("url")
		param = param.Key("url")
	}
	if url.Type != gjson.String {
		return translate.Invalid(param, "an image URL string")
	}
	w.KeyStr("type", "image")
	w.Key("source")
	w.Obj()
	if media, data, ok := splitDataURL(url.Str); ok {
		if !anthropicImageTypes[media] {
			return translate.CannotExpress(param, toAnthropic, "image type "+strconv.Quote(media)+
				" is not accepted; use JPEG, PNG, GIF or WebP")
		}
		w.KeyStr("type", "base64")
		w.KeyStr("media_type", media)
		w.KeyStr("data", data)
	} else if strings.HasPrefix(url.Str, "https://") || strings.HasPrefix(url.Str, "http://") {
		w.KeyStr("type", "url")
		w.Key("url")
		w.RawStr(url)
	} else {
		return translate.Invalid(param, "an http(s) URL or a base64 data: URL")
	}
	w.EndObj()
	return nil
}

// writeDocument writes a document block from a chat file part. Only inline
// PDF and plain-text files can be expressed.
func writeDocument(w *translate.Writer, file gjson.Result, param translate.Path) error {
	if !file.IsObject() {
		return translate.Invalid(param, "an object")
	}
	var err error
	file.ForEach(func(k, _ gjson.Result) bool {
		switch k.Str {
		case "file_data", "filename":
		case "file_id":
			err = translate.CannotExpress(param.Key("file_id"), toAnthropic, "OpenAI file ids do not exist there; send file_data")
		default:
			err = translate.Unknown(param.Key(k.Str), toAnthropic)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	data := file.Get("file_data")
	media, b64, ok := splitDataURL(data.Str)
	if !ok {
		return translate.Invalid(param.Key("file_data"), "a base64 data: URL")
	}
	w.KeyStr("type", "document")
	w.Key("source")
	w.Obj()
	switch media {
	case "application/pdf":
		w.KeyStr("type", "base64")
		w.KeyStr("media_type", media)
		w.KeyStr("data", b64)
	case "text/plain":
		text, derr := base64.StdEncoding.DecodeString(b64)
		if derr != nil {
			return translate.Invalid(param.Key("file_data"), "valid base64")
		}
		w.KeyStr("type", "text")
		w.KeyStr("media_type", media)
		w.Key("data")
		w.StrBytes(text)
	default:
		return translate.CannotExpress(param.Key("file_data"), toAnthropic,
			"only PDF and plain-text files can be sent, not "+strconv.Quote(media))
	}
	w.EndObj()
	if name := file.Get("filename"); name.Type == gjson.String && name.Str != "" {
		w.Key("title")
		w.RawStr(name)
	}
	return nil
}
