package boltstore

import (
	"errors"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/keys"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// BucketKeys is the bucket that holds managed API keys: the records and
// last-used times the keys package names.
const BucketKeys = "keys"

// Keys is the keys.Backend over the embedded store: synchronous
// transactions for administrative writes, the batched queue for last-used
// times.
type Keys struct{ s *store.Store }

var _ keys.Backend = Keys{}

// NewKeys returns the managed-key backend over bucket BucketKeys of s.
func NewKeys(s *store.Store) Keys { return Keys{s} }

// Load implements keys.Backend.
func (b Keys) Load(fn func(key, value []byte) error) error {
	return b.s.View(func(tx *bbolt.Tx) error {
		bk := tx.Bucket([]byte(BucketKeys))
		if bk == nil {
			return nil
		}
		return bk.ForEach(fn)
	})
}

// Put implements keys.Backend.
func (b Keys) Put(key, value []byte) error {
	return b.s.Update(func(tx *bbolt.Tx) error {
		bk, err := tx.CreateBucketIfNotExists([]byte(BucketKeys))
		if err != nil {
			return err
		}
		return bk.Put(key, value)
	})
}

// Delete implements keys.Backend.
func (b Keys) Delete(keys ...[]byte) error { return deleteFrom(b.s, BucketKeys, keys) }

// deleteFrom removes keys from bucket in one transaction; a missing bucket
// or key is not an error.
func deleteFrom(s *store.Store, bucket string, keys [][]byte) error {
	return s.Update(func(tx *bbolt.Tx) error {
		bk := tx.Bucket([]byte(bucket))
		if bk == nil {
			return nil
		}
		var errs []error
		for _, k := range keys {
			errs = append(errs, bk.Delete(k))
		}
		return errors.Join(errs...)
	})
}

// PutLater implements keys.Backend.
func (b Keys) PutLater(key, value []byte) bool {
	return b.s.Enqueue(store.Write{Bucket: BucketKeys, Key: key, Value: value})
}
