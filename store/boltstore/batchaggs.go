package boltstore

import (
	"sync"
	"sync/atomic"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/audit"
	"github.com/modelgate/modelgate/store"
)

// batchAggs collects what one batch's audit entries and usage records add
// to the aggregate rows (audit hours, usage hours and days, session
// totals) and writes each touched row once, when the batch ends (a
// store.BatchHook), instead of reading, decoding and rewriting a row for
// every record. Under load a batch holds hundreds of records that share
// a handful of rows. It is used only by the store's writer goroutine.
type batchAggs struct {
	// entries are the batch's entries, written when it ends.
	entries []*entryWrite
	// postings groups the batch's entries by index term and slot.
	postings map[string]*posting
	// scratch builds posting keys.
	scratch    []byte
	auditHours map[string]*audit.AuditHour
	usageHours map[string]*audit.UsageAggregate
	usageDays  map[string]*audit.UsageAggregate
	// sessions holds each session's records of the batch, in order.
	sessions map[string][]*audit.UsageRecord
	// corruptRows counts rows that could not be updated (a corrupt stored
	// row); the records themselves are stored.
	corruptRows atomic.Uint64
}

var _ store.BatchHook = (*batchAggs)(nil)

// aggsByStore holds the one batchAggs of each store, so that every Audit
// over a store (one per configuration load) shares one batch hook.
var aggsByStore sync.Map // *store.Store → *batchAggs

// aggsFor returns s's batchAggs, registering its hook on first use.
func aggsFor(s *store.Store) *batchAggs {
	if v, ok := aggsByStore.Load(s); ok {
		return v.(*batchAggs)
	}
	a := &batchAggs{}
	a.BeginBatch()
	if v, loaded := aggsByStore.LoadOrStore(s, a); loaded {
		return v.(*batchAggs)
	}
	s.OnBatch(a)
	return a
}

// BeginBatch drops the sums of an earlier attempt.
func (a *batchAggs) BeginBatch() {
	clear(a.entries)
	a.entries = a.entries[:0]
	a.postings = map[string]*posting{}
	a.auditHours = map[string]*audit.AuditHour{}
	a.usageHours = map[string]*audit.UsageAggregate{}
	a.usageDays = map[string]*audit.UsageAggregate{}
	a.sessions = map[string][]*audit.UsageRecord{}
}

// addEntry adds an entry to the batch and its hour row to the sums.
func (a *batchAggs) addEntry(w *entryWrite) {
	a.entries = append(a.entries, w)
	if sum, ok := a.auditHours[string(w.hourKey)]; ok {
		sum.Add(w.hour)
		return
	}
	h := w.hour
	a.auditHours[string(w.hourKey)] = &h
}

// addUsage adds a record to its hour and day rows and its session.
func (a *batchAggs) addUsage(w *usageWrite) {
	for _, row := range [...]struct {
		m   map[string]*audit.UsageAggregate
		key []byte
	}{{a.usageHours, w.hourKey}, {a.usageDays, w.dayKey}} {
		sum, ok := row.m[string(row.key)]
		if !ok {
			sum = new(audit.UsageAggregate)
			row.m[string(row.key)] = sum
		}
		sum.AddRecord(w.r)
	}
	if w.sessKey != nil {
		a.sessions[string(w.sessKey)] = append(a.sessions[string(w.sessKey)], w.r)
	}
}

// EndBatch writes every row the batch touched. A row that cannot be
// decoded is left as it is and counted in corruptRows; only a transaction
// error fails the batch.
func (a *batchAggs) EndBatch(tx *bbolt.Tx) error {
	if err := a.flushEntries(tx); err != nil {
		return err
	}
	if err := a.flushAuditHours(tx); err != nil {
		return err
	}
	if err := a.flushUsage(tx, bucketUsageHours, a.usageHours); err != nil {
		return err
	}
	if err := a.flushUsage(tx, bucketUsageDays, a.usageDays); err != nil {
		return err
	}
	return a.flushSessions(tx)
}

func (a *batchAggs) flushAuditHours(tx *bbolt.Tx) error {
	if len(a.auditHours) == 0 {
		return nil
	}
	b, err := bucket(tx, bucketAuditHours)
	if err != nil {
		return err
	}
	for k, sum := range a.auditHours {
		key := []byte(k)
		h := *sum
		if old := b.Get(key); old != nil {
			prev, err := decodeAuditHour(key, old)
			if err != nil {
				a.corruptRows.Add(1)
				continue
			}
			h.Add(prev)
		}
		if err := b.Put(key, encodeAuditHour(&h)); err != nil {
			return err
		}
	}
	return nil
}

func (a *batchAggs) flushUsage(tx *bbolt.Tx, name []byte, rows map[string]*audit.UsageAggregate) error {
	if len(rows) == 0 {
		return nil
	}
	b, err := bucket(tx, name)
	if err != nil {
		return err
	}
	for k, sum := range rows {
		key := []byte(k)
		agg := *sum
		if old := b.Get(key); old != nil {
			var prev audit.UsageAggregate
			if err := decodeUsageAggSums(old, &prev); err != nil {
				a.corruptRows.Add(1)
				continue
			}
			prev.Add(agg)
			agg = prev
		}
		if err := b.Put(key, encodeUsageAgg(&agg)); err != nil {
			return err
		}
	}
	return nil
}

// flushSessions adds each session's records to its totals and moves the
// session to its new place in latest-activity order.
func (a *batchAggs) flushSessions(tx *bbolt.Tx) error {
	if len(a.sessions) == 0 {
		return nil
	}
	sessions, err := bucket(tx, bucketSessions)
	if err != nil {
		return err
	}
	recent, err := bucket(tx, bucketSessionsRecent)
	if err != nil {
		return err
	}
	for k, recs := range a.sessions {
		key := []byte(k)
		var s audit.SessionTotals
		var oldRecent []byte
		if old := sessions.Get(key); old != nil {
			if s, err = decodeSession(key, old); err != nil {
				a.corruptRows.Add(1)
				continue
			}
			oldRecent = recentKey(s.LastSeen, key)
		}
		for _, r := range recs {
			s.AddRecord(r)
		}
		if err := sessions.Put(key, encodeSession(&s)); err != nil {
			return err
		}
		newRecent := recentKey(s.LastSeen, key)
		if string(newRecent) == string(oldRecent) {
			continue
		}
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
