package sse

import (
	"bytes"
)

// Event is one server-sent event. Name is the value of its event: line (""
// when it had none) and Data the payload of its data: line(s), without the
// "data: " prefix, lines joined by "\n".
type Event struct {
	Name string
	Data []byte
}

// Parse reads the name and data of one raw server-sent event (its lines
// up to the blank line that ends it). Lines end at "\n", a carriage return
// before it dropped. The name is the event: line's value, spaces trimmed;
// each data: line loses one space after the colon. Data points into raw;
// when the event has several data lines, they are joined in place, over
// raw's own bytes. An event without data (a comment, a blank line)
// reports false; a data: line with nothing after it is data, empty.
func Parse(raw []byte) (Event, bool) {
	var ev Event
	var data []byte
	hasData := false
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		switch {
		case bytes.HasPrefix(line, []byte("event:")):
			ev.Name = string(bytes.TrimSpace(line[6:]))
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(line[5:], []byte{' '})
			if hasData {
				data = append(append(data, '\n'), d...)
			} else {
				data, hasData = d, true
			}
		}
	}
	ev.Data = data
	return ev, hasData
}

// Split splits a whole server-sent-event stream into its events (see
// Parse), leaving out those without data. "\r\n" counts as "\n" and
// events end at "\n\n". The events point into a copy of stream.
func Split(stream []byte) []Event {
	stream = bytes.ReplaceAll(stream, []byte("\r\n"), []byte("\n"))
	var out []Event
	for _, raw := range bytes.Split(stream, []byte("\n\n")) {
		if ev, ok := Parse(raw); ok {
			out = append(out, ev)
		}
	}
	return out
}

// EachData calls fn with the data of every event of a whole stream, its
// data lines joined by newlines, skipping events whose data is empty or
// [DONE]. A blank line ("\n" or "\r\n") ends an event; each data: line
// loses one space after the colon, and empty data lines ahead of the
// event's first non-empty one are dropped. The data of an event of one
// data line (as every provider sends them) is a slice of stream; several
// lines are joined into a buffer of the event's own. Either way fn may
// keep it while stream lives: EachData never writes to it.
func EachData(stream []byte, fn func(data []byte)) {
	var data []byte
	joined := false
	emit := func() {
		if len(data) > 0 && string(data) != "[DONE]" {
			fn(data)
		}
		data, joined = nil, false
	}
	for len(stream) > 0 {
		line := stream
		if i := bytes.IndexByte(stream, '\n'); i >= 0 {
			line, stream = stream[:i], stream[i+1:]
		} else {
			stream = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			emit()
			continue
		}
		v, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		v = bytes.TrimPrefix(v, []byte(" "))
		switch {
		case len(data) == 0:
			data = v
		case !joined:
			data = append(append(append(make([]byte, 0, 2*(len(data)+len(v))), data...), '\n'), v...)
			joined = true
		default:
			data = append(append(data, '\n'), v...)
		}
	}
	emit()
}
