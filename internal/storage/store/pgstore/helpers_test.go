package pgstore

import (
	"context"
	"testing"

	"github.com/modelgate/modelgate/internal/testkit/pgtest"
)

// newTestDB opens (and migrates) a fresh database for t, closed when t
// ends, and returns it with its DSN.
func newTestDB(t testing.TB) (*DB, string) {
	t.Helper()
	dsn := pgtest.NewDatabase(t)
	return openTestDB(t, dsn), dsn
}

// openTestDB opens dsn again: another pool on the same database, as a
// second process (or a restart) would.
func openTestDB(t testing.TB, dsn string) *DB {
	t.Helper()
	db, err := Open(context.Background(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Destruct() })
	return db
}
