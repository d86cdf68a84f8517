package pgstore

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/keys"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// TestKeysPutLaterCoalesces: many queued values of one entry end as the
// last one, the background writer lands them without a Flush, and Close
// writes what is left and refuses more. (That a Delete drops a queued
// value is storetest.KeysDeleteDropsQueued.)
func TestKeysPutLaterCoalesces(t *testing.T) {
	db, _ := newTestDB(t)
	b := NewKeys(db)
	for i := 0; i < 100; i++ {
		if !b.PutLater([]byte("used/x"), []byte(fmt.Sprint(i))) {
			t.Fatal("PutLater refused")
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var v []byte
		_ = db.Pool.QueryRow(t.Context(), `SELECT value FROM mg_keys WHERE name = 'used/x'`).Scan(&v)
		if string(v) == "99" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("background write did not land: %q", v)
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.PutLater([]byte("used/y"), []byte("7"))
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if b.PutLater([]byte("used/z"), []byte("1")) {
		t.Fatal("PutLater accepted after Close")
	}
	if err := b.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	var n int
	_ = db.Pool.QueryRow(t.Context(), `SELECT count(*) FROM mg_keys WHERE name IN ('used/y', 'used/z')`).Scan(&n)
	if n != 1 {
		t.Fatalf("%d of used/y (written at Close) and used/z (refused) stored, want 1", n)
	}
}

// TestKeysConcurrentProcesses: two backends on one database (two
// processes) queue and put at once, under -race; every entry lands.
func TestKeysConcurrentProcesses(t *testing.T) {
	db, dsn := newTestDB(t)
	backends := []*Keys{NewKeys(db), NewKeys(openTestDB(t, dsn))}
	var wg sync.WaitGroup
	var failed atomic.Int32
	for p, b := range backends {
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 50; i++ {
					name := []byte(fmt.Sprintf("used/%d-%d-%d", p, g, i%10))
					if !b.PutLater(name, []byte(fmt.Sprint(i))) {
						failed.Add(1)
					}
					if i%10 == 0 {
						if err := b.Put([]byte("key/shared"), []byte(fmt.Sprint(p))); err != nil {
							failed.Add(1)
						}
					}
				}
			}()
		}
	}
	wg.Wait()
	for _, b := range backends {
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if failed.Load() != 0 {
		t.Fatalf("%d writes failed", failed.Load())
	}
	var n int
	_ = db.Pool.QueryRow(t.Context(), `SELECT count(*) FROM mg_keys`).Scan(&n)
	if n != 2*4*10+1 {
		t.Fatalf("%d entries stored, want %d", n, 2*4*10+1)
	}
}

// TestKeysSecondProcess: a second process opening the same database
// sees the keys as they are stored now, while the first still runs.
// (Keys surviving a restart is storetest.KeysServiceSurvivesRestart.)
func TestKeysSecondProcess(t *testing.T) {
	db, dsn := newTestDB(t)
	kb := NewKeys(db)
	defer kb.Close()
	s, err := keys.Open(kb, keys.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	k, secret, err := s.Create(keys.NewKey{Name: "persist", UserPath: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := keys.Open(NewKeys(openTestDB(t, dsn)), keys.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m := other.Authenticate(secret); !m.Found || m.ID != k.ID || m.UserPath != "/p" {
		t.Fatalf("second process: %+v", m)
	}
}

// BenchmarkKeysPutLater is the hot-path cost of queueing a last-used
// time: a map write under a mutex, no I/O.
func BenchmarkKeysPutLater(b *testing.B) {
	db, _ := newTestDB(b)
	k := NewKeys(db)
	defer k.Close()
	name := []byte("used/bench")
	val := []byte("12345678")
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			k.PutLater(name, val)
		}
	})
}

// TestKeysQueueSurvivesAnOutage: while the server does not answer, Flush
// fails with store.ErrUnavailable and keeps the queued entries (a newer
// value queued meanwhile wins); once a server answers they are written.
func TestKeysQueueSurvivesAnOutage(t *testing.T) {
	live, _ := newTestDB(t)
	down := closedPortDB(t)
	k := &Keys{db: down, log: zap.NewNop(), pending: map[string][]byte{}, wake: make(chan struct{}, 1)}
	k.PutLater([]byte("used/a"), []byte("1"))
	k.PutLater([]byte("used/b"), []byte("1"))
	if err := k.Flush(t.Context()); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("flush while down: %v", err)
	}
	k.PutLater([]byte("used/a"), []byte("2"))
	if len(k.pending) != 2 {
		t.Fatalf("queue after a failed write: %v", k.pending)
	}
	k.db = live
	if err := k.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	if err := k.Load(func(n, v []byte) error { got[string(n)] = string(v); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["used/a"] != "2" || got["used/b"] != "1" {
		t.Fatalf("after the outage: %v", got)
	}
}
