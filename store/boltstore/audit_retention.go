package boltstore

import (
	"bytes"
	"time"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/audit"
)

// DeleteEntriesBefore deletes up to max of the oldest entries made before
// cutoff, with their bodies, metas and index keys, in one transaction, and
// returns how many it deleted. Hour rows of hours that end at or before
// cutoff are deleted too; a caller that wants list totals and statistics
// to match the remaining entries exactly uses a whole-hour cutoff. bbolt
// reuses the pages freed, so the file stops growing once retention keeps
// pace with traffic.
func (a *Audit) DeleteEntriesBefore(cutoff time.Time, max int) (int, error) {
	n := 0
	err := a.s.Update(func(tx *bbolt.Tx) error {
		metas := tx.Bucket(bucketMeta)
		if metas != nil && max > 0 {
			hi := audit.MinID(cutoff)
			type victim struct {
				id   []byte
				keys [][]byte
			}
			var vs []victim
			c := metas.Cursor()
			for k, v := c.First(); k != nil && len(vs) < max && bytes.Compare(k, hi[:]) < 0; k, v = c.Next() {
				m, err := decodeMeta(v)
				if err != nil {
					return err
				}
				vs = append(vs, victim{id: bytes.Clone(k), keys: m.indexKeys(audit.ID(k))})
			}
			idx, entries, bodies := tx.Bucket(bucketIndex), tx.Bucket(bucketEntries), tx.Bucket(bucketBodies)
			reqBodies := tx.Bucket(bucketRequestBodies)
			for _, v := range vs {
				for _, b := range []*bbolt.Bucket{metas, entries, bodies, reqBodies} {
					if b != nil {
						if err := b.Delete(v.id); err != nil {
							return err
						}
					}
				}
				if idx != nil {
					for _, k := range v.keys {
						if err := idx.Delete(k); err != nil {
							return err
						}
					}
				}
			}
			n = len(vs)
		}
		return deleteBefore(tx.Bucket(bucketAuditHours), timeKey(cutoff.Truncate(time.Hour)), 0)
	})
	return n, err
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
