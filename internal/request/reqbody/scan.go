package reqbody

import (
	"bytes"

	"github.com/tidwall/gjson"
)

// Scan walks the top level of a JSON object once, skipping nested values
// without parsing them, and returns the members the gateway reads.
//
// A body that repeats a member the gateway acts on (model, stream,
// stream_options, max_tokens) is refused (400, code duplicate_field): the
// gateway would route, limit and charge by one occurrence while the
// upstream, like most JSON parsers, executes the last one. Of a repeated
// recorded member the last occurrence is kept, as such a parser reads it.
// Keys are compared after unescaping, as a parser reads them
// ("mod\u0065l" is "model"). A top level that is not a well-formed object
// (nested values are only checked for balanced brackets and closed
// strings) is refused as invalid JSON. It allocates nothing unless a key
// carries an escape.
func Scan(body []byte) (Fields, error) {
	var f Fields
	err := eachMember(body, func(key, val []byte) error {
		slot, name := f.slot(key)
		if slot == nil {
			return nil
		}
		if *slot != nil && acted(name) {
			return &Error{Message: "the request body repeats the top-level field \"" + name +
				"\"; send it once", Param: name, Code: "duplicate_field"}
		}
		*slot = val
		return nil
	})
	return f, err
}

// eachMember calls fn with the quoted key and the raw value of every
// member of the JSON object obj, in order, and stops at fn's first error.
// It fails when obj is not a well-formed object (see Scan).
func eachMember(obj []byte, fn func(quotedKey, val []byte) error) error {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return notAnObject()
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return endOfObject(obj, i+1)
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return malformed()
		}
		end := stringEnd(obj, i)
		if end < 0 {
			return malformed()
		}
		key := obj[i:end]
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return malformed()
		}
		start := skipSpace(obj, i+1)
		if i = valueEnd(obj, start); i < 0 {
			return malformed()
		}
		if err := fn(key, obj[start:i]); err != nil {
			return err
		}
		i = skipSpace(obj, i)
		if i >= len(obj) {
			return malformed()
		}
		switch obj[i] {
		case ',':
			i = skipSpace(obj, i+1)
		case '}':
			return endOfObject(obj, i+1)
		default:
			return malformed()
		}
	}
}

// endOfObject accepts only white space after the top-level object.
func endOfObject(body []byte, i int) error {
	if skipSpace(body, i) != len(body) {
		return malformed()
	}
	return nil
}

// malformed is the error for a body that is not well-formed JSON.
func malformed() error {
	return &Error{Message: "request body is not valid JSON", Code: "invalid_json"}
}

// notAnObject is the error for a body that is JSON but not an object.
func notAnObject() error {
	return &Error{Message: "request body must be a JSON object", Code: "invalid_json"}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the index after the string that opens at b[i] (a
// quote), or -1 when it is not closed.
func stringEnd(b []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		// The quote is escaped when an odd number of backslashes precede it.
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// valueEnd returns the index after the JSON value that starts at b[i], or
// -1 when there is none. Nested objects and arrays are skipped by counting
// brackets outside strings; scalars run to the next delimiter.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = stringEnd(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	case ',', '}', ']', ':':
		return -1
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
		i++
	}
	return i
}

// unquote returns the text of a raw JSON string value, unescaped.
func unquote(raw []byte) string { return gjson.ParseBytes(raw).Str }

// Fields are the raw JSON values of the top-level members of a request
// body that the gateway reads; a nil slice means the member is absent.
// The slices alias the scanned body.
type Fields struct {
	// Model, Stream, StreamOptions and MaxTokens are acted on: a body that
	// repeats one of them is refused.
	Model, Stream, StreamOptions, MaxTokens []byte

	// Temperature, MaxCompletionTokens and MaxOutputTokens are recorded.
	Temperature, MaxCompletionTokens, MaxOutputTokens []byte
	// Metadata, PromptCacheKey and PreviousResponseID carry session hints.
	Metadata, PromptCacheKey, PreviousResponseID []byte
	// System and Instructions are the system prompt (Anthropic Messages and
	// Responses); Messages and Input the conversation (Chat Completions and
	// Messages, Responses).
	System, Instructions, Messages, Input []byte
	// Store is a Responses request's store flag: false keeps the
	// response from being stored.
	Store []byte
}

// acted reports whether a repeated member of this name is refused.
func acted(name string) bool {
	switch name {
	case "model", "stream", "stream_options", "max_tokens":
		return true
	}
	return false
}

// slot returns where the value of the quoted key goes and the member's
// name, or nil for a member the gateway does not read.
func (f *Fields) slot(quoted []byte) (*[]byte, string) {
	switch KeyName(quoted) {
	case "model":
		return &f.Model, "model"
	case "stream":
		return &f.Stream, "stream"
	case "stream_options":
		return &f.StreamOptions, "stream_options"
	case "max_tokens":
		return &f.MaxTokens, "max_tokens"
	case "temperature":
		return &f.Temperature, "temperature"
	case "max_completion_tokens":
		return &f.MaxCompletionTokens, "max_completion_tokens"
	case "max_output_tokens":
		return &f.MaxOutputTokens, "max_output_tokens"
	case "metadata":
		return &f.Metadata, "metadata"
	case "prompt_cache_key":
		return &f.PromptCacheKey, "prompt_cache_key"
	case "previous_response_id":
		return &f.PreviousResponseID, "previous_response_id"
	case "system":
		return &f.System, "system"
	case "instructions":
		return &f.Instructions, "instructions"
	case "messages":
		return &f.Messages, "messages"
	case "input":
		return &f.Input, "input"
	case "store":
		return &f.Store, "store"
	}
	return nil, ""
}
