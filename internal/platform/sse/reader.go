package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
)

// ErrEventTooLarge is what Reader.Next returns when one event exceeds the
// reader's cap.
var ErrEventTooLarge = errors.New("server-sent event exceeds the size cap")

// Reader splits a byte stream into server-sent events, each returned
// with its terminating blank line, byte for byte as received. It is written
// here rather than taken from an SSE library because the gateway must pass
// events on as they came; the libraries parse into fields and re-encode.
// An event ends at its first blank line, "\n" or "\r\n".
type Reader struct {
	r   *bufio.Reader
	buf []byte
	max int // longest event accepted; 0: no limit
}

// readerPool recycles the 16 KiB read buffers of finished streams.
var readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 16<<10) }}

// NewReader returns a reader of the events of r accepting events of up to
// max bytes (0: no limit). Its read buffer comes from a pool; Release
// gives it back.
func NewReader(r io.Reader, max int) *Reader {
	br := readerPool.Get().(*bufio.Reader)
	br.Reset(r)
	return &Reader{r: br, max: max}
}

// Release returns the read buffer to the pool; the reader is unusable
// afterwards.
func (e *Reader) Release() {
	e.r.Reset(nil)
	readerPool.Put(e.r)
	e.r = nil
}

// Next returns the next complete event. At the end of the stream it
// returns whatever was left (possibly an unterminated event) and the error.
// An event longer than the cap ends the stream with ErrEventTooLarge,
// having held at most one read buffer beyond the cap. The returned slice
// is valid until the next call.
func (e *Reader) Next() ([]byte, error) {
	e.buf = e.buf[:0]
	for {
		line, err := e.r.ReadSlice('\n')
		e.buf = append(e.buf, line...)
		if e.max > 0 && len(e.buf) > e.max {
			return nil, ErrEventTooLarge
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return e.buf, err
		}
		if isBlankLine(line) {
			// End of an event (or a stray blank line, passed on as is).
			return e.buf, nil
		}
	}
}

// Pending reports whether a whole event is already buffered, so that Next
// returns it without waiting for the stream. Next ends an event at the
// first blank line, so it looks at the start of each buffered line up to
// the first blank one: it reads only as far as the next event's end.
func (e *Reader) Pending() bool {
	b, _ := e.r.Peek(e.r.Buffered())
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return false
		}
		if isBlankLine(b[:i+1]) {
			return true
		}
		b = b[i+1:]
	}
}

// isBlankLine reports whether line, a line with its "\n", is blank: the
// end of an event.
func isBlankLine(line []byte) bool {
	return len(line) == 1 || (len(line) == 2 && line[0] == '\r')
}

// Buffered returns what the reader has read from its stream but Next has
// not returned yet, without consuming it. The slice is valid until the
// next call of Next.
func (e *Reader) Buffered() []byte {
	b, _ := e.r.Peek(e.r.Buffered())
	return b
}

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
