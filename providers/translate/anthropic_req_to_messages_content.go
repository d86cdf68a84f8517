package translate

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// writeAnthropicSystem writes the top-level system prompt: the text of
// every system and developer message in order, plus the instruction a JSON
// response format needs.
func writeAnthropicSystem(w *jsonOut, msgs gjson.Result, f chatJSONFormat, thinking bool) error {
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
		param := reqPath("messages").at(i)
		m.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "role", "content":
			case "name":
				if isSet(v) && v.Str != "" {
					err = cannotExpress(param.key("name"), toAnthropic, "Anthropic messages have no participant names")
				}
			default:
				err = unknownField(param.key(k.Str))
			}
			return err == nil
		})
		if err != nil {
			return false
		}
		err = stringOrTextParts(m.Get("content"), param.key("content"), func(text, part gjson.Result) {
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
	w.key("system")
	if len(blocks) == 1 && extra == "" && !isSet(blocks[0].cache) {
		w.rawStr(blocks[0].text)
		return nil
	}
	w.arr()
	for _, b := range blocks {
		w.obj()
		w.keyStr("type", "text")
		w.key("text")
		w.rawStr(b.text)
		if isSet(b.cache) {
			w.keyRaw("cache_control", b.cache.Raw)
		}
		w.endObj()
	}
	if extra != "" {
		w.obj()
		w.keyStr("type", "text")
		w.keyStr("text", extra)
		w.endObj()
	}
	w.endArr()
	return nil
}

// unknownField is the Error for a request field the translator does not
// know.
func unknownField(p jpath) *Error {
	param := p.String()
	return &Error{Message: "unknown or unsupported request field " + param + " for " + toAnthropic, Param: param}
}

// anthropicMsgWriter writes the messages array. A user message that holds
// tool results stays open so that following tool messages (and a user
// message right after them) join it: Anthropic wants all results of one
// assistant turn in the next user turn.
type anthropicMsgWriter struct {
	w    *jsonOut
	open bool
}

// writeAnthropicMessages writes the non-system messages of a chat request.
func writeAnthropicMessages(w *jsonOut, msgs gjson.Result) error {
	c := anthropicMsgWriter{w: w}
	w.arr()
	var err error
	i := -1
	msgs.ForEach(func(_, m gjson.Result) bool {
		i++
		param := reqPath("messages").at(i)
		if !m.IsObject() {
			err = invalidParam(param, "a message object")
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
			err = cannotExpress(param.key("role"), toAnthropic, "function messages are deprecated; use tool messages")
		default:
			err = invalidParam(param.key("role"), `"system", "developer", "user", "assistant" or "tool"`)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	c.closeOpen()
	w.endArr()
	return nil
}

// closeOpen closes the open user message of tool results, if any.
func (c *anthropicMsgWriter) closeOpen() {
	if c.open {
		c.w.endArr()
		c.w.endObj()
		c.open = false
	}
}

// user writes a user message, or adds its content to the open message of
// tool results.
func (c *anthropicMsgWriter) user(m gjson.Result, param jpath) error {
	var err error
	var content gjson.Result
	m.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "role":
		case "content":
			content = v
		case "name":
			if isSet(v) && v.Str != "" {
				err = cannotExpress(param.key("name"), toAnthropic, "Anthropic messages have no participant names")
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
	cparam := param.key("content")
	switch {
	case content.Type == gjson.String:
		if c.open {
			if content.Str != "" {
				w.obj()
				w.keyStr("type", "text")
				w.key("text")
				w.rawStr(content)
				w.endObj()
			}
			return nil
		}
		w.obj()
		w.keyStr("role", "user")
		w.key("content")
		w.rawStr(content)
		w.endObj()
		return nil
	case content.IsArray() && hasElements(content):
		if !c.open {
			w.obj()
			w.keyStr("role", "user")
			w.key("content")
			w.arr()
		}
		j := -1
		content.ForEach(func(_, part gjson.Result) bool {
			j++
			err = writeUserPart(w, part, cparam.at(j))
			return err == nil
		})
		if !c.open {
			w.endArr()
			w.endObj()
		}
		return err
	default:
		return invalidParam(cparam, "a string or a non-empty array of content parts")
	}
}

// writeUserPart writes one user content part as an Anthropic block.
func writeUserPart(w *jsonOut, part gjson.Result, param jpath) error {
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
			err = unknownField(param.key(k.Str))
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
			return invalidParam(param.key("text"), "a string")
		}
		w.obj()
		w.keyStr("type", "text")
		w.key("text")
		w.rawStr(text)
	case "image_url":
		w.obj()
		if err := writeImageSource(w, part.Get("image_url"), param.key("image_url")); err != nil {
			return err
		}
	case "file":
		w.obj()
		if err := writeDocument(w, part.Get("file"), param.key("file")); err != nil {
			return err
		}
	case "input_audio":
		return cannotExpress(param.key("input_audio"), toAnthropic, "Anthropic models take no audio input")
	default:
		return cannotExpress(param.key("type"), toAnthropic, "unknown content part type "+strconv.Quote(typ))
	}
	if isSet(cache) {
		w.keyRaw("cache_control", cache.Raw)
	}
	w.endObj()
	return nil
}

// writeImageSource writes the type and source members of an image block
// from an image_url value ({"url":..., "detail":...} or a bare URL).
// detail has no Anthropic counterpart and is not sent.
func writeImageSource(w *jsonOut, img gjson.Result, param jpath) error {
	url := img
	if img.IsObject() {
		var err error
		img.ForEach(func(k, _ gjson.Result) bool {
			if k.Str != "url" && k.Str != "detail" {
				err = unknownField(param.key(k.Str))
			}
			return err == nil
		})
		if err != nil {
			return err
		}
		url = img.Get("url")
		param = param.key("url")
	}
	if url.Type != gjson.String {
		return invalidParam(param, "an image URL string")
	}
	w.keyStr("type", "image")
	w.key("source")
	w.obj()
	if media, data, ok := splitDataURL(url.Str); ok {
		if !anthropicImageTypes[media] {
			return cannotExpress(param, toAnthropic, "image type "+strconv.Quote(media)+
				" is not accepted; use JPEG, PNG, GIF or WebP")
		}
		w.keyStr("type", "base64")
		w.keyStr("media_type", media)
		w.keyStr("data", data)
	} else if strings.HasPrefix(url.Str, "https://") || strings.HasPrefix(url.Str, "http://") {
		w.keyStr("type", "url")
		w.key("url")
		w.rawStr(url)
	} else {
		return invalidParam(param, "an http(s) URL or a base64 data: URL")
	}
	w.endObj()
	return nil
}

// writeDocument writes a document block from a chat file part. Only inline
// PDF and plain-text files can be expressed.
func writeDocument(w *jsonOut, file gjson.Result, param jpath) error {
	if !file.IsObject() {
		return invalidParam(param, "an object")
	}
	var err error
	file.ForEach(func(k, _ gjson.Result) bool {
		switch k.Str {
		case "file_data", "filename":
		case "file_id":
			err = cannotExpress(param.key("file_id"), toAnthropic, "OpenAI file ids do not exist there; send file_data")
		default:
			err = unknownField(param.key(k.Str))
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	data := file.Get("file_data")
	media, b64, ok := splitDataURL(data.Str)
	if !ok {
		return invalidParam(param.key("file_data"), "a base64 data: URL")
	}
	w.keyStr("type", "document")
	w.key("source")
	w.obj()
	switch media {
	case "application/pdf":
		w.keyStr("type", "base64")
		w.keyStr("media_type", media)
		w.keyStr("data", b64)
	case "text/plain":
		text, derr := base64.StdEncoding.DecodeString(b64)
		if derr != nil {
			return invalidParam(param.key("file_data"), "valid base64")
		}
		w.keyStr("type", "text")
		w.keyStr("media_type", media)
		w.key("data")
		w.strBytes(text)
	default:
		return cannotExpress(param.key("file_data"), toAnthropic,
			"only PDF and plain-text files can be sent, not "+strconv.Quote(media))
	}
	w.endObj()
	if name := file.Get("filename"); name.Type == gjson.String && name.Str != "" {
		w.key("title")
		w.rawStr(name)
	}
	return nil
}
