package pgstore

import (
	"context"
	"testing"
	"time"
)

// TestBatchClaim: a batch claimed by one process cannot be claimed by
// another until released, and a claim dies with its process's connection.
func TestBatchClaim(t *testing.T) {
	db, dsn := newTestDB(t)
	other := openTestDB(t, dsn)
	a, b := NewBatches(db), NewBatches(other)
	ctx := context.Background()
	release, ok, err := a.Claim(ctx, "batch_1")
	if err != nil || !ok {
		t.Fatalf("first claim: ok %v, %v", ok, err)
	}
	if _, ok, err := b.Claim(ctx, "batch_1"); err != nil || ok {
		t.Fatalf("a claimed batch was claimed again by another process: ok %v, %v", ok, err)
	}
	relOther, ok, err := b.Claim(ctx, "batch_2")
	if err != nil || !ok {
		t.Fatalf("another batch: ok %v, %v", ok, err)
	}
	relOther()
	release()
	rel, ok, err := b.Claim(ctx, "batch_1")
	if err != nil || !ok {
		t.Fatalf("claim after release: ok %v, %v", ok, err)
	}
	// The holder's process dies: the server ends its session, the claim
	// goes with it.
	// Only this test's database: the server is shared with the tests of
	// other packages running at the same time, whose advisory locks
	// (a migration's) are not this test's to end.
	if _, err := db.Pool.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()
		AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`); err != nil {
		t.Fatal(err)
	}
	defer rel()
	// The server ends the session asynchronously.
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, ok, err := a.Claim(ctx, "batch_1")
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			r()
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the claim of a process whose session ended was not released")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
