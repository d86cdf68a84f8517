package providers

import (
	"context"
	"errors"
	"io"
	"net"
)

// DialUpstream returns a dial function for an upstream transport
// (http.Transport.DialContext) whose connections send a request body
// held in memory straight from that memory.
//
// net/http writes a request body of known length through an
// io.LimitedReader, which hides the body's own WriteTo; the connection's
// ReadFrom then copies it through a fresh 32 KiB buffer, one write call
// per buffer. A connection dialled here writes such a body with the
// body's WriteTo instead: a single write of the remaining bytes for a
// bytes.Reader, one vectored write for a multi-part body (partsBody).
// Over TLS the transport writes through the TLS connection, and nothing
// changes.
func DialUpstream(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &upstreamConn{Conn: c}, nil
	}
}

// upstreamConn is a connection dialled by DialUpstream.
type upstreamConn struct {
	net.Conn
}

// ReadFrom writes r to the connection: a request body of known length
// held in memory (an io.LimitedReader over an io.WriterTo) with the
// body's WriteTo, never more than the limit; anything else as the
// underlying connection copies it.
func (c *upstreamConn) ReadFrom(r io.Reader) (int64, error) {
	if lr, ok := r.(*io.LimitedReader); ok {
		switch src := lr.R.(type) {
		case *partsBody:
			if int64(src.Len()) <= lr.N {
				n, err := src.WriteTo(c.Conn)
				lr.N -= n
				return n, err
			}
		case io.WriterTo:
			lw := &limitedWriter{w: c.Conn, left: lr.N}
			n, err := src.WriteTo(lw)
			lr.N -= n
			return n, err
		}
	}
	return io.Copy(c.Conn, r)
}

// CloseWrite shuts down the writing side of the connection (a request
// upgraded to another protocol closes it to end its half).
func (c *upstreamConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}

// errBodyOverLength: a request body held more bytes than its declared
// length. The transport sets the limit from the body's own length, so
// this means a body changed after the request was made; the excess is
// never written.
var errBodyOverLength = errors.New("request body longer than its Content-Length")

// limitedWriter passes at most left bytes on to w.
type limitedWriter struct {
	w    io.Writer
	left int64
}

// Write implements io.Writer.
func (l *limitedWriter) Write(p []byte) (int, error) {
	over := int64(len(p)) > l.left
	if over {
		p = p[:l.left]
	}
	n, err := l.w.Write(p)
	l.left -= int64(n)
	if err == nil && over {
		err = errBodyOverLength
	}
	return n, err
}
