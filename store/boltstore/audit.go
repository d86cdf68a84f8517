package boltstore

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/audit"
	"github.com/modelgate/modelgate/store"
)

// Buckets of the audit and usage domains.
var (
	// bucketEntries: entry id → the entry without bodies (JSON).
	bucketEntries = []byte("audit_entries")
	// bucketBodies: entry id → the entry's bodies (JSON), when it has any.
	bucketBodies = []byte("audit_bodies")
	// bucketRequestBodies: entry id → the request body as recorded, when
	// there is one. It is stored apart from the other bodies so that the
	// largest of them (a conversation) is handed to bbolt as it is,
	// without being copied into a combined record first.
	bucketRequestBodies = []byte("audit_request_bodies")
	// bucketMeta: entry id → entryMeta.
	bucketMeta = []byte("audit_meta")
	// bucketIndex: secondary index keys (see idxKey) → empty.
	bucketIndex = []byte("audit_index")
	// bucketAuditHours: hour, provider → AuditHour sums.
	bucketAuditHours = []byte("audit_hours")
	// bucketUsage: record id → usage record (JSON).
	bucketUsage = []byte("usage_records")
	// bucketUsageHours and bucketUsageDays: period, user path, provider,
	// model → UsageAggregate sums.
	bucketUsageHours = []byte("usage_hours")
	bucketUsageDays  = []byte("usage_days")
	// bucketSessions: user path, session id → SessionTotals.
	bucketSessions = []byte("usage_sessions")
	// bucketSessionsRecent: last activity, user path, session id → empty:
	// sessions in order of latest activity.
	bucketSessionsRecent = []byte("usage_sessions_recent")
)

// Audit keeps audit entries, usage records and their aggregates in the
// store's bbolt file; it implements audit.Storage. Records are encoded by
// the caller of AppendEntry and AppendUsage and written by the store's
// batched writer, together with their indexes and aggregates, in one
// transaction per batch. Reads run in read-only transactions and see what
// the writer has committed.
type Audit struct {
	s *store.Store
	// aggs sums what each batch adds to the aggregate rows.
	aggs *batchAggs
	// rejected counts records the writer refused (an encoding error).
	rejected atomic.Uint64
}

var _ audit.Storage = (*Audit)(nil)

// NewAudit returns the audit storage over s.
func NewAudit(s *store.Store) *Audit { return &Audit{s: s, aggs: aggsFor(s)} }

// Rejected returns how many records were refused for having no id or not
// encoding (a bug in the caller, never a full queue), plus the aggregate
// rows of the store left unchanged because the stored row was corrupt.
func (a *Audit) Rejected() uint64 { return a.rejected.Load() + a.aggs.corruptRows.Load() }

// Flush waits until every entry and usage record queued before the call
// is committed.
func (a *Audit) Flush(ctx context.Context) error { return a.s.Flush(ctx) }

// bucket returns the named bucket of a read-write tx, creating it if
// needed, without allocating once it exists.
func bucket(tx *bbolt.Tx, name []byte) (*bbolt.Bucket, error) {
	if b := tx.Bucket(name); b != nil {
		return b, nil
	}
	b, err := tx.CreateBucketIfNotExists(name)
	if err != nil {
		return nil, fmt.Errorf("boltstore: bucket %s: %w", name, err)
	}
	return b, nil
}

// entryWrite is one encoded entry waiting for the writer.
type entryWrite struct {
	id           [16]byte
	head, bodies []byte
	// reqBody is the request body as recorded (not a copy: the audit stage
	// hands the entry over and never changes it).
	reqBody []byte
	meta    []byte
	index   [][]byte
	hourKey []byte
	hour    audit.AuditHour
	// aggs receives the hour row.
	aggs *batchAggs
}

// AppendEntry encodes e and queues it with its index keys and its
// AuditHour row. It reports false, without blocking, when the queue is
// full, e has no id or e cannot be encoded.
func (a *Audit) AppendEntry(e *audit.Entry) bool {
	w, err := a.newEntryWrite(e)
	if err != nil {
		a.rejected.Add(1)
		return false
	}
	return a.s.Enqueue(store.Write{Apply: w.apply})
}

// errNoID rejects records without an id.
var errNoID = errors.New("boltstore: record without id")

// newEntryWrite encodes e for the writer.
func (a *Audit) newEntryWrite(e *audit.Entry) (*entryWrite, error) {
	if e.ID.IsZero() {
		return nil, errNoID
	}
	head, bodies, err := encodeEntry(e)
	if err != nil {
		return nil, err
	}
	w := &entryWrite{id: e.ID, head: head, bodies: bodies, meta: encodeMeta(e), hour: audit.AuditHourOf(e), aggs: a.aggs}
	if e.Data != nil {
		w.reqBody = e.Data.RequestBody
	}
	m, _ := decodeMeta(w.meta) // just encoded
	w.index = m.indexKeys(e.ID)
	w.hourKey = auditHourKey(&w.hour)
	return w, nil
}

// empty is the value of index keys.
var empty = []byte{}

// apply writes the entry, its meta and index keys, and adds its hour row
// to the batch's sums (written when the batch ends).
func (w *entryWrite) apply(tx *bbolt.Tx) error {
	if err := put(tx, bucketEntries, w.id[:], w.head); err != nil {
		return err
	}
	if w.bodies != nil {
		if err := put(tx, bucketBodies, w.id[:], w.bodies); err != nil {
			return err
		}
	}
	if len(w.reqBody) > 0 {
		if err := put(tx, bucketRequestBodies, w.id[:], w.reqBody); err != nil {
			return err
		}
	}
	if err := put(tx, bucketMeta, w.id[:], w.meta); err != nil {
		return err
	}
	idx, err := bucket(tx, bucketIndex)
	if err != nil {
		return err
	}
	for _, k := range w.index {
		if err := idx.Put(k, empty); err != nil {
			return err
		}
	}
	w.aggs.addEntry(w.hourKey, w.hour)
	return nil
}

// appendFill is the fill percent of buckets keyed by id: their keys only
// ever grow, so pages split full instead of half full, halving the pages
// written and stored.
const appendFill = 0.95

// put stores value under key in the named bucket, whose keys are ids.
func put(tx *bbolt.Tx, name, key, value []byte) error {
	b, err := bucket(tx, name)
	if err != nil {
		return err
	}
	b.FillPercent = appendFill
	return b.Put(key, value)
}
