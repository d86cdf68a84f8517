package boltstore

import (
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/storage/store"
)

// openStore opens a store at path.
func openStore(t testing.TB, path string) *store.Store {
	t.Helper()
	st, err := store.Open(store.Options{Path: path, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// tempStore opens a store in a fresh directory and returns it with its
// path; the store is closed when the test ends (closing twice is fine).
func tempStore(t testing.TB) (*store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mg.db")
	st := openStore(t, path)
	t.Cleanup(func() { st.Close() })
	return st, path
}

// clock is a settable test clock, safe to read from the services'
// background goroutines.
type clock struct{ ns atomic.Int64 }

func newClock() *clock {
	c := new(clock)
	c.ns.Store(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *clock) Now() time.Time { return time.Unix(0, c.ns.Load()).UTC() }

func (c *clock) Add(d time.Duration) { c.ns.Add(int64(d)) }
