package storetest

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/keys"
)

// KeysBackend checks a keys.Backend: Put replaces, Delete of a missing
// entry is fine, PutLater lands after flush (and replaces), Load goes in
// byte order of the entry names and stops at the callback's error.
func KeysBackend(t *testing.T, b keys.Backend, flush func() error) {
	t.Helper()
	load := func() ([]string, map[string]string) {
		t.Helper()
		var order []string
		got := map[string]string{}
		if err := b.Load(func(k, v []byte) error {
			order = append(order, string(k))
			got[string(k)] = string(v)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return order, got
	}
	if order, _ := load(); len(order) != 0 {
		t.Fatalf("empty backend loaded %v", order)
	}
	if err := b.Delete([]byte("missing")); err != nil {
		t.Fatal("deleting a missing entry:", err)
	}
	for _, kv := range [][2]string{{"key/b", "1"}, {"key/B", "2"}, {"key/b", "3"}, {"key/a", "4"}} {
		if err := b.Put([]byte(kv[0]), []byte(kv[1])); err != nil {
			t.Fatal(err)
		}
	}
	if !b.PutLater([]byte("used/a"), []byte("x")) || !b.PutLater([]byte("used/a"), []byte("y")) || !b.PutLater([]byte("used/b"), []byte("z")) {
		t.Fatal("PutLater refused")
	}
	if err := flush(); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete([]byte("key/a"), []byte("used/b"), []byte("never")); err != nil {
		t.Fatal(err)
	}
	order, got := load()
	want := []string{"key/B", "key/b", "used/a"}
	if len(order) != len(want) || order[0] != want[0] || order[1] != want[1] || order[2] != want[2] {
		t.Fatalf("load order %q, want %q", order, want)
	}
	if got["key/b"] != "3" || got["used/a"] != "y" {
		t.Fatalf("loaded %v", got)
	}
	stop := errors.New("stop")
	n := 0
	if err := b.Load(func(k, v []byte) error { n++; return stop }); err != stop || n != 1 {
		t.Fatalf("Load returned %v after %d calls, want the callback's error after 1", err, n)
	}
}

// KeysServiceSurvivesRestart runs a keys service over the backend open
// returns across a restart: keys, a deactivation and a last-used time
// written only when the service closes come back. open returns the
// engine's backend as a newly started process sees it; each call ends the
// backend it returned before (writing what it has queued).
func KeysServiceSurvivesRestart(t *testing.T, open func() keys.Backend) {
	t.Helper()
	var ns atomic.Int64
	ns.Store(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC).UnixNano())
	now := func() time.Time { return time.Unix(0, ns.Load()).UTC() }
	s, err := keys.Open(open(), keys.Options{Now: now})
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
	ns.Add(int64(30 * time.Second))
	s.Authenticate(secret) // only in memory until Close
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = keys.Open(open(), keys.Options{Now: now})
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
	if got.LastUsedAt == nil || !got.LastUsedAt.Equal(now()) {
		t.Fatalf("last used after restart: %v, want %v", got.LastUsedAt, now())
	}
}

// KeysDeleteDropsQueued checks that a Delete wins over a PutLater of the
// same entry queued before it: once flushed, the deleted entry does not
// come back.
func KeysDeleteDropsQueued(t *testing.T, b keys.Backend, flush func() error) {
	t.Helper()
	if !b.PutLater([]byte("used/gone"), []byte("1")) || !b.PutLater([]byte("used/kept"), []byte("2")) {
		t.Fatal("PutLater refused")
	}
	if err := b.Delete([]byte("used/gone")); err != nil {
		t.Fatal(err)
	}
	if err := flush(); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	if err := b.Load(func(k, v []byte) error { got[string(k)] = string(v); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got["used/kept"] != "2" {
		t.Fatalf("loaded %v, want only used/kept: a value queued before a Delete came back after it", got)
	}
}
