// Package pgtest gives tests a fresh PostgreSQL database each.
//
// The server is MODELGATE_TEST_POSTGRES_DSN, by default the loopback
// server's database test as user postgres. When no server answers the test
// is skipped with a message saying so, unless MODELGATE_REQUIRE_POSTGRES=1
// (set by CI, which starts one), where it fails.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultDSN is the server used when MODELGATE_TEST_POSTGRES_DSN is unset.
const DefaultDSN = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// ServerDSN returns the DSN of the test server's maintenance database.
func ServerDSN() string {
	if v := os.Getenv("MODELGATE_TEST_POSTGRES_DSN"); v != "" {
		return v
	}
	return DefaultDSN
}

// NewDatabase creates an empty database for t, dropped when t ends, and
// returns its DSN. It skips (or fails, under MODELGATE_REQUIRE_POSTGRES=1)
// when the server cannot be reached.
func NewDatabase(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, ServerDSN())
	if err != nil {
		unavailable(t, err)
		return ""
	}
	defer admin.Close(context.Background())
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "mgtest_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: creating database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, ServerDSN())
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	u, err := url.Parse(ServerDSN())
	if err != nil {
		t.Fatalf("pgtest: MODELGATE_TEST_POSTGRES_DSN must be a postgres:// URL: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}

func unavailable(t testing.TB, err error) {
	t.Helper()
	if os.Getenv("MODELGATE_REQUIRE_POSTGRES") == "1" {
		t.Fatalf("PostgreSQL is required (MODELGATE_REQUIRE_POSTGRES=1) but %s does not answer: %v", ServerDSN(), err)
	}
	t.Skipf("skipped: no PostgreSQL at %s (%v); start one or set MODELGATE_TEST_POSTGRES_DSN", ServerDSN(), err)
}
