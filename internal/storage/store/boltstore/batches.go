package boltstore

import (
	"encoding/binary"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/batches"
	"github.com/modelgate/modelgate/internal/storage/records"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// Buckets of the batches domain: file records, file contents, batch
// records, and one sub-bucket of line results per batch (keyed by the
// line's index, big-endian, so results come back in line order).
const (
	BucketBatchFiles    = "batch_files"
	BucketBatchContents = "batch_file_contents"
	BucketBatches       = "batches"
	BucketBatchResults  = "batch_results"
)

// Batches is the batches.Storage over the embedded store. Every write is
// a synchronous transaction: batch progress is written a few times per
// line, far from the request path, and must survive a restart.
type Batches struct{ s *store.Store }

var _ batches.Storage = Batches{}

// NewBatches returns the batches storage over s.
func NewBatches(s *store.Store) Batches { return Batches{s} }

// PutFile implements batches.Storage.
func (b Batches) PutFile(f *batches.File, content []byte) error {
	rec, err := records.EncodeFile(f)
	if err != nil {
		return err
	}
	return b.s.Update(func(tx *bbolt.Tx) error {
		if err := putIn(tx, BucketBatchFiles, []byte(f.ID), rec); err != nil {
			return err
		}
		return putIn(tx, BucketBatchContents, []byte(f.ID), content)
	})
}

// File implements batches.Storage.
func (b Batches) File(id string) (*batches.File, error) {
	var f *batches.File
	err := b.get(BucketBatchFiles, id, func(v []byte) (err error) {
		f, err = records.DecodeFile(id, v)
		return err
	})
	return f, err
}

// FileContent implements batches.Storage.
func (b Batches) FileContent(id string) ([]byte, error) {
	var out []byte
	err := b.s.View(func(tx *bbolt.Tx) error {
		v := getIn(tx, BucketBatchContents, []byte(id))
		if v == nil {
			return batches.ErrNotFound
		}
		out = append([]byte(nil), v...)
		return nil
	})
	return out, err
}

// Files implements batches.Storage: ids sort by creation time, so key
// order is oldest first.
func (b Batches) Files() ([]*batches.File, error) {
	var out []*batches.File
	err := b.s.View(func(tx *bbolt.Tx) error {
		bk := tx.Bucket([]byte(BucketBatchFiles))
		if bk == nil {
			return nil
		}
		return bk.ForEach(func(k, v []byte) error {
			f, err := records.DecodeFile(string(k), v)
			if err != nil {
				return err
			}
			out = append(out, f)
			return nil
		})
	})
	return out, err
}

// DeleteFile implements batches.Storage.
func (b Batches) DeleteFile(id string) error {
	return b.s.Update(func(tx *bbolt.Tx) error {
		if getIn(tx, BucketBatchFiles, []byte(id)) == nil {
			return batches.ErrNotFound
		}
		if err := tx.Bucket([]byte(BucketBatchFiles)).Delete([]byte(id)); err != nil {
			return err
		}
		if bk := tx.Bucket([]byte(BucketBatchContents)); bk != nil {
			return bk.Delete([]byte(id))
		}
		return nil
	})
}

// PutBatch implements batches.Storage.
func (b Batches) PutBatch(bt *batches.Batch) error {
	rec, err := records.EncodeBatch(bt)
	if err != nil {
		return err
	}
	return b.s.Update(func(tx *bbolt.Tx) error { return putIn(tx, BucketBatches, []byte(bt.ID), rec) })
}

// Batch implements batches.Storage.
func (b Batches) Batch(id string) (*batches.Batch, error) {
	var bt *batches.Batch
	err := b.get(BucketBatches, id, func(v []byte) (err error) {
		bt, err = records.DecodeBatch(id, v)
		return err
	})
	return bt, err
}

// Batches implements batches.Storage: ids sort by creation time, so key
// order is oldest first.
func (b Batches) Batches() ([]*batches.Batch, error) {
	var out []*batches.Batch
	err := b.s.View(func(tx *bbolt.Tx) error {
		bk := tx.Bucket([]byte(BucketBatches))
		if bk == nil {
			return nil
		}
		return bk.ForEach(func(k, v []byte) error {
			bt, err := records.DecodeBatch(string(k), v)
			if err != nil {
				return err
			}
			out = append(out, bt)
			return nil
		})
	})
	return out, err
}

// DeleteBatch implements batches.Storage.
func (b Batches) DeleteBatch(id string) error {
	return b.s.Update(func(tx *bbolt.Tx) error {
		if getIn(tx, BucketBatches, []byte(id)) == nil {
			return batches.ErrNotFound
		}
		if err := tx.Bucket([]byte(BucketBatches)).Delete([]byte(id)); err != nil {
			return err
		}
		root := tx.Bucket([]byte(BucketBatchResults))
		if root == nil || root.Bucket([]byte(id)) == nil {
			return nil
		}
		return root.DeleteBucket([]byte(id))
	})
}

// PutResult implements batches.Storage.
func (b Batches) PutResult(bt *batches.Batch, r *batches.Result) error {
	rec, err := records.EncodeBatch(bt)
	if err != nil {
		return err
	}
	res, err := records.EncodeResult(r)
	if err != nil {
		return err
	}
	var key [4]byte
	binary.BigEndian.PutUint32(key[:], uint32(r.Line))
	return b.s.Update(func(tx *bbolt.Tx) error {
		if err := putIn(tx, BucketBatches, []byte(bt.ID), rec); err != nil {
			return err
		}
		root, err := tx.CreateBucketIfNotExists([]byte(BucketBatchResults))
		if err != nil {
			return err
		}
		sub, err := root.CreateBucketIfNotExists([]byte(bt.ID))
		if err != nil {
			return err
		}
		return sub.Put(key[:], res)
	})
}

// Results implements batches.Storage.
func (b Batches) Results(id string) ([]*batches.Result, error) {
	var out []*batches.Result
	err := b.s.View(func(tx *bbolt.Tx) error {
		root := tx.Bucket([]byte(BucketBatchResults))
		if root == nil {
			return nil
		}
		sub := root.Bucket([]byte(id))
		if sub == nil {
			return nil
		}
		return sub.ForEach(func(_, v []byte) error {
			r, err := records.DecodeResult(id, v)
			if err != nil {
				return err
			}
			out = append(out, r)
			return nil
		})
	})
	return out, err
}

// get calls decode with the record id of bucket, inside the read
// transaction, or returns batches.ErrNotFound.
func (b Batches) get(bucket, id string, decode func(v []byte) error) error {
	return b.s.View(func(tx *bbolt.Tx) error {
		rec := getIn(tx, bucket, []byte(id))
		if rec == nil {
			return batches.ErrNotFound
		}
		return decode(rec)
	})
}

// putIn writes key in bucket, creating the bucket.
func putIn(tx *bbolt.Tx, bucket string, key, value []byte) error {
	bk, err := tx.CreateBucketIfNotExists([]byte(bucket))
	if err != nil {
		return err
	}
	return bk.Put(key, value)
}

// getIn reads key of bucket; nil when either is missing. The value is valid
// only inside tx.
func getIn(tx *bbolt.Tx, bucket string, key []byte) []byte {
	bk := tx.Bucket([]byte(bucket))
	if bk == nil {
		return nil
	}
	return bk.Get(key)
}
