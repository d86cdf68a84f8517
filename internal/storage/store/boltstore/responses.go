package boltstore

import (
	"time"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/responses"
	"github.com/modelgate/modelgate/internal/storage/records"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// BucketResponses holds the stored responses by id.
const BucketResponses = "responses"

// Responses is the responses.Storage over the embedded store. Writes are
// synchronous transactions; the responses service batches them off the
// request path.
type Responses struct{ s *store.Store }

var _ responses.Storage = Responses{}

// NewResponses returns the stored-responses storage over s.
func NewResponses(s *store.Store) Responses { return Responses{s} }

// PutResponses implements responses.Storage.
func (b Responses) PutResponses(recs []*responses.Record) error {
	enc := make([][]byte, len(recs))
	for i, r := range recs {
		v, err := records.EncodeResponse(r)
		if err != nil {
			return err
		}
		enc[i] = v
	}
	return b.s.Update(func(tx *bbolt.Tx) error {
		bk, err := tx.CreateBucketIfNotExists([]byte(BucketResponses))
		if err != nil {
			return err
		}
		for i, r := range recs {
			if err := bk.Put([]byte(r.ID), enc[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// Response implements responses.Storage.
func (b Responses) Response(id string) (*responses.Record, error) {
	var r *responses.Record
	err := b.s.View(func(tx *bbolt.Tx) error {
		v := getIn(tx, BucketResponses, []byte(id))
		if v == nil {
			return responses.ErrNotFound
		}
		var err error
		r, err = records.DecodeResponse(id, v)
		return err
	})
	return r, err
}

// DeleteResponse implements responses.Storage.
func (b Responses) DeleteResponse(id string) error {
	return b.s.Update(func(tx *bbolt.Tx) error {
		bk := tx.Bucket([]byte(BucketResponses))
		if bk == nil || bk.Get([]byte(id)) == nil {
			return responses.ErrNotFound
		}
		return bk.Delete([]byte(id))
	})
}

// DeleteResponsesBefore implements responses.Storage. Ids are random, so
// it reads every record's time; it runs once an hour, off the request
// path. A record that cannot be read is deleted too.
func (b Responses) DeleteResponsesBefore(t time.Time) (int, error) {
	n := 0
	err := b.s.Update(func(tx *bbolt.Tx) error {
		bk := tx.Bucket([]byte(BucketResponses))
		if bk == nil {
			return nil
		}
		var old [][]byte
		err := bk.ForEach(func(k, v []byte) error {
			r, err := records.DecodeResponse(string(k), v)
			if err != nil || r.CreatedAt.Before(t) {
				old = append(old, append([]byte(nil), k...))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range old {
			if err := bk.Delete(k); err != nil {
				return err
			}
		}
		n = len(old)
		return nil
	})
	return n, err
}
