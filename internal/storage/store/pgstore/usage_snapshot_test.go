package pgstore

import (
	"context"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/testkit/audittest"
)

// TestUsageSnapshotCountsWhatItSummed: the spend read at a snapshot
// sums exactly the records CountedIn names with it: not a record written
// after, nor one whose transaction began before the snapshot but
// committed after it, nor one never written.
func TestUsageSnapshotCountsWhatItSummed(t *testing.T) {
	a, db := openAudit(t, AuditOptions{})
	uq := audit.NewUsageQueries(a, nil)
	now := time.Now().UTC()
	day := now.Truncate(24 * time.Hour)
	r1 := audittest.UsageAt(now.Add(-time.Minute), "/team/a", "s", "m", 0.005)
	audittest.MustAppendUsage(t, a, r1)
	audittest.Flush(t, a)

	// A transaction writing a record is open when the snapshot is taken.
	ctx := context.Background()
	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	open := audittest.UsageAt(now.Add(-time.Minute), "/team/b", "s", "m", 1)
	if _, err := tx.Exec(ctx, `INSERT INTO mg_usage_records (id, ts, user_path, record) VALUES ($1, $2, $3, '{}')`,
		open.ID[:], now, "/team/b"); err != nil {
		t.Fatal(err)
	}

	spend, snap, err := uq.SpendSnapshot("/team", false, day)
	if err != nil || snap == "" {
		t.Fatalf("snapshot %q: %v", snap, err)
	}
	if got := spend["/team"]; got != 0.005 {
		t.Fatalf("spend at the snapshot %v, want 0.005", got)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r2 := audittest.UsageAt(now, "/team/a", "s", "m", 0.003)
	audittest.MustAppendUsage(t, a, r2)
	audittest.Flush(t, a)
	never := audittest.UsageAt(now, "/team/a", "s", "m", 0.003)

	got, err := uq.Counted([][16]byte{r1.ID, r2.ID, open.ID, never.ID}, snap)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != r1.ID {
		t.Fatalf("counted %v, want only the record written before the snapshot", got)
	}
	// A snapshot taken now holds them all.
	_, snap2, err := uq.SpendSnapshot("/team", false, day)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := uq.Counted([][16]byte{r1.ID, r2.ID, open.ID, never.ID}, snap2); err != nil || len(got) != 3 {
		t.Fatalf("counted at a later snapshot %v, %v; want 3", got, err)
	}
}
