package boltstore

import (
	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/sessions"
	"github.com/modelgate/modelgate/internal/storage/records"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// BucketSessionLimits holds the admin-written session limits, one JSON
// record (records.EncodeSessionLimit) per user path.
const BucketSessionLimits = "session_limits"

// SessionLimits implements sessions.Storage in BucketSessionLimits, with
// synchronous transactions.
type SessionLimits struct{ s *store.Store }

var _ sessions.Storage = SessionLimits{}

// NewSessionLimits returns the session-limit storage over s.
func NewSessionLimits(s *store.Store) SessionLimits { return SessionLimits{s} }

// SessionLimits implements sessions.Storage.
func (sl SessionLimits) SessionLimits() ([]sessions.Limit, error) {
	var out []sessions.Limit
	err := sl.s.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(BucketSessionLimits))
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			l, err := records.DecodeSessionLimit(string(k), v)
			if err != nil {
				return err
			}
			out = append(out, l)
			return nil
		})
	})
	return out, err
}

// PutSessionLimit implements sessions.Storage.
func (sl SessionLimits) PutSessionLimit(l sessions.Limit) error {
	v, err := records.EncodeSessionLimit(l)
	if err != nil {
		return err
	}
	return sl.s.Update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(BucketSessionLimits))
		if err != nil {
			return err
		}
		return b.Put([]byte(l.UserPath), v)
	})
}

// DeleteSessionLimit implements sessions.Storage.
func (sl SessionLimits) DeleteSessionLimit(userPath string) error {
	return sl.s.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(BucketSessionLimits))
		if b == nil {
			return nil
		}
		return b.Delete([]byte(userPath))
	})
}
