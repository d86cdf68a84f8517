package boltstore

import (
	"encoding/binary"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// arenaBlock is the size of an arena's blocks, and arenaKeep how many of
// them an arena keeps from one batch to the next (4 MiB).
const (
	arenaBlock = 256 << 10
	arenaKeep  = 16
)

// arena hands out byte slices for the keys and values a batch passes to
// bbolt (body chunks among them), carved from blocks that are kept from
// batch to batch: allocating them one by one, or large ones anew, costs
// zeroing, page faults and garbage on every batch. bbolt keeps the values until the transaction ends, so an
// arena is reset only when the next batch begins. A value larger than
// half a block gets a slice of its own.
type arena struct {
	blocks [][]byte
	// cur is the block being carved; blocks before it are full.
	cur int
	// extra is the block carved once every kept block is full; it is
	// not kept.
	extra []byte
}

// reset makes every kept block available again.
func (a *arena) reset() {
	for i := range a.blocks {
		a.blocks[i] = a.blocks[i][:0]
	}
	a.cur, a.extra = 0, nil
}

// take returns an empty slice with room for n bytes.
func (a *arena) take(n int) []byte {
	if n > arenaBlock/2 {
		return make([]byte, 0, n)
	}
	for ; a.cur < len(a.blocks); a.cur++ {
		b := a.blocks[a.cur]
		if cap(b)-len(b) >= n {
			start := len(b)
			a.blocks[a.cur] = b[:start+n]
			return b[start : start : start+n]
		}
	}
	if len(a.blocks) < arenaKeep {
		b := make([]byte, n, arenaBlock)
		a.blocks = append(a.blocks, b) // cur is now this block
		return b[:0:n]
	}
	if cap(a.extra)-len(a.extra) < n {
		a.extra = make([]byte, 0, arenaBlock)
	}
	start := len(a.extra)
	a.extra = a.extra[:start+n]
	return a.extra[start : start : start+n]
}

// recentKey is recentKey carved from the arena.
func (a *arena) recentKey(lastSeen time.Time, sessKey []byte) []byte {
	return appendRecentKey(a.take(8+len(sessKey)), lastSeen, sessKey)
}

// encodeSession encodes a session's totals (not its key), carved from
// the arena.
func (a *arena) encodeSession(t *audit.SessionTotals) []byte {
	n := 1 + 12*10 + 8 + 2
	for _, m := range t.Models {
		n += len(m) + 2
	}
	return appendSession(a.take(n+binary.MaxVarintLen64), t)
}
