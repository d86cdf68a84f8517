package providers

import (
	"io"
	"net"
	"slices"
)

// partsBody is a request body given as consecutive parts (slices of the
// client's body around the gateway's edits), sent as they are: neither
// joined nor changed. Written by an upstream connection of DialUpstream,
// it goes out in one vectored write.
type partsBody struct {
	bufs net.Buffers
	left int
}

// newPartsBody returns a body reading parts in order; parts themselves
// are not modified.
func newPartsBody(parts [][]byte) *partsBody {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	return &partsBody{bufs: net.Buffers(slices.Clone(parts)), left: n}
}

// Len is the number of bytes not yet read.
func (b *partsBody) Len() int { return b.left }

// Read implements io.Reader.
func (b *partsBody) Read(p []byte) (int, error) {
	n, err := b.bufs.Read(p)
	b.left -= n
	return n, err
}

// WriteTo implements io.WriterTo: the parts not yet read, in one
// vectored write where w is a network connection.
func (b *partsBody) WriteTo(w io.Writer) (int64, error) {
	n, err := b.bufs.WriteTo(w)
	b.left -= int(n)
	return n, err
}

// Close implements io.Closer; there is nothing to release.
func (b *partsBody) Close() error { return nil }
