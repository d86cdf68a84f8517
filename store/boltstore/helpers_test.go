package boltstore

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/modelgate/modelgate/store"
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

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
