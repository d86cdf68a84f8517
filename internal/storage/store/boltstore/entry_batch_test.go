package boltstore

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// TestPostingsMergeBatches: entries of one slot that arrive in several
// batches out of id order (requests that end in another order than they
// started), and an entry written twice, list once each in id order, with
// time bounds inside a slot, both ways.
func TestPostingsMergeBatches(t *testing.T) {
	a, s := openAudit(t)
	at := base.Add(time.Hour)
	var es []*audit.Entry
	for i := range 40 {
		// Four slots of 256 ms, ten entries each.
		e := entryAt(at.Add(time.Duration(i/10)*256*time.Millisecond+time.Duration(i%10)*time.Millisecond), 200)
		e.SessionID = "s"
		es = append(es, e)
	}
	// Batches: odd indexes backwards, then even ones, then one again.
	var order []int
	for i := len(es) - 1; i >= 0; i -= 2 {
		order = append(order, i)
	}
	for i := 0; i < len(es); i += 2 {
		order = append(order, i)
	}
	for n, i := range order {
		mustAppend(t, a, es[i])
		if n%7 == 0 {
			flush(t, s)
		}
	}
	mustAppend(t, a, es[13])
	flush(t, s)

	want := func(lo, hi int) []string {
		out := idStrings(es[lo:hi]...)
		slices.Reverse(out)
		return out
	}
	p, err := a.ListEntries(audit.EntryQuery{SessionID: "s", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	eqStrings(t, "session, newest first", pageIDs(p), want(0, 40))
	if p.Total != 40 {
		t.Fatalf("total %d", p.Total)
	}
	for _, b := range [][2]int{{3, 17}, {10, 20}, {0, 1}, {25, 39}} {
		q := audit.EntryQuery{SessionID: "s", Limit: 100, From: es[b[0]].ID.Time(), To: es[b[1]].ID.Time()}
		p, err := a.ListEntries(q)
		if err != nil {
			t.Fatal(err)
		}
		eqStrings(t, fmt.Sprintf("bounds %v", b), pageIDs(p), want(b[0], b[1]))
	}
	p, _ = a.ListEntries(audit.EntryQuery{SessionID: "s", Limit: 5, Offset: 8})
	eqStrings(t, "page", pageIDs(p), want(27, 32))
	got, err := a.SessionEntryIDs("/team/a", "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 40 {
		t.Fatalf("session ids: %d", len(got))
	}
	for i, id := range got {
		if id != es[i].ID {
			t.Fatalf("session id %d out of order", i)
		}
	}

	// Retention within a slot keeps the rest of the slot indexed.
	if n, err := a.DeleteEntriesBefore(es[15].ID.Time(), 100); err != nil || n != 15 {
		t.Fatalf("deleted %d (%v)", n, err)
	}
	p, _ = a.ListEntries(audit.EntryQuery{SessionID: "s", Limit: 100})
	eqStrings(t, "after retention", pageIDs(p), want(15, 40))
}
