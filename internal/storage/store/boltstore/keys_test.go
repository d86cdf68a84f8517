package boltstore

import (
	"bytes"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/keys"
)

// TestKeysBackend: Put and Delete are visible to Load at once, PutLater
// after the store has flushed, and an empty store loads nothing.
func TestKeysBackend(t *testing.T) {
	st, _ := tempStore(t)
	b := NewKeys(st)
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
	if !b.PutLater([]byte("c"), []byte("3")) {
		t.Fatal("PutLater refused")
	}
	if err := st.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete([]byte("a")); err != nil {
		t.Fatal(err)
	}
	if got := load(); len(got) != 2 || got["b"] != "2" || got["c"] != "3" {
		t.Fatalf("loaded %v", got)
	}
	// Load stops at the callback's error.
	stop := bytes.ErrTooLarge
	if err := b.Load(func(k, v []byte) error { return stop }); err != stop {
		t.Fatalf("Load error %v, want the callback's", err)
	}
}

// TestKeysSurviveRestart: keys, deactivations and last-used times come
// back from the file.
func TestKeysSurviveRestart(t *testing.T) {
	c := newClock()
	st, path := tempStore(t)
	s, err := keys.Open(NewKeys(st), keys.Options{Now: c.Now})
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
	c.Add(30 * time.Second)
	s.Authenticate(secret) // only in memory until Close
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st = openStore(t, path)
	defer st.Close()
	s, err = keys.Open(NewKeys(st), keys.Options{Now: c.Now})
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
	if got.LastUsedAt == nil || !got.LastUsedAt.Equal(c.Now()) {
		t.Fatalf("last used after restart: %v, want %v", got.LastUsedAt, c.Now())
	}
}
