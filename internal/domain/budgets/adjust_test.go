package budgets

import (
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// TestAdjustMovesTheSharedSpend: the changes of cost of records in the
// current period move the spend in the store, read by every process;
// records of an earlier period, or before the last reset, change
// nothing; without a store the memory moves.
func TestAdjustMovesTheSharedSpend(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	st := newMemSpend()
	var svcs []*Service
	for range 2 {
		s, err := New(Options{Spend: st, Now: func() time.Time { return now }, QuotaTemplates: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Put(Key{"/team", Daily}, 10, false); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Put(Key{"/c", Monthly}, 10, true); err != nil {
			t.Fatal(err)
		}
		svcs = append(svcs, s)
	}
	svcs[0].Charge("/team/a", 0.5, now)
	svcs[1].Charge("/c/alice", 0.5, now)
	a := svcs[1].Adjust()
	a.Add("/team/a", now.Add(-time.Hour), catalog.NanosOf(0.25))
	a.Add("/team/b", now.Add(-2*time.Hour), catalog.NanosOf(-0.1))
	a.Add("/team/a", now.Add(-24*time.Hour), catalog.NanosOf(5)) // yesterday: another period
	a.Add("/c/alice/x", now.Add(-24*time.Hour), catalog.NanosOf(1))
	if err := a.Apply(); err != nil {
		t.Fatal(err)
	}
	for i, s := range svcs {
		s.tr.refresh(s.tr.snap.Load().list, now)
		if got, _ := s.tr.Spent(Key{"/team", Daily}, "/team", now); catalog.NanosOf(got) != catalog.NanosOf(0.65) {
			t.Fatalf("process %d: /team spent %v, want 0.65", i+1, got)
		}
		if got, _ := s.tr.Spent(Key{"/c", Monthly}, "/c/alice", now); catalog.NanosOf(got) != catalog.NanosOf(1.5) {
			t.Fatalf("process %d: /c/alice spent %v, want 1.5", i+1, got)
		}
	}
	// Before the last reset: nothing.
	if _, err := svcs[0].ResetOne(Key{"/team", Daily}); err != nil {
		t.Fatal(err)
	}
	a = svcs[0].Adjust()
	a.Add("/team/a", now.Add(-time.Minute), catalog.NanosOf(1))
	if err := a.Apply(); err != nil {
		t.Fatal(err)
	}
	if got, _ := svcs[0].tr.Spent(Key{"/team", Daily}, "/team", now); got != 0 {
		t.Fatalf("a change before the reset moved the spend to %v", got)
	}
	// In memory.
	m, err := New(Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Put(Key{"/team", Daily}, 10, false); err != nil {
		t.Fatal(err)
	}
	m.Charge("/team", 1, now)
	a = m.Adjust()
	a.Add("/team", now, catalog.NanosOf(-0.4))
	if err := a.Apply(); err != nil {
		t.Fatal(err)
	}
	if got, _ := m.tr.Spent(Key{"/team", Daily}, "/team", now); catalog.NanosOf(got) != catalog.NanosOf(0.6) {
		t.Fatalf("in memory: spent %v, want 0.6", got)
	}
}
