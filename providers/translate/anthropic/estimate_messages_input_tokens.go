package anthropic

import (
	"bytes"
	"encoding/base64"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/providers/translate"
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
// parsed.
func estimateInputTokens(root gjson.Result) (int64, error) {
	msgs := root.Get("messages")
	if !msgs.IsArray() {
		return 0, translate.Invalid(translate.Param("messages"), "an array of messages")
	}
	var e tokenEstimate
	e.tokens = estRequestOverhead
	e.content(root.Get("system"))
	msgs.ForEach(func(_, m gjson.Result) bool {
		e.tokens += estMessageOverhead
		e.content(m.Get("content"))
		return true
	})
	if tools := root.Get("tools"); tools.IsArray() && translate.HasElements(tools) {
		e.tokens += estToolsOverhead
		tools.ForEach(func(_, t gjson.Result) bool {
			e.text(t.Get("name").Str)
			e.text(t.Get("description").Str)
			e.text(translate.CompactJSON(t.Get("input_schema").Raw))
			return true
		})
	}
	return e.tokens + (e.textBytes+estBytesPerToken-1)/estBytesPerToken, nil
}

type tokenEstimate struct {
	tokens, textBytes int64
}

func (e *tokenEstimate) text(s string) { e.textBytes += int64(len(s)) }

// content counts a content value: a string or an array of blocks.
func (e *tokenEstimate) content(c gjson.Result) {
	if c.Type == gjson.String {
		e.text(c.Str)
		return
	}
	c.ForEach(func(_, b gjson.Result) bool {
		e.block(b)
		return true
	})
}

func (e *tokenEstimate) block(b gjson.Result) {
	switch b.Get("type").Str {
	case "text":
		e.text(b.Get("text").Str)
	case "thinking":
		e.text(b.Get("thinking").Str)
	case "image":
		e.tokens += estImageTokens
	case "tool_use", "server_tool_use":
		e.text(b.Get("name").Str)
		e.text(translate.CompactJSON(b.Get("input").Raw))
	case "tool_result":
		e.content(b.Get("content"))
	case "document":
		e.document(b)
	default:
		// Other blocks (redacted thinking, search results): their text.
		e.text(b.Get("text").Str)
	}
}

func (e *tokenEstimate) document(b gjson.Result) {
	e.text(b.Get("title").Str)
	e.text(b.Get("context").Str)
	src := b.Get("source")
	switch src.Get("type").Str {
	case "text":
		e.text(src.Get("data").Str)
	case "content":
		e.content(src.Get("content"))
	case "base64":
		data := src.Get("data").Str
		if src.Get("media_type").Str != "application/pdf" {
			e.textBytes += int64(base64.StdEncoding.DecodedLen(len(data)))
			return
		}
		pdf, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			e.tokens += estPDFPageTokens
			return
		}
		e.tokens += int64(max(1, pdfPages(pdf))) * estPDFPageTokens
	default: // url or file: the size is unknown; guess one page
		e.tokens += estPDFPageTokens
	}
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
