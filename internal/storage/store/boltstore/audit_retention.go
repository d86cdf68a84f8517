package boltstore

import (
	"bytes"
	"time"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// DeleteEntriesBefore deletes up to max of the oldest entries made before
// cutoff, with their bodies, metas and index postings, in one transaction,
// and returns how many it deleted. Hour rows of hours that end at or
// before cutoff are deleted too; a caller that wants list totals and
// statistics to match the remaining entries exactly uses a whole-hour
// cutoff. bbolt reuses the pages freed, so the file stops growing once
// retention keeps pace with traffic.
//
// The entries deleted are always the oldest ones, so every id up to the
// last one deleted is gone: postings lose those ids, and body chunks whose
// newest entry is among them are deleted whole.
func (a *Audit) DeleteEntriesBefore(cutoff time.Time, max int) (int, error) {
	n := 0
	err := a.s.Update(func(tx *bbolt.Tx) error {
		metas, ok := newMetaReader(tx)
		if ok && max > 0 {
			var err error
			if n, err = deleteOldestEntries(tx, metas, audit.MinID(cutoff), max); err != nil {
				return err
			}
		}
		return deleteBefore(tx.Bucket(bucketAuditHours), timeKey(cutoff.Truncate(time.Hour)), 0)
	})
	return n, err
}

// deleteOldestEntries deletes up to max of the oldest entries whose id
// sorts before hi, with everything stored for them.
func deleteOldestEntries(tx *bbolt.Tx, metas metaReader, hi audit.ID, max int) (int, error) {
	type victim struct {
		id    []byte
		terms [][]byte
	}
	var vs []victim
	c := metas.entries.Cursor()
	for k, v := c.First(); k != nil && len(vs) < max && bytes.Compare(k, hi[:]) < 0; k, v = c.Next() {
		m, err := metas.metaOf(k, v)
		if err != nil {
			return 0, err
		}
		vs = append(vs, victim{id: bytes.Clone(k), terms: m.terms(k)})
	}
	if len(vs) == 0 {
		return 0, nil
	}
	bodies, reqBodies := tx.Bucket(bucketBodies), tx.Bucket(bucketRequestBodies)
	for _, v := range vs {
		for _, b := range []*bbolt.Bucket{metas.metas, metas.entries, bodies, reqBodies} {
			if b != nil {
				if err := b.Delete(v.id); err != nil {
					return 0, err
				}
			}
		}
	}
	last := audit.ID(vs[len(vs)-1].id)
	if idx := tx.Bucket(bucketIndex); idx != nil {
		done := map[string]bool{}
		for _, v := range vs {
			for _, t := range v.terms {
				if done[string(t)] {
					continue
				}
				done[string(t)] = true
				pl := len(t) - slotLen
				if err := deleteFromPostings(idx, t[:pl], t[pl:], last); err != nil {
					return 0, err
				}
			}
		}
	}
	// Chunks are keyed by their newest entry: those up to last are
	// unreferenced.
	if err := deleteBefore(tx.Bucket(bucketBodyChunks), append(last[:], 0), 0); err != nil {
		return 0, err
	}
	return len(vs), nil
}

// deleteBefore deletes the keys of b that sort before hi, at most max of
// them when max > 0, and returns how many went. A nil b is empty.
func deleteBefore(b *bbolt.Bucket, hi []byte, max int) error {
	if b == nil {
		return nil
	}
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.First(); k != nil && bytes.Compare(k, hi) < 0 && (max <= 0 || len(keys) < max); k, _ = c.Next() {
		keys = append(keys, bytes.Clone(k))
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}
