package sse

import (
	"bytes"
	"strconv"
)

// Append appends one server-sent event to b: an "id:" line, an "event:"
// line, one "data:" line per line of data, and the blank line that ends
// the event. Carriage returns in data end lines as newlines do.
func Append(b []byte, id uint64, event string, data []byte) []byte {
	b = append(b, "id: "...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, "\nevent: "...)
	b = append(b, event...)
	b = append(b, '\n')
	for {
		i := bytes.IndexAny(data, "\r\n")
		line := data
		if i >= 0 {
			line = data[:i]
		}
		b = append(b, "data: "...)
		b = append(b, line...)
		b = append(b, '\n')
		if i < 0 {
			break
		}
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	return append(b, '\n')
}

// AppendStart appends the start of an event of one data line to b: an
// "event: NAME" line (left out when name is "") and "data: ". The caller
// appends the data, which must hold no line break, then AppendEnd.
func AppendStart(b []byte, name string) []byte {
	if name != "" {
		b = append(b, "event: "...)
		b = append(b, name...)
		b = append(b, '\n')
	}
	return append(b, "data: "...)
}

// AppendEnd appends the end of an event AppendStart began: the data
// line's newline and the blank line.
func AppendEnd(b []byte) []byte { return append(b, '\n', '\n') }
