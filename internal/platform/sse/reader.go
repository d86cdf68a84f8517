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
