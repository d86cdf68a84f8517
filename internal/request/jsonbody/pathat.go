package jsonbody

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// pathAt returns the JSON path, as the client wrote it, of the value of
// data that encoding/json stopped in when it reported an error at byte
// offset off (UnmarshalTypeError.Offset): members by name, array
// elements by index, as in "targets[1].weight". It is "" when data holds
// no value there, so the caller can fall back to the error's own field
// names, which have no indexes.
func pathAt(data []byte, off int64) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	// One level per open object or array: the member being read (name)
	// or the element's index.
	type level struct {
		array   bool
		name    string
		index   int
		needKey bool
	}
	var stack []level
	path := func() string {
		var sb strings.Builder
		for _, l := range stack {
			if l.array {
				sb.WriteString("[" + strconv.Itoa(l.index) + "]")
				continue
			}
			if sb.Len() > 0 {
				sb.WriteByte('.')
			}
			sb.WriteString(l.name)
		}
		return sb.String()
	}
	// valueDone moves the innermost level past the value just read.
	valueDone := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].array {
				stack[n-1].index++
			} else {
				stack[n-1].needKey = true
			}
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		if n := len(stack); n > 0 && !stack[n-1].array && stack[n-1].needKey {
			if name, ok := tok.(string); ok {
				stack[n-1].name, stack[n-1].needKey = name, false
				continue
			}
		}
		end := dec.InputOffset()
		switch tok {
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
			continue
		}
		// tok is a value: a scalar, or the opening of an object or array.
		if end >= off {
			return path()
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, level{needKey: true})
		case json.Delim('['):
			stack = append(stack, level{array: true})
		default:
			valueDone()
		}
	}
}
