package proxy

import (
	"bytes"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/apierr"
)

// requestFields are the raw JSON values of the top-level members the proxy
// acts on; a nil slice means the member is absent.
type requestFields struct {
	model         []byte
	stream        []byte
	streamOptions []byte
	maxTokens     []byte
}

// scanFields walks the top level of a JSON object once, skipping nested
// values without parsing them, and returns the members the proxy acts on.
//
// A body that repeats one of them is refused (400, code duplicate_field):
// the gateway would route, limit and charge by one occurrence while the
// upstream, like most JSON parsers, executes the last one. Keys are
// compared after unescaping, as a parser reads them ("mod\u0065l" is
// "model"). A top level that is not a well-formed object (nested values
// are only checked for balanced brackets and closed strings) is refused as
// invalid JSON. It allocates nothing unless a key carries an escape.
func scanFields(body []byte) (requestFields, error) {
	var f requestFields
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return f, notAnObject()
	}
	i = skipSpace(body, i+1)
	if i < len(body) && body[i] == '}' {
		return f, endOfObject(body, i+1)
	}
	for {
		if i >= len(body) || body[i] != '"' {
			return f, malformed()
		}
		end := stringEnd(body, i)
		if end < 0 {
			return f, malformed()
		}
		key := body[i:end]
		i = skipSpace(body, end)
		if i >= len(body) || body[i] != ':' {
			return f, malformed()
		}
		start := skipSpace(body, i+1)
		if i = valueEnd(body, start); i < 0 {
			return f, malformed()
		}
		if slot, name := f.slot(key); slot != nil {
			if *slot != nil {
				return f, apierr.InvalidRequest("the request body repeats the top-level field \"" + name +
					"\"; send it once").WithParam(name).WithCode("duplicate_field")
			}
			*slot = body[start:i]
		}
		i = skipSpace(body, i)
		if i >= len(body) {
			return f, malformed()
		}
		switch body[i] {
		case ',':
			i = skipSpace(body, i+1)
		case '}':
			return f, endOfObject(body, i+1)
		default:
			return f, malformed()
		}
	}
}

// slot returns where the value of the quoted key goes and the field's
// name, or nil for a member the proxy does not act on.
func (f *requestFields) slot(quoted []byte) (*[]byte, string) {
	key := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(key, '\\') >= 0 {
		key = []byte(gjson.ParseBytes(quoted).Str)
	}
	switch string(key) {
	case "model":
		return &f.model, "model"
	case "stream":
		return &f.stream, "stream"
	case "stream_options":
		return &f.streamOptions, "stream_options"
	case "max_tokens":
		return &f.maxTokens, "max_tokens"
	}
	return nil, ""
}

// endOfObject accepts only white space after the top-level object.
func endOfObject(body []byte, i int) error {
	if skipSpace(body, i) != len(body) {
		return malformed()
	}
	return nil
}

func malformed() error {
	return apierr.InvalidRequest("request body is not valid JSON").WithCode("invalid_json")
}

func notAnObject() error {
	return apierr.InvalidRequest("request body must be a JSON object").WithCode("invalid_json")
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
