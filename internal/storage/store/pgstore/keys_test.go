package pgstore

import (
	"bytes"
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

// TestKeysBackend: Put and Delete are visible to Load at once, PutLater
// after Flush, an empty store loads nothing, and Load stops at the
// callback's error.
func TestKeysBackend(t *testing.T) {
	db, _ := newTestDB(t)
	b := NewKeys(db)
	defer b.Close()
	load := func() map[string]string {
		got := map[string]string{}
		if err := b.Load(func(k, v []byte) error { got[string(k)] = string(v); return nil }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := load(); len(got) != 0 {
		t.Fatalf("empty store loaded %v", got)
	}
	if err := b.Delete([]byte("missing")); err != nil {
		t.Fatal("delete on an empty store:", err)
	}
	if err := b.Put([]byte("a"), []byte("1")); err != nil {
		t.Fatal(err)
	}
	if err := b.Put([]byte("b"), []byte("2")); err != nil {
		t.Fatal(err)
	}
	if err := b.Put([]byte("b"), []byte("22")); err != nil {
		t.Fatal(err)
	}
	if !b.PutLater([]byte("c"), []byte("3")) {
		t.Fatal("PutLater refused")
	}
	if err := b.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete([]byte("a")); err != nil {
		t.Fatal(err)
	}
	if got := load(); len(got) != 2 || got["b"] != "22" || got["c"] != "3" {
		t.Fatalf("loaded %v", got)
	}
	stop := bytes.ErrTooLarge
	if err := b.Load(func(k, v []byte) error { return stop }); err != stop {
		t.Fatalf("Load error %v, want the callback's", err)
	}
}

// TestKeysPutLaterCoalesces: many queued values of one entry end as the
// last one, the background writer lands them without a Flush, a Delete
// drops a queued value so it cannot come back, and Close writes what is
// left and refuses more.
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
	b.PutLater([]byte("used/gone"), []byte("1"))
	if err := b.Delete([]byte("used/gone")); err != nil {
		t.Fatal(err)
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
	_ = db.Pool.QueryRow(t.Context(), `SELECT count(*) FROM mg_keys WHERE name IN ('used/y', 'used/gone', 'used/z')`).Scan(&n)
	if n != 1 {
		t.Fatalf("%d of used/y (written at Close), used/gone (deleted) and used/z (refused) stored, want 1", n)
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

// TestKeysServiceOnPostgres: keys, deactivations and last-used times come
// back after a restart, and a second process opening the same database
// sees the same keys.
func TestKeysServiceOnPostgres(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()).UTC() }
	db, dsn := newTestDB(t)
	kb := NewKeys(db)
	s, err := keys.Open(kb, keys.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	k, secret, err := s.Create(keys.NewKey{Name: "persist", UserPath: "/p", DashboardAccess: true})
	if err != nil {
		t.Fatal(err)
	}
	k2, secret2, err := s.Create(keys.NewKey{Name: "off"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Deactivate(k2.ID); err != nil {
		t.Fatal(err)
	}
	s.Authenticate(secret)
	now.Add(int64(30 * time.Second))
	s.Authenticate(secret) // only in memory until Close

	// A second process sees the keys as they are stored now.
	other, err := keys.Open(NewKeys(openTestDB(t, dsn)), keys.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	if m := other.Authenticate(secret); !m.Found || m.ID != k.ID {
		t.Fatalf("second process: %+v", m)
	}

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := kb.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = keys.Open(NewKeys(openTestDB(t, dsn)), keys.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	if m := s.Authenticate(secret); !m.Found || m.State != keys.StateActive || m.UserPath != "/p" || !m.DashboardAccess || m.ID != k.ID {
		t.Fatalf("after restart: %+v", m)
	}
	if m := s.Authenticate(secret2); m.State != keys.StateDeactivated {
		t.Fatalf("deactivation lost: %+v", m)
	}
	got, _ := s.Get(k.ID)
	if got.LastUsedAt == nil || !got.LastUsedAt.Equal(clock()) {
		t.Fatalf("last used after restart: %v, want %v", got.LastUsedAt, clock())
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
