package boltstore

import (
	"bytes"
	"encoding/binary"
	"slices"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// Body chunks. The writer packs the bodies records of a batch's entries
// (see appendBodies) into chunks of about chunkTarget bytes, each stored
// in bucketBodyChunks under the largest id among its entries; a binary
// head points to its record by chunk key, offset and length. One large
// value per chunk, rather than one or two per entry, is one contiguous
// run of pages that bbolt writes with a single call. Retention deletes
// the oldest entries first, so once every entry up to a chunk's key is
// gone, the chunk is unreferenced and goes too.
const chunkTarget = 64 << 10

// flushEntries writes the batch's entries: bodies chunks, heads and
// postings.
func (a *batchAggs) flushEntries(tx *bbolt.Tx) error {
	if len(a.entries) == 0 {
		return nil
	}
	heads, err := bucket(tx, bucketEntries)
	if err != nil {
		return err
	}
	heads.FillPercent = appendFill
	if err := a.writeChunks(tx); err != nil {
		return err
	}
	for i, w := range a.entries {
		store.Yield(i)
		if err := heads.Put(w.id[:], w.head); err != nil {
			return err
		}
	}
	return a.writePostings(tx)
}

// writeChunks stores the batch's body chunks: the ones sealed as its
// entries were taken (see bodyPacker) and the open one, sealed now.
func (a *batchAggs) writeChunks(tx *bbolt.Tx) error {
	a.pack.seal()
	if len(a.pack.sealed) == 0 {
		return nil
	}
	chunks, err := bucket(tx, bucketBodyChunks)
	if err != nil {
		return err
	}
	chunks.FillPercent = appendFill
	for i := range a.pack.sealed {
		c := &a.pack.sealed[i]
		if err := chunks.Put(c.key[:], c.value); err != nil {
			return err
		}
	}
	return nil
}

// writePostings groups the batch's entries by index term and slot and
// stores one posting per group, without allocating per entry: a first
// pass finds each term's posting and counts its entries, a second places
// the ids of each posting side by side.
func (a *batchAggs) writePostings(tx *bbolt.Tx) error {
	idx, err := bucket(tx, bucketIndex)
	if err != nil {
		return err
	}
	a.termPost = a.termPost[:0]
	for _, w := range a.entries {
		for _, t := range w.terms {
			i, ok := a.postIdx[aliasString(t)]
			if !ok {
				i = int32(len(a.posts))
				a.posts = append(a.posts, posting{key: t})
				a.postIdx[aliasString(t)] = i
			}
			a.posts[i].n++
			a.termPost = append(a.termPost, i)
		}
	}
	off := 0
	for i := range a.posts {
		p := &a.posts[i]
		p.off, off, p.n = off, off+p.n, 0
	}
	a.postIDs = slices.Grow(a.postIDs[:0], off)[:off]
	j := 0
	for _, w := range a.entries {
		for range w.terms {
			p := &a.posts[a.termPost[j]]
			a.postIDs[p.off+p.n] = w.id
			p.n++
			j++
		}
	}
	seq, err := idx.NextSequence()
	if err != nil {
		return err
	}
	for i := range a.posts {
		p := &a.posts[i]
		if err := putPosting(idx, &a.arena, p.key, a.postIDs[p.off:p.off+p.n], seq); err != nil {
			return err
		}
	}
	return nil
}

// Postings. bucketIndex maps each indexed term of an entry (a field and
// its value: idxPrefix) to the entries carrying it. A key is the term,
// then 16 bytes; its value is either
//
//   - empty: the 16 bytes are the id of the one entry the key names
//     (written by earlier versions, one key per entry and term), or
//   - a posting: the ids of one batch's entries with that term made in
//     the same slot (the first slotLen bytes of an id: 256 ms), 16 bytes
//     each in ascending order; the key's 16 bytes are the slot, the
//     batch's sequence number (8 bytes big-endian, unique in the store:
//     bbolt's sequence of bucketIndex) and postingMark.
//
// The writer adds one posting per term and slot for each batch, instead
// of one key per entry and term. Postings of the same term and slot may
// come from several batches (an entry is written when its request ends,
// so an old id can arrive in a later batch, and an entry written twice
// is in two postings), so a reader merges the keys of a slot, which are
// adjacent, and orders the ids itself; slots follow each other in key
// order.
const slotLen = 5

// postingMark ends the key of a posting.
var postingMark = [16 - slotLen - 8]byte{0xFF, 0xFF, 0xFF}

// postingIDs appends the ids of one index key to ids.
func postingIDs(ids []audit.ID, prefixLen int, k, v []byte) []audit.ID {
	if len(v) == 0 {
		if len(k) == prefixLen+16 {
			ids = append(ids, audit.ID(k[prefixLen:]))
		}
		return ids
	}
	for ; len(v) >= 16; v = v[16:] {
		ids = append(ids, audit.ID(v[:16]))
	}
	return ids
}

// compareIDs orders ids as bytes.
func compareIDs(a, b audit.ID) int { return bytes.Compare(a[:], b[:]) }

// walkPostings calls fn with every id of term prefix in [lo, hi) (nil: open
// bounds), newest first when desc is set and oldest first otherwise,
// until fn returns false.
func walkPostings(c *bbolt.Cursor, prefix, lo, hi []byte, desc bool, fn func(id []byte) bool) {
	pl := len(prefix)
	var k, v []byte
	if desc {
		// Start at the last key of hi's slot (or of the term).
		var upper []byte
		if hi != nil {
			upper = successor(append(bytes.Clone(prefix), hi[:slotLen]...))
		} else {
			upper = successor(prefix)
		}
		if upper == nil {
			k, v = c.Last()
		} else if k, _ = c.Seek(upper); k == nil {
			k, v = c.Last()
		} else {
			k, v = c.Prev()
		}
	} else {
		start := prefix
		if lo != nil {
			start = append(bytes.Clone(prefix), lo[:slotLen]...)
		}
		k, v = c.Seek(start)
	}
	var ids []audit.ID
	for k != nil && bytes.HasPrefix(k, prefix) {
		if len(k) != pl+16 {
			k, v = step(c, desc)
			continue
		}
		// Gather the keys of one slot.
		slot := bytes.Clone(k[pl : pl+slotLen])
		ids = ids[:0]
		n := 0
		for ; k != nil && len(k) == pl+16 && bytes.HasPrefix(k, prefix) && bytes.Equal(k[pl:pl+slotLen], slot); k, v = step(c, desc) {
			ids = postingIDs(ids, pl, k, v)
			n++
		}
		if n > 1 {
			slices.SortFunc(ids, compareIDs)
			ids = slices.Compact(ids)
		}
		if desc {
			for i := len(ids) - 1; i >= 0; i-- {
				id := ids[i][:]
				if hi != nil && bytes.Compare(id, hi) >= 0 {
					continue
				}
				if lo != nil && bytes.Compare(id, lo) < 0 {
					return
				}
				if !fn(id) {
					return
				}
			}
		} else {
			for i := range ids {
				id := ids[i][:]
				if lo != nil && bytes.Compare(id, lo) < 0 {
					continue
				}
				if hi != nil && bytes.Compare(id, hi) >= 0 {
					return
				}
				if !fn(id) {
					return
				}
			}
		}
	}
}

// step moves c one key back (desc) or forward.
func step(c *bbolt.Cursor, desc bool) ([]byte, []byte) {
	if desc {
		return c.Prev()
	}
	return c.Next()
}

// posting is one batch's entries of one term and slot: key is the term
// and the slot (an entry's terms element), and the ids are
// batchAggs.postIDs[off:off+n].
type posting struct {
	key    []byte
	off, n int
}

// putPosting stores ids, the entries of one batch with the term and slot
// termSlot, as the posting of batch seq; the key and value come from sl.
func putPosting(idx *bbolt.Bucket, ar *arena, termSlot []byte, ids []audit.ID, seq uint64) error {
	if !slices.IsSortedFunc(ids, compareIDs) {
		slices.SortFunc(ids, compareIDs)
	}
	ids = slices.Compact(ids) // an entry queued twice in one batch
	key := ar.take(len(termSlot) + 16 - slotLen)
	key = append(key, termSlot...)
	key = binary.BigEndian.AppendUint64(key, seq)
	key = append(key, postingMark[:]...)
	val := ar.take(16 * len(ids))
	for i := range ids {
		val = append(val, ids[i][:]...)
	}
	return idx.Put(key, val)
}

// deleteFromPostings removes the ids up to and including last from the
// keys of term prefix in slot: retention deletes the oldest entries, so
// every id of the slot up to last is gone. Keys left empty are deleted.
func deleteFromPostings(idx *bbolt.Bucket, prefix, slot []byte, last audit.ID) error {
	pl := len(prefix)
	start := append(bytes.Clone(prefix), slot...)
	type change struct {
		key, val []byte
	}
	var changes []change
	c := idx.Cursor()
	var ids []audit.ID
	for k, v := c.Seek(start); k != nil && bytes.HasPrefix(k, start); k, v = c.Next() {
		if len(k) != pl+16 {
			continue
		}
		ids = postingIDs(ids[:0], pl, k, v)
		keep := ids[:0]
		for _, id := range ids {
			if bytes.Compare(id[:], last[:]) > 0 {
				keep = append(keep, id)
			}
		}
		if len(keep) == len(ids) {
			continue
		}
		ch := change{key: bytes.Clone(k)}
		if len(keep) > 0 {
			ch.val = make([]byte, 0, 16*len(keep))
			for i := range keep {
				ch.val = append(ch.val, keep[i][:]...)
			}
		}
		changes = append(changes, ch)
	}
	for _, ch := range changes {
		var err error
		if ch.val == nil {
			err = idx.Delete(ch.key)
		} else {
			err = idx.Put(ch.key, ch.val)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
