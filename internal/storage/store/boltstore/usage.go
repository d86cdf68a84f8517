package boltstore

import (
	"encoding/binary"
	"errors"
	"time"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// usageWrite is one encoded usage record waiting for the writer.
type usageWrite struct {
	id      [16]byte
	rec     []byte
	r       *audit.UsageRecord
	hourKey []byte
	dayKey  []byte
	// bdHourKey, bdDayKey and bdMonthKey are the keys of r's breakdown
	// rows.
	bdHourKey, bdDayKey, bdMonthKey []byte
	sessKey                         []byte // nil without a session
	aggs                            *batchAggs
}

// AppendUsage encodes r and queues it with its hour and day aggregates and
// its session's totals. It reports false, without blocking, when the queue
// is full or r has no id. A record that can never be stored (it does not
// encode, its aggregate or session key is too long for bbolt) is dropped
// and counted as AppendEntry does, under kind "usage".
func (a *Audit) AppendUsage(r *audit.UsageRecord) bool {
	w, err := a.newUsageWrite(r)
	if err != nil {
		a.rejected.Add(1)
		if errors.Is(err, errNoID) {
			return false
		}
		a.s.DropRecord(KindUsage, err)
		return true
	}
	return a.s.Enqueue(store.Write{Kind: KindUsage, Apply: w.apply})
}

// newUsageWrite encodes r for the writer.
func (a *Audit) newUsageWrite(r *audit.UsageRecord) (*usageWrite, error) {
	if r.ID.IsZero() {
		return nil, errNoID
	}
	// The record and its row keys share one buffer.
	keys := 2*(8+3*binary.MaxVarintLen64+len(r.UserPath)+len(r.ProviderName)+len(r.Model)) +
		2*binary.MaxVarintLen64 + len(r.UserPath) + len(r.SessionID)
	rec, err := appendUsage(make([]byte, 0, usageSize(r)+keys), r)
	if err != nil {
		return nil, store.Unstorable("encoding", err)
	}
	w := &usageWrite{id: r.ID, rec: rec[:len(rec):len(rec)], r: r, aggs: a.aggs}
	rest := rec[len(rec):]
	carve := func(b []byte) []byte {
		rest = b[len(b):]
		return b[:len(b):len(b)]
	}
	w.hourKey = carve(appendUsageAggKey(rest, audit.Hourly.Truncate(r.ID.Time()), r))
	w.dayKey = carve(appendUsageAggKey(rest, audit.Daily.Truncate(r.ID.Time()), r))
	w.bdHourKey = breakdownKey(audit.Hourly.Truncate(r.ID.Time()), r)
	w.bdDayKey = breakdownKey(audit.Daily.Truncate(r.ID.Time()), r)
	w.bdMonthKey = breakdownKey(audit.Monthly.Truncate(r.ID.Time()), r)
	if r.SessionID != "" {
		w.sessKey = carve(appendLP(appendLP(rest, r.UserPath), r.SessionID))
	}
	// The recent-sessions key adds a timestamp to the session key.
	if len(w.hourKey) > bbolt.MaxKeySize || len(w.bdHourKey) > bbolt.MaxKeySize || len(w.sessKey)+8 > bbolt.MaxKeySize {
		return nil, errKeyTooLarge
	}
	return w, nil
}

// apply writes the record and adds it to its hour and day rows and its
// session in the batch's sums (written when the batch ends, keeping the
// session's place in latest-activity order).
func (w *usageWrite) apply(tx *bbolt.Tx) error {
	if err := put(tx, bucketUsage, w.id[:], w.rec); err != nil {
		return err
	}
	w.aggs.addUsage(w)
	return nil
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
			r, err := decodeUsage(k, v)
			if err != nil {
				return err
			}
			if !fn(r) {
				break
			}
		}
		return nil
	})
}
