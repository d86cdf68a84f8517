package pgstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/keys"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// closedPortDB returns a DB whose pool points at a loopback port nobody
// listens on: every operation fails to connect.
func closedPortDB(t *testing.T) *DB {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	pool, err := pgxpool.New(context.Background(), "postgres://u:secretpw@"+addr+"/db?sslmode=disable&connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return &DB{Pool: pool, logger: zap.NewNop()}
}

// TestUnreachableIsErrUnavailable: every domain's reads and writes
// against a server that does not answer fail with store.ErrUnavailable,
// without the password in the message; an answer of the server (a
// constraint violation) is not.
func TestUnreachableIsErrUnavailable(t *testing.T) {
	db := closedPortDB(t)
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, store.ErrUnavailable) {
			t.Errorf("%s: %v, want ErrUnavailable", what, err)
		} else if err != nil && strings.Contains(err.Error(), "secretpw") {
			t.Errorf("%s: the error shows the password: %v", what, err)
		}
	}
	kb := &Keys{db: db}
	check("keys put", kb.Put([]byte("a"), []byte("b")))
	check("keys load", kb.Load(func(k, v []byte) error { return nil }))
	_, _, err := NewRateLimitRules(db).LoadRules()
	check("rules load", err)
	check("budgets settings", NewBudgets(db).PutSettings(budgets.Settings{}))
	check("virtual model delete", NewVirtualModels(db).DeleteVirtualModel("x"))
	_, err = NewBatches(db).Batch("x")
	check("batch read", err)

	// A keys service over it refuses an admin write with the same error.
	live, _ := newTestDB(t)
	svcBackend := NewKeys(live)
	svc, err := keys.Open(svcBackend, keys.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = svcBackend.Close()
	_ = live.Destruct()
	_, _, err = svc.Create(keys.NewKey{Name: "x"})
	check("key create on a closed pool", err)

	// A server answer is not an outage.
	db2, _ := newTestDB(t)
	_, err = db2.Pool.Exec(t.Context(), `INSERT INTO mg_keys (name, value) VALUES (NULL, NULL)`)
	if err == nil || errors.Is(classify(err), store.ErrUnavailable) {
		t.Fatalf("a constraint violation classified as unavailable: %v", err)
	}
	if !unreachable(&pgconn.PgError{Code: "57P01"}) || unreachable(fmt.Errorf("x")) {
		t.Fatal("server shutdown codes")
	}
}

// TestOpenConcurrently: processes starting at once on an empty database
// all succeed, and each migration is applied once.
func TestOpenConcurrently(t *testing.T) {
	_, dsn := newTestDB(t)
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := Open(context.Background(), dsn, nil)
			if err != nil {
				errs <- err
				return
			}
			db.Destruct()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	db := openTestDB(t, dsn)
	var n int
	if err := db.Pool.QueryRow(t.Context(), `SELECT count(*) FROM modelgate_migrations`).Scan(&n); err != nil || n != len(migrations) {
		t.Fatalf("%d migrations recorded (%v), want %d", n, err, len(migrations))
	}
}

// TestClosedConnectionIsUnavailable: a statement on a connection that was
// already closed under it counts as the server being unreachable.
func TestClosedConnectionIsUnavailable(t *testing.T) {
	db, _ := newTestDB(t)
	conn, err := db.Pool.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	_ = conn.Conn().Close(context.Background())
	_, err = conn.Exec(context.Background(), "SELECT 1")
	if err == nil {
		t.Fatal("a statement on a closed connection succeeded")
	}
	if !errors.Is(classify(err), store.ErrUnavailable) {
		t.Fatalf("%v is not classified as unavailable", err)
	}
}
