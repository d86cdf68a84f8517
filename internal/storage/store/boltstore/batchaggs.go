package boltstore

import (
	"bytes"
	"sync"
	"sync/atomic"
	"unsafe"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/storage/store"
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
	// The batch's postings (see writePostings): postIdx maps a term and
	// slot (aliasing the entry's terms) to its place in posts; termPost
	// lists the posting of each term of each entry in order; postIDs
	// holds the ids of every posting, each posting's contiguous.
	postIdx  map[string]int32
	posts    []posting
	termPost []int32
	postIDs  []audit.ID
	// arena holds the keys and values the batch hands to bbolt, which
	// keeps them until the commit; it is reused by the next batch.
	arena arena
	// pack holds the batch's bodies, packed in chunks as its entries
	// were taken; it outlives a failed try of the batch.
	pack       bodyPacker
	auditHours map[string]*audit.AuditHour
	usageHours map[string]*audit.UsageAggregate
	usageDays  map[string]*audit.UsageAggregate
	// bdHours, bdDays and bdMonths are the batch's breakdown rows by
	// key.
	bdHours, bdDays, bdMonths map[string]*audit.BreakdownRow
	// sessIdx maps a session key (aliasing the record's) to its place in
	// sess; each session's records are a list through usage and next.
	sessIdx map[string]int32
	sess    []sessionBatch
	usage   []*audit.UsageRecord
	next    []int32
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

// sessionBatch is one session's records in a batch: the session key and
// the first and last of its records in batchAggs.usage.
type sessionBatch struct {
	key         []byte
	first, last int32
}

// BeginBatch drops the sums of an earlier attempt.
func (a *batchAggs) BeginBatch() {
	clear(a.entries)
	a.entries = a.entries[:0]
	a.postIdx = map[string]int32{}
	clear(a.posts)
	a.posts = a.posts[:0]
	a.arena.reset()
	a.auditHours = map[string]*audit.AuditHour{}
	a.usageHours = map[string]*audit.UsageAggregate{}
	a.usageDays = map[string]*audit.UsageAggregate{}
	a.bdHours, a.bdDays, a.bdMonths = map[string]*audit.BreakdownRow{}, map[string]*audit.BreakdownRow{}, map[string]*audit.BreakdownRow{}
	a.sessIdx = map[string]int32{}
	clear(a.sess)
	a.sess = a.sess[:0]
	clear(a.usage)
	a.usage, a.next = a.usage[:0], a.next[:0]
}

// BatchDone drops the body chunks of the batch that is over.
func (a *batchAggs) BatchDone() { a.pack.done() }

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
	for _, row := range [...]struct {
		m   map[string]*audit.BreakdownRow
		key []byte
	}{{a.bdHours, w.bdHourKey}, {a.bdDays, w.bdDayKey}, {a.bdMonths, w.bdMonthKey}} {
		sum, ok := row.m[string(row.key)]
		if !ok {
			sum = new(audit.BreakdownRow)
			row.m[string(row.key)] = sum
		}
		sum.AddRecord(w.r)
	}
	if w.sessKey != nil {
		u := int32(len(a.usage))
		a.usage, a.next = append(a.usage, w.r), append(a.next, -1)
		k := aliasString(w.sessKey)
		if i, ok := a.sessIdx[k]; ok {
			a.next[a.sess[i].last] = u
			a.sess[i].last = u
		} else {
			a.sessIdx[k] = int32(len(a.sess))
			a.sess = append(a.sess, sessionBatch{key: w.sessKey, first: u, last: u})
		}
	}
}

// aliasString returns b as a string without copying it: b must never
// change while the string is in use.
func aliasString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

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
	if err := a.flushBreakdown(tx, bucketBreakdownHours, a.bdHours); err != nil {
		return err
	}
	if err := a.flushBreakdown(tx, bucketBreakdownDays, a.bdDays); err != nil {
		return err
	}
	if err := a.flushBreakdown(tx, bucketBreakdownMonths, a.bdMonths); err != nil {
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

// flushUsage adds rows to the usage aggregates of bucket name.
func (a *batchAggs) flushUsage(tx *bbolt.Tx, name []byte, rows map[string]*audit.UsageAggregate) error {
	return flushRows(a, tx, name, rows, decodeUsageAggSums, encodeUsageAgg, func(sum, prev *audit.UsageAggregate) {
		prev.Add(*sum)
		*sum = *prev
	})
}

// flushBreakdown adds rows to the breakdown rows of bucket name.
func (a *batchAggs) flushBreakdown(tx *bbolt.Tx, name []byte, rows map[string]*audit.BreakdownRow) error {
	return flushRows(a, tx, name, rows, decodeBreakdownSums, encodeBreakdownSums, func(sum, prev *audit.BreakdownRow) {
		sum.Add(prev)
	})
}

// flushRows adds each of rows (a sum of this batch, by key) to the row
// stored under its key in bucket name: decode reads a stored row, add
// makes sum the total of sum and prev, encode writes it. A stored row
// that does not decode is counted (corruptRows) and left as it is. The
// rows of the map are not modified.
func flushRows[T any](a *batchAggs, tx *bbolt.Tx, name []byte, rows map[string]*T,
	decode func([]byte, *T) error, encode func(*T) []byte, add func(sum, prev *T)) error {
	if len(rows) == 0 {
		return nil
	}
	b, err := bucket(tx, name)
	if err != nil {
		return err
	}
	for k, row := range rows {
		key := []byte(k)
		sum := *row
		if old := b.Get(key); old != nil {
			var prev T
			if err := decode(old, &prev); err != nil {
				a.corruptRows.Add(1)
				continue
			}
			add(&sum, &prev)
		}
		if err := b.Put(key, encode(&sum)); err != nil {
			return err
		}
	}
	return nil
}

func (a *batchAggs) flushSessions(tx *bbolt.Tx) error {
	if len(a.sess) == 0 {
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
	sc, rc := sessions.Cursor(), recent.Cursor()
	for i := range a.sess {
		store.Yield(i)
		key := a.sess[i].key
		var s audit.SessionTotals
		var oldRecent []byte
		// Cursors reuse their search path; Get and Delete would each
		// allocate a new one.
		if k, old := sc.Seek(key); old != nil && bytes.Equal(k, key) {
			if err := decodeSessionSums(old, &s); err != nil {
				a.corruptRows.Add(1)
				continue
			}
			oldRecent = a.arena.recentKey(s.LastSeen, key)
		}
		for u := a.sess[i].first; u >= 0; u = a.next[u] {
			s.AddRecord(a.usage[u])
		}
		if err := sessions.Put(key, a.arena.encodeSession(&s)); err != nil {
			return err
		}
		newRecent := a.arena.recentKey(s.LastSeen, key)
		if string(newRecent) == string(oldRecent) {
			continue
		}
		if oldRecent != nil {
			if k, _ := rc.Seek(oldRecent); bytes.Equal(k, oldRecent) {
				if err := rc.Delete(); err != nil {
					return err
				}
			}
		}
		if err := recent.Put(newRecent, empty); err != nil {
			return err
		}
	}
	return nil
}
