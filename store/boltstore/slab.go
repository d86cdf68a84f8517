package boltstore

import (
	"encoding/binary"
	"time"

	"github.com/modelgate/modelgate/audit"
)

// slabSize is the size of the slab's blocks.
const slabSize = 64 << 10

// slab hands out byte slices for the keys and values a batch passes to
// bbolt, carved from large blocks instead of allocated one by one. bbolt
// keeps the values it is given until the transaction ends, so a slab is
// reset only when the next batch begins; blocks that filled up are
// dropped then, the last one is reused.
type slab struct {
	block []byte
}

// reset makes the slab's current block available again.
func (s *slab) reset() { s.block = s.block[:0] }

// take returns an empty slice with room for n bytes.
func (s *slab) take(n int) []byte {
	if n > slabSize/4 {
		return make([]byte, 0, n)
	}
	if cap(s.block)-len(s.block) < n {
		s.block = make([]byte, 0, slabSize)
	}
	start := len(s.block)
	s.block = s.block[:start+n]
	return s.block[start : start : start+n]
}

// recentKey is recentKey carved from the slab.
func (s *slab) recentKey(lastSeen time.Time, sessKey []byte) []byte {
	return appendRecentKey(s.take(8+len(sessKey)), lastSeen, sessKey)
}

// encodeSession is encodeSession carved from the slab.
func (s *slab) encodeSession(t *audit.SessionTotals) []byte {
	n := 1 + 12*10 + 8 + 2
	for _, m := range t.Models {
		n += len(m) + 2
	}
	return appendSession(s.take(n+binary.MaxVarintLen64), t)
}
