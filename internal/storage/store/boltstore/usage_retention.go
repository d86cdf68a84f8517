package boltstore

import (
	"bytes"
	"encoding/binary"
	"time"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// DeleteUsageBefore deletes up to max of the oldest usage records made
// before cutoff in one transaction and returns how many records and
// sessions it deleted: below max, nothing older than cutoff is left. Hour
// rows of hours that end at or before cutoff, and up to max sessions whose
// last activity is before cutoff, go in the same transaction. Day rows are
// kept: they are small, and summaries over long windows read them after
// the records are gone. A session's totals keep counting records deleted
// before the session itself ends.
func (a *Audit) DeleteUsageBefore(cutoff time.Time, max int) (int, error) {
	n := 0
	err := a.s.Update(func(tx *bbolt.Tx) error {
		if max <= 0 {
			return nil
		}
		if recs := tx.Bucket(bucketUsage); recs != nil {
			hi := audit.MinID(cutoff)
			var ids [][]byte
			c := recs.Cursor()
			for k, _ := c.First(); k != nil && len(ids) < max && bytes.Compare(k, hi[:]) < 0; k, _ = c.Next() {
				ids = append(ids, bytes.Clone(k))
			}
			for _, id := range ids {
				if err := recs.Delete(id); err != nil {
					return err
				}
			}
			n = len(ids)
		}
		for _, name := range [...][]byte{bucketUsageHours, bucketBreakdownHours} {
			if err := deleteBefore(tx.Bucket(name), timeKey(cutoff.Truncate(time.Hour)), 0); err != nil {
				return err
			}
		}
		recent, sessions := tx.Bucket(bucketSessionsRecent), tx.Bucket(bucketSessions)
		if recent == nil || sessions == nil {
			return nil
		}
		hi := binary.BigEndian.AppendUint64(nil, uint64(cutoff.UnixNano()))
		var keys [][]byte
		c := recent.Cursor()
		for k, _ := c.First(); k != nil && len(keys) < max && bytes.Compare(k, hi) < 0; k, _ = c.Next() {
			keys = append(keys, bytes.Clone(k))
		}
		for _, k := range keys {
			if err := sessions.Delete(k[8:]); err != nil {
				return err
			}
			if err := recent.Delete(k); err != nil {
				return err
			}
		}
		n += len(keys)
		return nil
	})
	return n, err
}
