package proxy

import (
	"io"
	"sync"
)

// clientBody passes a client's request body, streamed, on to an upstream
// call and keeps the first error reading it met, so that a call that
// failed because of the client's body is answered for that (too long, not
// sent in time) rather than as an upstream failure. The upstream's
// transport reads it on a goroutine of its own.
type clientBody struct {
	r   io.Reader
	mu  sync.Mutex
	err error
}

// Read implements io.Reader.
func (b *clientBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		b.mu.Lock()
		if b.err == nil {
			b.err = err
		}
		b.mu.Unlock()
	}
	return n, err
}

// failure returns the first error reading the body met, or nil; nil for a
// nil b.
func (b *clientBody) failure() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}
