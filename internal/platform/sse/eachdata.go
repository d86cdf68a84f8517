package sse

import "bytes"

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
