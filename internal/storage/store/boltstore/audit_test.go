package boltstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/storage/store"
)

func TestEntryRoundTripKeepsBodiesApart(t *testing.T) {
	a, s := openAudit(t)
	e := entryAt(base.Add(90*time.Minute), 200)
	mustAppend(t, a, e)
	flush(t, s)

	got, err := a.Entry(e.ID)
	if err != nil {
		t.Fatal(err)
	}
	jsonEq(t, "entry read back", got, e)
	if !reflect.DeepEqual(got, e) {
		t.Fatalf("entry read back differs in Go:\n got %#v\nwant %#v", got.Data, e.Data)
	}

	page, err := a.ListEntries(audit.EntryQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 1 || len(page.Entries) != 1 {
		t.Fatalf("page = %+v", page)
	}
	listed := *e
	listed.Data = e.Data.WithoutBodies()
	jsonEq(t, "listed entry", page.Entries[0], &listed)
	if !reflect.DeepEqual(page.Entries[0], &listed) {
		t.Fatal("listed entry differs in Go from the entry without bodies")
	}
	if page.Entries[0].Data.RequestHeaders["content-type"] != "application/json" {
		t.Fatal("list lost the headers")
	}

	// The bodies live in a body chunk; the head holds none of them.
	err = s.View(func(tx *bbolt.Tx) error {
		head := tx.Bucket(bucketEntries).Get(e.ID[:])
		if !isBinaryHead(head) {
			t.Errorf("head is not binary: %q", head)
		}
		if bytes.Contains(head, []byte(`"content":"hi"`)) || bytes.Contains(head, []byte("boom")) {
			t.Errorf("head holds a body: %q", head)
		}
		key, off, n := bodiesRef(head)
		chunk := tx.Bucket(bucketBodyChunks).Get(key)
		if !bytes.Equal(key, e.ID[:]) || off != 0 || n != len(chunk) {
			t.Errorf("bodies ref %x+%d:%d, chunk of %d bytes", key, off, n, len(chunk))
		}
		if !bytes.Contains(chunk, []byte("boom")) || !bytes.Contains(chunk, e.Data.RequestBody) {
			t.Errorf("chunk = %q", chunk)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	if _, err := a.Entry(audit.NewID(base)); !errors.Is(err, audit.ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
}

func TestEntryWithoutBodiesStoresNoBodyRecord(t *testing.T) {
	a, s := openAudit(t)
	e := entryAt(base, 401)
	e.Data = &audit.Data{ErrorCode: "invalid_api_key"}
	bare := entryAt(base.Add(time.Second), 200)
	bare.Data = nil
	mustAppend(t, a, e, bare)
	flush(t, s)
	for _, want := range []*audit.Entry{e, bare} {
		got, err := a.Entry(want.ID)
		if err != nil {
			t.Fatal(err)
		}
		jsonEq(t, "entry", got, want)
	}
	_ = s.View(func(tx *bbolt.Tx) error {
		for _, name := range [][]byte{bucketBodies, bucketRequestBodies, bucketBodyChunks} {
			if b := tx.Bucket(name); b != nil && b.Stats().KeyN != 0 {
				t.Errorf("%d %s records for entries without bodies", b.Stats().KeyN, name)
			}
		}
		return nil
	})
}

func TestAppendRefusesEntriesWithoutID(t *testing.T) {
	a, _ := openAudit(t)
	e := entryAt(base, 200)
	e.ID = audit.ID{}
	if a.AppendEntry(e) {
		t.Fatal("entry without id accepted")
	}
	r := usageAt(base, "/", "", "m", 1)
	r.ID = audit.ID{}
	if a.AppendUsage(r) {
		t.Fatal("usage record without id accepted")
	}
	if a.Rejected() != 2 {
		t.Fatalf("rejected = %d", a.Rejected())
	}
}

func TestAuditHoursSumEntriesOfABatch(t *testing.T) {
	a, s := openAudit(t)
	ok := entryAt(base.Add(5*time.Minute), 200)
	ok.DurationNs = int64(100 * time.Millisecond)
	ok2 := entryAt(base.Add(6*time.Minute), 201)
	ok2.DurationNs = int64(300 * time.Millisecond)
	cached := entryAt(base.Add(7*time.Minute), 200)
	cached.CacheType, cached.DurationNs = audit.CacheTypeExact, int64(time.Millisecond)
	failed := entryAt(base.Add(8*time.Minute), 502)
	failed.DurationNs = int64(2 * time.Second)
	refused := entryAt(base.Add(9*time.Minute), 401)
	refused.ProviderName, refused.DurationNs = "", int64(time.Millisecond)
	gone := entryAt(base.Add(70*time.Minute), 0)
	gone.DurationNs = int64(time.Second)
	mustAppend(t, a, ok, ok2, cached, failed, refused, gone)
	flush(t, s)

	rows, err := a.AuditHours(base, base.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := []audit.AuditHour{
		{Hour: base, Provider: "", StatusCounts: audit.StatusCounts{Requests: 1, Status4xx: 1}, DurationNs: int64(time.Millisecond)},
		{Hour: base, Provider: "openai-main", StatusCounts: audit.StatusCounts{Requests: 4, Status2xx: 3, Status5xx: 1},
			DurationNs: int64(2401 * time.Millisecond), LatencyCount: 2, LatencyNs: int64(400 * time.Millisecond)},
		{Hour: base.Add(time.Hour), Provider: "openai-main", StatusCounts: audit.StatusCounts{Requests: 1, StatusOther: 1},
			DurationNs: int64(time.Second)},
	}
	jsonEq(t, "hour rows", rows, want)
	if rows, _ := a.AuditHours(base.Add(time.Hour), time.Time{}); len(rows) != 1 {
		t.Fatalf("open-ended range: %d rows", len(rows))
	}
}

// indexKeyCount counts the entry ids in the postings of the audit index.
func indexKeyCount(t *testing.T, s interface {
	View(func(*bbolt.Tx) error) error
}) (n int) {
	t.Helper()
	_ = s.View(func(tx *bbolt.Tx) error {
		if b := tx.Bucket(bucketIndex); b != nil {
			return b.ForEach(func(k, v []byte) error {
				if len(v) == 0 {
					n++
				} else {
					n += len(v) / 16
				}
				return nil
			})
		}
		return nil
	})
	return n
}

func TestDeleteEntriesBeforeTakesIndexesAndHours(t *testing.T) {
	a, s := openAudit(t)
	var es []*audit.Entry
	for i := range 30 {
		es = append(es, entryAt(base.Add(time.Duration(i)*10*time.Minute), 200+i%4*100))
	}
	mustAppend(t, a, es...)
	flush(t, s)
	perEntry := indexKeyCount(t, s) / len(es)

	cutoff := base.Add(2 * time.Hour) // entries 0..11 go
	total := 0
	for {
		n, err := a.DeleteEntriesBefore(cutoff, 5)
		if err != nil {
			t.Fatal(err)
		}
		total += n
		if n < 5 {
			break
		}
	}
	if total != 12 {
		t.Fatalf("deleted %d, want 12", total)
	}
	if got := indexKeyCount(t, s); got != perEntry*18 {
		t.Fatalf("%d index keys left, want %d", got, perEntry*18)
	}
	for _, e := range es[:12] {
		if _, err := a.Entry(e.ID); !errors.Is(err, audit.ErrNotFound) {
			t.Fatalf("deleted entry still there: %v", err)
		}
	}
	p, err := a.ListEntries(audit.EntryQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if p.Total != 18 || len(p.Entries) != 18 {
		t.Fatalf("after retention: total %d, %d entries", p.Total, len(p.Entries))
	}
	p, _ = a.ListEntries(audit.EntryQuery{SessionID: "s1", Limit: 100})
	if p.Total != 18 {
		t.Fatalf("session index total %d", p.Total)
	}
	rows, _ := a.AuditHours(time.Time{}, time.Time{})
	if len(rows) == 0 || rows[0].Hour.Before(cutoff) {
		t.Fatalf("hour rows before the cutoff kept: %+v", rows)
	}
}

func TestCloseCommitsQueuedRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "close.db")
	s, err := store.Open(store.Options{Path: path, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	a := NewAudit(s)
	e := entryAt(base, 200)
	u := usageAt(base, "/a", "s", "m", 1)
	mustAppend(t, a, e)
	mustAppendUsage(t, a, u)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = store.Open(store.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a = NewAudit(s)
	if _, err := a.Entry(e.ID); err != nil {
		t.Fatalf("entry lost on close: %v", err)
	}
	rows, _ := a.UsageAggregates(audit.Daily, time.Time{}, time.Time{})
	if len(rows) != 1 || rows[0].Requests != 1 {
		t.Fatalf("usage lost on close: %+v", rows)
	}
}

// TestBodiesRecordVersions: a version 1 record, which held the request
// body too, still reads; a body recorded as invalid JSON reads back as a
// JSON string.
func TestBodiesRecordVersions(t *testing.T) {
	v1 := []byte{bodiesVersion1}
	v1 = appendBody(v1, json.RawMessage(`{"q":1}`))
	v1 = appendBody(v1, json.RawMessage(`{"a":2}`))
	v1 = append(v1, 0, 0)
	e := &audit.Entry{}
	if err := restoreBodies(e, v1); err != nil {
		t.Fatal(err)
	}
	if string(e.Data.RequestBody) != `{"q":1}` || string(e.Data.ResponseBody) != `{"a":2}` {
		t.Fatalf("v1 read as %s / %s", e.Data.RequestBody, e.Data.ResponseBody)
	}
	restoreRequestBody(e, []byte(`{"model":`))
	if string(e.Data.RequestBody) != `"{\"model\":"` {
		t.Fatalf("invalid body read as %s", e.Data.RequestBody)
	}
	if err := restoreBodies(e, []byte{9}); err == nil {
		t.Fatal("unknown version read")
	}
}
