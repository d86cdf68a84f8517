package boltstore

import (
	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/storage/records"
)

// bodyPacker packs the bodies of a batch's entries into chunks as the
// writer takes the entries from the queue (store.Write.Take), not when
// the batch commits: each full chunk is sealed (compressed when that
// pays) at once and the bodies as recorded are let go. A batch then holds
// its bodies in the form they are stored in, and the queue's byte budget,
// which cuts a batch once it holds that much, counts those bytes: bodies
// that compress well no longer cut a commit every few entries.
//
// Sealed chunks are kept until the batch is over (BatchDone), so a
// commit that fails writes them again on its next try. It is used only by
// the store's writer goroutine.
type bodyPacker struct {
	// open is the chunk being filled, as packed; members are its entries
	// and newest the largest of their ids, the chunk's key.
	open    []byte
	members []*entryWrite
	newest  audit.ID
	// sealed are the batch's chunks ready to be stored.
	sealed []sealedChunk
	// sealBuf is the buffer chunks are compressed in, reused.
	sealBuf []byte
}

// sealedChunk is one chunk as stored, under its key.
type sealedChunk struct {
	key   audit.ID
	value []byte
}

// take packs w's bodies into the open chunk and seals the chunk once it
// reaches chunkTarget. It returns the change in the bytes the packer
// holds: w's packed bodies, less what sealing saved.
func (p *bodyPacker) take(w *entryWrite) int {
	var none audit.ID
	if w.bodySize == 0 {
		setBodiesRef(w.head, &none, 0, 0)
		return 0
	}
	off := len(p.open)
	p.open = appendBodies(p.open, w)
	// The offset and length wait in the head until the chunk's key is
	// known.
	setBodiesRef(w.head, &none, off, len(p.open)-off)
	w.reqBody, w.respBody, w.attempts, w.revisions = nil, nil, nil, nil
	p.members = append(p.members, w)
	if compareIDs(w.id, p.newest) > 0 {
		p.newest = w.id
	}
	added := len(p.open) - off
	if len(p.open) >= chunkTarget {
		raw := len(p.open)
		added -= raw - p.seal()
	}
	return added
}

// seal closes the open chunk: it points each member's head to its record
// and keeps the chunk's stored form. It returns the stored form's size.
func (p *bodyPacker) seal() int {
	if len(p.members) == 0 {
		return 0
	}
	for _, w := range p.members {
		off, n := bodiesRefPending(w)
		setBodiesRef(w.head, &p.newest, off, n)
	}
	var v []byte
	v, p.sealBuf = records.Seal(p.sealBuf, p.open)
	p.sealed = append(p.sealed, sealedChunk{key: p.newest, value: v})
	p.dropOpen()
	return len(v)
}

// dropOpen empties the open chunk, keeping its buffer for the next one
// unless an outsized body grew it past maxPackBuf.
func (p *bodyPacker) dropOpen() {
	clear(p.members)
	p.open, p.members, p.newest = p.open[:0], p.members[:0], audit.ID{}
	if cap(p.open) > maxPackBuf {
		p.open = nil
	}
}

// done drops the chunks of a batch that is over. The open chunk is
// empty after a commit (EndBatch sealed it); it is not when the batch was
// given up before EndBatch ran, and its entries went with the batch.
func (p *bodyPacker) done() {
	clear(p.sealed)
	p.sealed = p.sealed[:0]
	p.dropOpen()
}

// bodiesRefPending reads the offset and length take left in w's head.
func bodiesRefPending(w *entryWrite) (off, n int) {
	_, off, n = bodiesRef(w.head)
	return off, n
}

// maxPackBuf is the largest packing buffer kept for later chunks: a
// chunk holds bodies up to chunkTarget and then the one that crosses it,
// so a larger buffer is kept only after an outsized body.
const maxPackBuf = 4 * chunkTarget
