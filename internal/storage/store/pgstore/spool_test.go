package pgstore_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/storage/store"
	"github.com/modelgate/modelgate/internal/storage/store/boltstore"
	"github.com/modelgate/modelgate/internal/storage/store/pgstore"
	"github.com/modelgate/modelgate/internal/testkit/audittest"
	"github.com/modelgate/modelgate/internal/testkit/pgtest"
)

// spoolCount is the number of rows of table and the requests the hourly
// usage aggregates count.
func spoolCounts(t *testing.T, dsn string) (entries, usage, aggregated int64) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for q, dst := range map[string]*int64{
		"SELECT count(*) FROM mg_audit_entries":                         &entries,
		"SELECT count(*) FROM mg_usage_records":                         &usage,
		"SELECT coalesce(sum(requests), 0)::bigint FROM mg_usage_hours": &aggregated,
	} {
		if err := c.QueryRow(ctx, q).Scan(dst); err != nil {
			t.Fatal(err)
		}
	}
	return
}

// TestSpoolKeepsWhatPostgresCannotTake: with the server stopped, records
// appended and then a clean Close go to the local spool (Close reports
// no loss); once the server is back a new Audit on the same spool writes
// them, exactly once, also when the same spooled records are found twice
// (a crash between the commit and the spool's removal).
func TestSpoolKeepsWhatPostgresCannotTake(t *testing.T) {
	srv := pgtest.StartServer(t)
	bolt, err := store.Open(store.Options{Path: filepath.Join(t.TempDir(), "spool.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer bolt.Close()
	spool := boltstore.NewAuditSpool(bolt)
	db, err := pgstore.Open(context.Background(), srv.DSN(), nil)
	if err != nil {
		t.Fatal(err)
	}
	a := pgstore.NewAudit(db, pgstore.AuditOptions{Spool: spool, MaxBackoff: 100 * time.Millisecond})
	rec := audit.NewRecorder(a, a, nil)

	srv.Stop()
	for i := range 25 {
		ts := audittest.Base.Add(time.Duration(i) * time.Second)
		rec.Finish(audittest.EntryAt(ts, 200), audittest.UsageAt(ts, "/a", "s1", "gpt", 0.5))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.Close(ctx); err != nil {
		t.Fatalf("a clean stop with PostgreSQL down: %v", err)
	}
	_ = db.Destruct()
	n, err := spool.Len()
	if err != nil || n != 50 {
		t.Fatalf("spool holds %d records (%v), want 50", n, err)
	}
	// A crash after a commit and before the removal leaves the records
	// spooled although written: spool them twice.
	_, values, err := spool.Oldest(100)
	if err != nil {
		t.Fatal(err)
	}
	if err := spool.Put(values); err != nil {
		t.Fatal(err)
	}

	srv.Start()
	db, err = pgstore.Open(context.Background(), srv.DSN(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Destruct()
	a = pgstore.NewAudit(db, pgstore.AuditOptions{Spool: spool, MaxBackoff: 100 * time.Millisecond})
	defer a.Close(context.Background())
	deadline := time.Now().Add(20 * time.Second)
	for a.Stats().Spooled > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the spool still holds %d records 20 s after PostgreSQL returned", a.Stats().Spooled)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n, _ := spool.Len(); n != 0 {
		t.Fatalf("the spool holds %d records after draining", n)
	}
	entries, usage, aggregated := spoolCounts(t, srv.DSN())
	if entries != 25 || usage != 25 || aggregated != 25 {
		t.Fatalf("stored %d entries, %d usage records, %d requests aggregated; want 25 each", entries, usage, aggregated)
	}
}
