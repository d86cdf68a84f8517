package cache

import "encoding/binary"

// decoder reads stored entry bytes front to back; the first failure
// sticks, and every later read returns a zero value.
type decoder struct {
	b   []byte
	err error
}

// varint reads a signed varint.
func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = ErrMalformed
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a count of items that take at least size bytes each, so a
// damaged count cannot ask for more items than the bytes left hold.
func (d *decoder) count(size int) int {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > uint64((len(d.b)-n)/size) {
		d.err = ErrMalformed
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

// bytes reads a uvarint length and that many bytes, aliasing the input.
func (d *decoder) bytes() []byte {
	l := d.count(1)
	if d.err != nil {
		return nil
	}
	out := d.b[:l:l]
	d.b = d.b[l:]
	return out
}

// str reads a string written as its uvarint length and bytes.
func (d *decoder) str() string { return string(d.bytes()) }

// byte1 reads one byte.
func (d *decoder) byte1() byte {
	if d.err != nil || len(d.b) == 0 {
		d.err = ErrMalformed
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}
