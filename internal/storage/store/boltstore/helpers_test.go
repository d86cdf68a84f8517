package boltstore

import (
	"path/filepath"
	"testing"

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
