package boltstore

import (
	"fmt"

	"github.com/klauspost/compress/s2"
)

// Body chunks are stored compressed. A chunk as packed (see writeChunks)
// starts with bodiesVersion1, the version byte of its first bodies
// record; a compressed chunk starts with chunkCompressed, followed by the
// packed chunk in the S2 block format. Request bodies repeat themselves
// (a conversation resends its history with every turn, JSON repeats its
// keys), so compression divides the bytes written, kept in memory until
// the commit, and stored. It costs the writer about a microsecond per
// 10 KiB of text as repetitive as JSON keys, and about 60 µs per 64 KiB
// of prose or code, which shrinks by about half. A chunk that compression would not shrink by at least
// an eighth is stored as packed.
const chunkCompressed byte = 's'

// sealChunk returns the value stored for the packed chunk raw, a slice
// of its own: compressed when that pays. scratch is a reusable buffer for
// the compressed form; sealChunk returns it, grown if needed, for the
// next call.
func sealChunk(scratch, raw []byte) (value, scratchOut []byte) {
	if need := s2.MaxEncodedLen(len(raw)); need > 0 && cap(scratch) < need {
		scratch = make([]byte, need)
	}
	enc := s2.Encode(scratch[:cap(scratch)], raw)
	if len(enc)+1 > len(raw)-len(raw)/8 {
		return append(make([]byte, 0, len(raw)), raw...), scratch
	}
	v := append(make([]byte, 0, len(enc)+1), chunkCompressed)
	return append(v, enc...), scratch
}

// openChunk returns the packed form of a stored chunk: v itself, or its
// decompressed copy.
func openChunk(v []byte) ([]byte, error) {
	if len(v) == 0 || v[0] != chunkCompressed {
		return v, nil
	}
	raw, err := s2.Decode(nil, v[1:])
	if err != nil {
		return nil, fmt.Errorf("%w: body chunk: %v", errCorrupt, err)
	}
	return raw, nil
}
