package audit

import (
	"context"
	"testing"
	"time"
)

// fakeStorage records appends and deletions; accept decides whether the
// queue takes a record.
type fakeStorage struct {
	EntryStorage
	UsageStorage
	accept  bool
	entries []*Entry
	usage   []*UsageRecord
	// deletions: cutoffs passed and how many records remain to delete.
	entryCutoffs, usageCutoffs []time.Time
	leftEntries, leftUsage     int
}

func (f *fakeStorage) AppendEntry(e *Entry) bool {
	if f.accept {
		f.entries = append(f.entries, e)
	}
	return f.accept
}

func (f *fakeStorage) AppendUsage(r *UsageRecord) bool {
	if f.accept {
		f.usage = append(f.usage, r)
	}
	return f.accept
}

func (f *fakeStorage) DeleteEntriesBefore(cutoff time.Time, max int) (int, error) {
	f.entryCutoffs = append(f.entryCutoffs, cutoff)
	n := min(max, f.leftEntries)
	f.leftEntries -= n
	return n, nil
}

func (f *fakeStorage) DeleteUsageBefore(cutoff time.Time, max int) (int, error) {
	f.usageCutoffs = append(f.usageCutoffs, cutoff)
	n := min(max, f.leftUsage)
	f.leftUsage -= n
	return n, nil
}

func TestRetentionCutoffsAndBatches(t *testing.T) {
	now := time.Date(2026, 3, 30, 10, 45, 12, 0, time.UTC)
	st := &fakeStorage{leftEntries: 2500, leftUsage: 1000}
	r := Retention{Entries: st, Usage: st, AuditDays: 30, UsageDays: 90, Batch: 1000, Now: func() time.Time { return now }}
	ne, nu, err := r.RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ne != 2500 || nu != 1000 {
		t.Fatalf("deleted %d entries, %d usage", ne, nu)
	}
	wantE := time.Date(2026, 2, 28, 10, 0, 0, 0, time.UTC) // whole hour, 30 days back
	wantU := time.Date(2025, 12, 30, 10, 0, 0, 0, time.UTC)
	if len(st.entryCutoffs) != 3 || !st.entryCutoffs[0].Equal(wantE) {
		t.Fatalf("entry passes %v, want 3 at %v", st.entryCutoffs, wantE)
	}
	// 1000 = batch: one more pass finds nothing.
	if len(st.usageCutoffs) != 2 || !st.usageCutoffs[0].Equal(wantU) {
		t.Fatalf("usage passes %v, want 2 at %v", st.usageCutoffs, wantU)
	}
	forever := &fakeStorage{leftEntries: 10}
	r = Retention{Entries: forever, Usage: forever, Now: func() time.Time { return now }}
	if ne, nu, _ := r.RunOnce(context.Background()); ne != 0 || nu != 0 || len(forever.entryCutoffs) != 0 {
		t.Fatal("0 days must keep everything")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	st = &fakeStorage{leftEntries: 5000}
	r = Retention{Entries: st, AuditDays: 1, Batch: 10, Now: func() time.Time { return now }}
	if ne, _, _ := r.RunOnce(ctx); ne != 0 {
		t.Fatalf("cancelled run deleted %d", ne)
	}
}
