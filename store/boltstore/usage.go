package boltstore

import (
	"encoding/json"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/audit"
	"github.com/modelgate/modelgate/store"
)

// usageWrite is one encoded usage record waiting for the writer.
type usageWrite struct {
	id      [16]byte
	rec     []byte
	r       *audit.UsageRecord
	hourKey []byte
	dayKey  []byte
	sessKey []byte // nil without a session
}

// AppendUsage encodes r and queues it with its hour and day aggregates and
// its session's totals. It reports false, without blocking, when the queue
// is full, r has no id or r cannot be encoded.
func (a *Audit) AppendUsage(r *audit.UsageRecord) bool {
	w, err := newUsageWrite(r)
	if err != nil {
		a.rejected.Add(1)
		return false
	}
	return a.s.Enqueue(store.Write{Apply: w.apply})
}

// newUsageWrite encodes r for the writer.
func newUsageWrite(r *audit.UsageRecord) (*usageWrite, error) {
	if r.ID.IsZero() {
		return nil, errNoID
	}
	rec, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("boltstore: encode usage record: %w", err)
	}
	w := &usageWrite{id: r.ID, rec: rec, r: r}
	h := audit.UsageAggregateOf(audit.Hourly, r)
	d := audit.UsageAggregateOf(audit.Daily, r)
	w.hourKey, w.dayKey = usageAggKey(&h), usageAggKey(&d)
	if r.SessionID != "" {
		w.sessKey = sessionKey(r.UserPath, r.SessionID)
	}
	return w, nil
}

// apply writes the record, adds it to its hour and day rows and to its
// session, keeping the session's place in latest-activity order. Every
// stored value is read and decoded before anything is written.
func (w *usageWrite) apply(tx *bbolt.Tx) error {
	hours, err := bucket(tx, bucketUsageHours)
	if err != nil {
		return err
	}
	days, err := bucket(tx, bucketUsageDays)
	if err != nil {
		return err
	}
	hourV, err := addToAgg(hours, w.hourKey, w.r)
	if err != nil {
		return err
	}
	dayV, err := addToAgg(days, w.dayKey, w.r)
	if err != nil {
		return err
	}
	var (
		sessions, recent *bbolt.Bucket
		sessV, oldRecent []byte
		newRecent        []byte
	)
	if w.sessKey != nil {
		if sessions, err = bucket(tx, bucketSessions); err != nil {
			return err
		}
		if recent, err = bucket(tx, bucketSessionsRecent); err != nil {
			return err
		}
		var s audit.SessionTotals
		if old := sessions.Get(w.sessKey); old != nil {
			if s, err = decodeSession(w.sessKey, old); err != nil {
				return err
			}
			oldRecent = recentKey(s.LastSeen, w.sessKey)
		}
		s.AddRecord(w.r)
		sessV = encodeSession(&s)
		if nr := recentKey(s.LastSeen, w.sessKey); string(nr) != string(oldRecent) {
			newRecent = nr
		}
	}
	if err := put(tx, bucketUsage, w.id[:], w.rec); err != nil {
		return err
	}
	if err := hours.Put(w.hourKey, hourV); err != nil {
		return err
	}
	if err := days.Put(w.dayKey, dayV); err != nil {
		return err
	}
	if sessV == nil {
		return nil
	}
	if err := sessions.Put(w.sessKey, sessV); err != nil {
		return err
	}
	if newRecent != nil {
		if oldRecent != nil {
			if err := recent.Delete(oldRecent); err != nil {
				return err
			}
		}
		if err := recent.Put(newRecent, empty); err != nil {
			return err
		}
	}
	return nil
}

// addToAgg returns the encoded row under key with r added.
func addToAgg(b *bbolt.Bucket, key []byte, r *audit.UsageRecord) ([]byte, error) {
	var a audit.UsageAggregate
	if old := b.Get(key); old != nil {
		if err := decodeUsageAggSums(old, &a); err != nil {
			return nil, err
		}
	}
	a.AddRecord(r)
	return encodeUsageAgg(&a), nil
}

// UsageRecords calls fn for every record made in [from, to), oldest first,
// until fn returns false. Zero bounds are open.
func (a *Audit) UsageRecords(from, to time.Time, fn func(*audit.UsageRecord) bool) error {
	return a.s.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketUsage)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		var k, v []byte
		if from.IsZero() {
			k, v = c.First()
		} else {
			lo := audit.MinID(from)
			k, v = c.Seek(lo[:])
		}
		var hi audit.ID
		if !to.IsZero() {
			hi = audit.MinID(to)
		}
		for ; k != nil; k, v = c.Next() {
			if !to.IsZero() && string(k) >= string(hi[:]) {
				break
			}
			r := new(audit.UsageRecord)
			if err := json.Unmarshal(v, r); err != nil {
				return fmt.Errorf("boltstore: decode usage record: %w", err)
			}
			if !fn(r) {
				break
			}
		}
		return nil
	})
}
