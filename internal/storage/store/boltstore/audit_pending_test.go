package boltstore

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/storage/store"
)

func TestPendingUntilCommitted(t *testing.T) {
	s, err := store.Open(store.Options{Path: filepath.Join(t.TempDir(), "audit.db"), NoSync: true, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a := NewAudit(s)
	if a.Pending() {
		t.Fatal("pending before anything was queued")
	}
	if !a.AppendEntry(entryAt(time.Now(), 200)) {
		t.Fatal("refused")
	}
	if !a.Pending() {
		t.Fatal("a queued entry is not pending")
	}
	if err := a.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if a.Pending() {
		t.Fatal("still pending once committed")
	}
}
