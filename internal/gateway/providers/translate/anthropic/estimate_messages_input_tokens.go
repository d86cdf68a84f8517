package anthropic

import (
	"bytes"
	"encoding/base64"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// Constants of EstimateMessagesInputTokens.
const (
	estBytesPerToken   = 4    // UTF-8 bytes per token of text
	estMessageOverhead = 4    // role and turn markers per message
	estRequestOverhead = 3    // start of the prompt
	estToolsOverhead   = 346  // Anthropic's tool-use system prompt
	estImageTokens     = 1600 // an image scaled to Anthropic's ~1.15 megapixel limit
	estPDFPageTokens   = 2000 // text plus page image of one PDF page
)

// EstimateMessagesInputTokens estimates the input tokens of an Anthropic
// Messages request for /v1/messages/count_tokens on models that are not
// Anthropic's. It is an estimate, not a tokenizer:
//
//   - text (system prompt, text blocks, thinking, tool results, tool_use
//     inputs and the tools' names, descriptions and input schemas as JSON)
//     counts one token per 4 bytes of UTF-8, rounded up; that is about
//     right for English and code and counts CJK text at 0.75 tokens a
//     character;
//   - each message adds 4 tokens, the request 3, and declaring tools the
//     346 tokens of Anthropic's tool-use system prompt;
//   - an image counts 1600 tokens (the most Anthropic charges for one);
//   - an inline PDF counts 2000 tokens a page (pages counted in the file),
//     other documents by their text.
//
// An *Error is returned when the body is not a Messages request.
func EstimateMessagesInputTokens(messages []byte) (int64, error) {
	root, err := translate.ParseRequest(messages)
	if err != nil {
		return 0, err
	}
	return estimateInputTokens(root)
}

// estimateInputTokens is EstimateMessagesInputTokens of a request already
// parsed. Each object is read in one pass over its members.
func estimateInputTokens(root gjson.Result) (int64, error) {
	var msgs, system, tools gjson.Result
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "messages":
			msgs = v
		case "system":
			system = v
		case "tools":
			tools = v
		}
		return true
	})
	if !msgs.IsArray() {
		return 0, translate.Invalid(translate.Param("messages"), "an array of messages")
	}
	var e tokenEstimate
	e.tokens = estRequestOverhead
	e.content(system)
	msgs.ForEach(func(_, m gjson.Result) bool {
		e.tokens += estMessageOverhead
		e.content(member(m, "content"))
		return true
	})
	if tools.IsArray() && translate.HasElements(tools) {
		e.tokens += estToolsOverhead
		tools.ForEach(func(_, t gjson.Result) bool {
			t.ForEach(func(k, v gjson.Result) bool {
				switch k.Str {
				case "name", "description":
					e.str(v)
				case "input_schema":
					e.json(v)
				}
				return true
			})
			return true
		})
	}
	return e.tokens + (e.textBytes+estBytesPerToken-1)/estBytesPerToken, nil
}

// member returns the member k of the object o, found in one pass (Get
// parses the path first).
func member(o gjson.Result, k string) gjson.Result {
	var out gjson.Result
	o.ForEach(func(key, v gjson.Result) bool {
		if key.Str == k {
			out = v
			return false
		}
		return true
	})
	return out
}

type tokenEstimate struct {
	tokens, textBytes int64
}

// str counts the UTF-8 bytes of a JSON string value (nothing for any
// other value) without unescaping it.
func (e *tokenEstimate) str(v gjson.Result) {
	if v.Type == gjson.String {
		e.textBytes += int64(unescapedLen(v.Raw))
	}
}

// json counts a JSON value as its compact text (see translate.CompactJSON),
// without building it.
func (e *tokenEstimate) json(v gjson.Result) {
	e.textBytes += int64(compactLen(v.Raw))
}

// content counts a content value: a string or an array of blocks.
func (e *tokenEstimate) content(c gjson.Result) {
	if c.Type == gjson.String {
		e.str(c)
		return
	}
	c.ForEach(func(_, b gjson.Result) bool {
		e.block(b)
		return true
	})
}

// estBlock holds the members of a content block the estimate reads.
type estBlock struct {
	typ, text, thinking, name, input, content gjson.Result
	title, context, source                    gjson.Result
}

func (e *tokenEstimate) block(b gjson.Result) {
	var m estBlock
	b.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			m.typ = v
		case "text":
			m.text = v
		case "thinking":
			m.thinking = v
		case "name":
			m.name = v
		case "input":
			m.input = v
		case "content":
			m.content = v
		case "title":
			m.title = v
		case "context":
			m.context = v
		case "source":
			m.source = v
		}
		return true
	})
	switch m.typ.Str {
	case "text":
		e.str(m.text)
	case "thinking":
		e.str(m.thinking)
	case "image":
		e.tokens += estImageTokens
	case "tool_use", "server_tool_use":
		e.str(m.name)
		e.json(m.input)
	case "tool_result":
		e.content(m.content)
	case "document":
		e.document(&m)
	default:
		// Other blocks (redacted thinking, search results): their text.
		e.str(m.text)
	}
}

func (e *tokenEstimate) document(b *estBlock) {
	e.str(b.title)
	e.str(b.context)
	var typ, data, media, content gjson.Result
	b.source.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			typ = v
		case "data":
			data = v
		case "media_type":
			media = v
		case "content":
			content = v
		}
		return true
	})
	switch typ.Str {
	case "text":
		e.str(data)
	case "content":
		e.content(content)
	case "base64":
		if media.Str != "application/pdf" {
			e.textBytes += int64(base64.StdEncoding.DecodedLen(len(data.Str)))
			return
		}
		pdf, err := base64.StdEncoding.DecodeString(data.Str)
		if err != nil {
			e.tokens += estPDFPageTokens
			return
		}
		e.tokens += int64(max(1, pdfPages(pdf))) * estPDFPageTokens
	default: // url or file: the size is unknown; guess one page
		e.tokens += estPDFPageTokens
	}
}

// unescapedLen is the length in bytes of the string a JSON string literal
// raw (quotes included) stands for: what gjson's Str would hold, counted
// without building it. Escapes of UTF-16 code units count as the UTF-8
// encoding of their rune (a surrogate pair as one rune), an invalid one as
// U+FFFD.
func unescapedLen(raw string) int {
	if len(raw) < 2 {
		return 0
	}
	raw = raw[1 : len(raw)-1]
	if strings.IndexByte(raw, '\\') < 0 {
		return len(raw)
	}
	n := 0
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			n++
			continue
		}
		i++
		if raw[i] != 'u' {
			n++
			continue
		}
		r, ok := hexRune(raw[i+1:])
		if !ok {
			return n
		}
		i += 4
		if utf16.IsSurrogate(r) && i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
			if r2, ok := hexRune(raw[i+3:]); ok {
				r = utf16.DecodeRune(r, r2)
				i += 6
			}
		}
		if l := utf8.RuneLen(r); l > 0 {
			n += l
		} else {
			n += utf8.RuneLen(utf8.RuneError)
		}
	}
	return n
}

// hexRune reads the four hex digits at the start of s.
func hexRune(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[:4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// compactLen is the length of the JSON text raw without insignificant
// whitespace: len(translate.CompactJSON(raw)).
func compactLen(raw string) int {
	n, inStr := 0, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inStr {
			switch c {
			case '\\':
				if i+1 < len(raw) {
					n += 2
					i++
					continue
				}
			case '"':
				inStr = false
			}
		} else {
			switch c {
			case '"':
				inStr = true
			case ' ', '\t', '\n', '\r':
				continue
			}
		}
		n++
	}
	return n
}

// pdfPages counts the page objects ("/Type /Page", not "/Pages") in a PDF.
func pdfPages(pdf []byte) int {
	n := 0
	for {
		i := bytes.Index(pdf, []byte("/Type"))
		if i < 0 {
			return n
		}
		pdf = pdf[i+len("/Type"):]
		rest := bytes.TrimLeft(pdf, " \r\n\t")
		if bytes.HasPrefix(rest, []byte("/Page")) && !bytes.HasPrefix(rest, []byte("/Pages")) {
			n++
		}
	}
}
