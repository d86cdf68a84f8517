package boltstore

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// TestRecordsTooLongForAKeyAreDroppedAlone: an entry and a usage record
// whose model is too long for a bbolt key (issue 35: a 40,000-character
// passthrough model) are dropped when queued and counted by kind and
// reason; the records around them are stored.
func TestRecordsTooLongForAKeyAreDroppedAlone(t *testing.T) {
	a, s := openAudit(t)
	long := strings.Repeat("m", 40_000)
	good := entryAt(base.Add(time.Minute), 200)
	bad := entryAt(base.Add(2*time.Minute), 200)
	bad.RequestedModel, bad.ResolvedModel = long, long
	good2 := entryAt(base.Add(3*time.Minute), 200)
	mustAppend(t, a, good, bad, good2)
	mustAppendUsage(t, a,
		usageAt(base.Add(time.Minute), "/team/a", "s1", "m", 1),
		usageAt(base.Add(2*time.Minute), "/team/a", "s1", long, 1),
		usageAt(base.Add(3*time.Minute), "/team/a", "s1", "m", 1))
	flush(t, s)
	for _, e := range []*audit.Entry{good, good2} {
		if _, err := a.Entry(e.ID); err != nil {
			t.Fatalf("entry beside the bad one: %v", err)
		}
	}
	rows, err := a.UsageAggregates(audit.Hourly, base, base.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Model != "m" || rows[0].Requests != 2 {
		t.Fatalf("hour rows = %+v, want the two good records only", rows)
	}
	want := []store.Drop{{Kind: KindEntry, Reason: "key_too_large", Count: 1}, {Kind: KindUsage, Reason: "key_too_large", Count: 1}}
	if got := s.Drops(); !slices.Equal(got, want) {
		t.Fatalf("drops = %+v, want %+v", got, want)
	}
}

// TestBatchWithARowKeyBboltRefusesCommitsTheRest: a usage record whose
// aggregate key bbolt refuses when the batch's rows are written (past
// the check made when it is queued) fails the batch's transaction; the
// writer drops that record alone, and the batch's other records are
// stored and summed in their rows exactly once, though the batch was
// split over several transactions.
func TestBatchWithARowKeyBboltRefusesCommitsTheRest(t *testing.T) {
	a, s := openAudit(t)
	const n, badAt = 12, 7
	for i := range n {
		r := usageAt(base.Add(time.Duration(i)*time.Second), "/team/a", "s1", "m", 1)
		w, err := a.newUsageWrite(r)
		if err != nil {
			t.Fatal(err)
		}
		if i == badAt {
			w.dayKey = []byte(strings.Repeat("k", 40_000))
		}
		if !s.Enqueue(store.Write{Kind: KindUsage, Apply: w.apply}) {
			t.Fatal("queue refused a record")
		}
	}
	if err := s.Flush(t.Context()); err == nil {
		t.Fatal("Flush hid the dropped record")
	}
	hours, err := a.UsageAggregates(audit.Hourly, base, base.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(hours) != 1 || hours[0].Requests != n-1 || hours[0].Cost.Float() != n-1 {
		t.Fatalf("hour rows = %+v, want %d requests counted once", hours, n-1)
	}
	stored := 0
	if err := a.UsageRecords(time.Time{}, time.Time{}, func(*audit.UsageRecord) bool { stored++; return true }); err != nil {
		t.Fatal(err)
	}
	sess, _, err := a.Sessions(audit.SessionQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if stored != n-1 || len(sess) != 1 || sess[0].Requests != n-1 {
		t.Fatalf("%d records, sessions %+v; want %d in both", stored, sess, n-1)
	}
	want := []store.Drop{{Kind: KindUsage, Reason: "key_too_large", Count: 1}}
	if got := s.Drops(); !slices.Equal(got, want) {
		t.Fatalf("drops = %+v, want %+v", got, want)
	}
}
