package boltstore

import (
	"slices"

	"go.etcd.io/bbolt"

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
