package pgstore

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestAuditOnCommit: the writer reports each committed transaction, with
// its records, to AuditOptions.OnCommit.
func TestAuditOnCommit(t *testing.T) {
	var mu sync.Mutex
	records := 0
	a, _ := openAudit(t, AuditOptions{OnCommit: func(d time.Duration, n int) {
		mu.Lock()
		defer mu.Unlock()
		if d <= 0 {
			t.Errorf("commit time %v", d)
		}
		records += n
	}})
	e, u := benchPair(time.Now(), 1, jsonBody(64))
	if !a.AppendEntry(e) || !a.AppendUsage(u) {
		t.Fatal("append refused")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if records != 2 {
		t.Errorf("OnCommit saw %d records, want 2", records)
	}
}
