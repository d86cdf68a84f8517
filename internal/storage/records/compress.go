package records

import (
	"errors"
	"fmt"

	"github.com/klauspost/compress/s2"
)

// Bodies are stored compressed when that pays. A compressed value starts
// with Compressed, followed by the value in the S2 block format; any other
// first byte is a value stored as it is (each engine's own formats start
// with a version byte other than Compressed). Request bodies repeat
// themselves (a conversation resends its history with every turn, JSON
// repeats its keys), so compression divides the bytes written, kept in
// memory until the commit, sent to a database server, and stored. It costs
// the writer about a microsecond per 10 KiB of text as repetitive as JSON
// keys, and about 60 µs per 64 KiB of prose or code, which shrinks by
// about half. A value that compression would not shrink by at least an
// eighth is stored as it is.
const Compressed byte = 's'

// ErrCorrupt is returned by Open for a compressed value that does not
// decompress.
var ErrCorrupt = errors.New("corrupt compressed value")

// Seal returns the value stored for raw, a slice of its own: compressed
// when that pays. scratch is a reusable buffer for the compressed form;
// Seal returns it, grown if needed, for the next call.
func Seal(scratch, raw []byte) (value, scratchOut []byte) {
	if need := s2.MaxEncodedLen(len(raw)); need > 0 && cap(scratch) < need {
		scratch = make([]byte, need)
	}
	enc := s2.Encode(scratch[:cap(scratch)], raw)
	if len(enc)+1 > len(raw)-len(raw)/8 {
		return append(make([]byte, 0, len(raw)), raw...), scratch
	}
	v := append(make([]byte, 0, len(enc)+1), Compressed)
	return append(v, enc...), scratch
}

// Open returns the value as written to Seal: v itself, or its decompressed
// copy.
func Open(v []byte) ([]byte, error) {
	if len(v) == 0 || v[0] != Compressed {
		return v, nil
	}
	raw, err := s2.Decode(nil, v[1:])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return raw, nil
}
