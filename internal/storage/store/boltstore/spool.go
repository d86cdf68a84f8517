package boltstore

import (
	"encoding/binary"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/storage/store"
)

// BucketAuditSpool holds the audit entries and usage records a process
// could not write to PostgreSQL, keyed by an 8-byte big-endian sequence
// number (oldest first), until its writer has written them.
const BucketAuditSpool = "audit_spool"

// AuditSpool is the spool (pgstore.Spool) of a process's own bbolt file.
// Each Put is one synchronous transaction, durable when it returns.
type AuditSpool struct{ s *store.Store }

// NewAuditSpool returns the spool kept in s.
func NewAuditSpool(s *store.Store) AuditSpool { return AuditSpool{s} }

// Put stores values durably, in one transaction.
func (sp AuditSpool) Put(values [][]byte) error {
	return sp.s.Update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(BucketAuditSpool))
		if err != nil {
			return err
		}
		for _, v := range values {
			seq, err := b.NextSequence()
			if err != nil {
				return err
			}
			if err := b.Put(binary.BigEndian.AppendUint64(nil, seq), v); err != nil {
				return err
			}
		}
		return nil
	})
}

// Oldest returns up to n of the oldest values with their keys.
func (sp AuditSpool) Oldest(n int) (keys, values [][]byte, err error) {
	err = sp.s.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(BucketAuditSpool))
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.First(); k != nil && len(keys) < n; k, v = c.Next() {
			keys = append(keys, append([]byte(nil), k...))
			values = append(values, append([]byte(nil), v...))
		}
		return nil
	})
	return keys, values, err
}

// Remove deletes the values of keys.
func (sp AuditSpool) Remove(keys [][]byte) error {
	return sp.s.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(BucketAuditSpool))
		if b == nil {
			return nil
		}
		for _, k := range keys {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}

// Len returns how many values are stored.
func (sp AuditSpool) Len() (int, error) {
	n := 0
	err := sp.s.View(func(tx *bbolt.Tx) error {
		if b := tx.Bucket([]byte(BucketAuditSpool)); b != nil {
			n = b.Stats().KeyN
		}
		return nil
	})
	return n, err
}
