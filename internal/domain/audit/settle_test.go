package audit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/storage/store/boltstore"
)

// TestReadsSeeQueuedRecords: with a flush interval far longer than the
// test, the records reach the store only when a read commits them; every
// read of the log and of usage shows them.
func TestReadsSeeQueuedRecords(t *testing.T) {
	st := openQueueingStore(t)
	when := now.Add(-time.Minute)
	e := &audit.Entry{ID: audit.NewID(when), Timestamp: when, Method: "POST", Path: "/v1/chat/completions",
		StatusCode: 200, UserPath: "/t", SessionID: "s1"}
	cost := 1.5
	u := &audit.UsageRecord{ID: audit.NewID(when), RequestID: e.ID, Timestamp: when, UserPath: "/t", SessionID: "s1", TotalCost: &cost}
	if !st.AppendEntry(e) || !st.AppendUsage(u) {
		t.Fatal("refused")
	}
	q, uq := audit.NewQueries(st, clock), audit.NewUsageQueries(st, clock)
	win := window(t, "days=1")

	list, err := q.List(audit.EntryQuery{Limit: 10})
	if err != nil || list.Total != 1 {
		t.Fatalf("list: %d entries, %v", list.Total, err)
	}
	if _, err := q.Get(e.ID.String()); err != nil {
		t.Fatalf("get: %v", err)
	}
	stats, err := q.Stats(win)
	requests := int64(0)
	for _, b := range stats.Buckets {
		requests += b.Requests
	}
	if err != nil || requests != 1 {
		t.Fatalf("stats: %d requests, %v", requests, err)
	}
	sum, err := uq.Summary(win, audit.UsageFilter{})
	if err != nil || sum.TotalRequests != 1 {
		t.Fatalf("summary: %d requests, %v", sum.TotalRequests, err)
	}
	tot, err := uq.Totals("/t", now.Add(-time.Hour))
	if err != nil || tot.Requests != 1 {
		t.Fatalf("totals: %d requests, %v", tot.Requests, err)
	}
	page, err := uq.Sessions(audit.SessionQuery{Limit: 10})
	if err != nil || len(page.Sessions) != 1 {
		t.Fatalf("sessions: %d, %v", len(page.Sessions), err)
	}
}

// failingFlush is entry storage whose commits fail.
type failingFlush struct{ *boltstore.Audit }

func (failingFlush) Flush(context.Context) error { return errors.New("disk gone") }

// TestReadsAnswerWhenACommitFails: a read answers from what is committed
// when committing what is queued fails; the writer reports its own
// failures.
func TestReadsAnswerWhenACommitFails(t *testing.T) {
	st, s := openStore(t)
	when := now.Add(-time.Minute)
	if !st.AppendEntry(&audit.Entry{ID: audit.NewID(when), Timestamp: when, Method: "GET", Path: "/v1/models", StatusCode: 200}) {
		t.Fatal("refused")
	}
	flush(t, s)
	list, err := audit.NewQueries(failingFlush{st}, clock).List(audit.EntryQuery{Limit: 10})
	if err != nil || list.Total != 1 {
		t.Fatalf("list: %d entries, %v", list.Total, err)
	}
}
