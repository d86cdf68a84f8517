package boltstore

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// Buckets of the audit and usage domains.
var (
	// bucketEntries: entry id → the entry's head: the entry without
	// bodies (see headVersion).
	bucketEntries = []byte("audit_entries")
	// bucketBodies: entry id → the bodies but the request body of an
	// entry with a JSON head, when it has any.
	bucketBodies = []byte("audit_bodies")
	// bucketRequestBodies: entry id → the request body as recorded, of
	// an entry with a JSON head, when there is one.
	bucketRequestBodies = []byte("audit_request_bodies")
	// bucketMeta: entry id → entryMeta of an entry with a JSON head.
	bucketMeta = []byte("audit_meta")
	// bucketBodyChunks: the id of the newest entry in the chunk → the
	// bodies records of a batch's entries, packed (see chunkTarget).
	bucketBodyChunks = []byte("audit_body_chunks")
	// bucketIndex: index term and id → postings (see postingIDs).
	bucketIndex = []byte("audit_index")
	// bucketAuditHours: hour, provider → AuditHour sums.
	bucketAuditHours = []byte("audit_hours")
	// bucketUsage: record id → usage record (see usageVersion).
	bucketUsage = []byte("usage_records")
	// bucketUsageHours and bucketUsageDays: period, user path, provider,
	// model → UsageAggregate sums.
	bucketUsageHours = []byte("usage_hours")
	bucketUsageDays  = []byte("usage_days")
	// bucketBreakdownHours, bucketBreakdownDays and
	// bucketBreakdownMonths: period, user path, key id, provider, model,
	// endpoint → BreakdownRow sums (see encodeBreakdownSums).
	bucketBreakdownHours  = []byte("usage_breakdown_hours")
	bucketBreakdownDays   = []byte("usage_breakdown_days")
	bucketBreakdownMonths = []byte("usage_breakdown_months")
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

// Pending reports whether the store holds writes not yet committed (the
// audit's or another domain's): while it does not, Flush has nothing to
// wait for.
func (a *Audit) Pending() bool {
	st := a.s.Stats()
	return st.Enqueued > st.Committed+st.Failed
}

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

// entryWrite is one encoded entry waiting for the writer. Its apply only
// hands it to the batch (batchAggs), which writes the batch's entries
// together when the batch ends: their bodies packed into body chunks,
// their heads, and one posting per index term and slot.
type entryWrite struct {
	id audit.ID
	// head is the binary head; its bodies reference is set when the
	// batch ends.
	head []byte
	// terms are the index terms of the entry with its slot (see
	// entryMeta.terms).
	terms [][]byte
	// The bodies as recorded (not copies: the audit stage hands the
	// entry over and never changes it), packed into a body chunk, and
	// let go, when the writer takes the entry.
	reqBody, respBody json.RawMessage
	attempts          []audit.Attempt
	revisions         []audit.Revision
	// bodySize is the size of the entry's bodies record; 0: no bodies.
	bodySize int
	hourKey  []byte
	hour     audit.AuditHour
	// aggs receives the entry.
	aggs *batchAggs
}

// AppendEntry encodes e and queues it with its index postings and its
// AuditHour row. It reports false, without blocking, when the queue is
// full or e has no id. An entry that can never be stored (it does not
// encode, an indexed value is too long for a key) is not queued: it is
// dropped and counted in the store's drops (store.Store.Drops) under kind
// "entry", and reported taken, so that the recorder does not count it
// again as refused by a full queue.
func (a *Audit) AppendEntry(e *audit.Entry) bool {
	w, err := a.newEntryWrite(e)
	if err != nil {
		a.rejected.Add(1)
		if errors.Is(err, errNoID) {
			return false
		}
		a.s.DropRecord(KindEntry, err)
		return true
	}
	return a.s.Enqueue(w.write())
}

// Kinds of the audit domain's writes, for the store's drop counts.
const (
	// KindEntry is the kind of audit entries.
	KindEntry = "entry"
	// KindUsage is the kind of usage records.
	KindUsage = "usage"
)

// write is the store write of w.
func (w *entryWrite) write() store.Write {
	return store.Write{Kind: KindEntry, Apply: w.apply, Take: w.take, Size: w.bodySize + len(w.head)}
}

// errNoID rejects records without an id.
var errNoID = errors.New("boltstore: record without id")

// errKeyTooLarge rejects records with an indexed or aggregated value too
// long for a bbolt key.
var errKeyTooLarge = store.Unstorable("key_too_large", errors.New("boltstore: indexed value too long for a key"))

// newEntryWrite encodes e for the writer.
func (a *Audit) newEntryWrite(e *audit.Entry) (*entryWrite, error) {
	if e.ID.IsZero() {
		return nil, errNoID
	}
	head, err := encodeHead(e)
	if err != nil {
		return nil, store.Unstorable("encoding", err)
	}
	w := &entryWrite{id: e.ID, head: head, hour: audit.AuditHourOf(e), aggs: a.aggs}
	m, _, _ := readMeta(head[headMetaAt:]) // just encoded
	w.terms = m.terms(e.ID[:])
	for _, t := range w.terms {
		if len(t)-slotLen+16 > bbolt.MaxKeySize {
			return nil, errKeyTooLarge
		}
	}
	if d := e.Data; d != nil {
		w.reqBody, w.respBody = d.RequestBody, d.ResponseBody
		w.attempts, w.revisions = d.Attempts, d.RequestRevisions
		w.bodySize = bodiesSize(d)
	}
	// The hour key lives in the head's spare room, past what is stored.
	hk := binary.BigEndian.AppendUint64(head[len(head):], uint64(w.hour.Hour.Unix()))
	hk = appendLP(hk, w.hour.Provider)
	w.hourKey = hk[:len(hk):len(hk)]
	w.head = head[:len(head):len(head)]
	return w, nil
}

// take packs the entry's bodies with the batch's (see bodyPacker) as the
// writer takes it into the batch, and returns the change in the bytes the
// batch holds for them and the head.
func (w *entryWrite) take() int {
	return len(w.head) + w.aggs.pack.take(w)
}

// empty is the value of index keys.
var empty = []byte{}

// apply adds the entry and its hour row to the batch (written when the
// batch ends).
func (w *entryWrite) apply(*bbolt.Tx) error {
	w.aggs.addEntry(w)
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
