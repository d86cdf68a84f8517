package sse

import "bytes"

// FirstData returns the payload of the first data: line of ev, a raw
// event, and where in ev it starts (0 when there is none): a caller may
// edit the event in place. The line loses one space after the colon and
// a carriage return at its end; later data lines are not looked at.
func FirstData(ev []byte) (data []byte, at int) {
	for off := 0; off < len(ev); {
		line := ev[off:]
		next := len(ev)
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line, next = line[:i], off+i+1
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			if len(rest) > 0 && rest[0] == ' ' {
				return rest[1:], off + len("data: ")
			}
			return rest, off + len("data:")
		}
		off = next
	}
	return nil, 0
}
