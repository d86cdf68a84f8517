package storetest

import (
	"testing"

	"github.com/modelgate/modelgate/internal/domain/sessions"
)

// SessionLimits checks a sessions.Storage: empty at first; limits replace
// by user path and read back whole, ordered by user path; a delete takes
// one limit and a missing one is no error; a guard opened on the storage
// (as another process, or after a restart) sees what was written.
func SessionLimits(t *testing.T, st sessions.Storage) {
	t.Helper()
	if l, err := st.SessionLimits(); err != nil || len(l) != 0 {
		t.Fatalf("empty storage: %v %v", l, err)
	}
	for _, l := range []sessions.Limit{
		{UserPath: "/team", MaxRequests: 5, Source: sessions.SourceManual},
		{UserPath: "/customers", MaxCost: 0.25, MaxRepeats: 3, PerChild: true, Source: sessions.SourceManual},
		{UserPath: "/team", MaxRequests: 7, MaxRepeats: 2, Source: sessions.SourceManual},
	} {
		if err := st.PutSessionLimit(l); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.SessionLimits()
	if err != nil || len(got) != 2 {
		t.Fatalf("after puts: %+v %v", got, err)
	}
	want := []sessions.Limit{
		{UserPath: "/customers", MaxCost: 0.25, MaxRepeats: 3, PerChild: true, Source: sessions.SourceManual},
		{UserPath: "/team", MaxRequests: 7, MaxRepeats: 2, Source: sessions.SourceManual},
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("limit %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	g, err := sessions.New(sessions.Options{Storage: st})
	if err != nil {
		t.Fatal(err)
	}
	if l := g.List(); len(l) != 2 || l[1].MaxRequests != 7 {
		t.Fatalf("a guard on the storage lists %+v", l)
	}
	if err := st.DeleteSessionLimit("/team"); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteSessionLimit("/nothing"); err != nil {
		t.Fatalf("deleting a missing limit: %v", err)
	}
	if err := g.Reload(); err != nil {
		t.Fatal(err)
	}
	if l := g.List(); len(l) != 1 || l[0].UserPath != "/customers" {
		t.Fatalf("after delete and reload: %+v", l)
	}
}
