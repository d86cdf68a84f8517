package translate

import (
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/platform/sse"
)

// Chain returns a Stream that runs two converters in a row: each event
// first produces is fed to second as a value, taken from first's
// EventWriter, so the events between them are never read back from text.
// Usage is second's when it has any, else first's.
func Chain(first Source, second Stream) Stream {
	first.Output().Keep()
	return &chain{first: first, second: second}
}

// chain is the Stream Chain returns.
type chain struct {
	first  Source
	second Stream
	out    []byte
}

// Feed implements Stream.
func (c *chain) Feed(ev sse.Event) ([]byte, error) {
	_, err := c.first.Feed(ev)
	out, err2 := c.pipe()
	if err == nil {
		err = err2
	}
	return out, err
}

// Finish implements Stream.
func (c *chain) Finish() []byte {
	c.first.Finish()
	out, _ := c.pipe()
	c.out = append(out, c.second.Finish()...)
	return c.out
}

// Abort implements Stream: the client's shape is second's, so second
// writes the error event.
func (c *chain) Abort(code, message string) []byte {
	return c.second.Abort(code, message)
}

// Usage implements Stream.
func (c *chain) Usage() (catalog.Usage, bool) {
	if u, ok := c.second.Usage(); ok {
		return u, ok
	}
	return c.first.Usage()
}

// pipe feeds the events first just wrote to second and collects what
// second writes.
func (c *chain) pipe() ([]byte, error) {
	c.out = c.out[:0]
	var err error
	c.first.Output().Events(func(ev sse.Event) bool {
		var b []byte
		b, err = c.second.Feed(ev)
		c.out = append(c.out, b...)
		return err == nil
	})
	return c.out, err
}
