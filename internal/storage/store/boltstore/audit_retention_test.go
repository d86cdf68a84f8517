package boltstore

import (
	"os"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// TestRetentionReusesFreePages simulates a week of traffic at a time, then
// a retention pass that deletes it, six times over. bbolt never shrinks its
// file, but it must reuse the pages retention frees: after the first cycle
// the file must not keep growing.
func TestRetentionReusesFreePages(t *testing.T) {
	if testing.Short() {
		t.Skip("writes about 100 MiB")
	}
	a, s := openAudit(t)
	body := jsonBody(1024)
	const perCycle = 3000
	var sizes []int64
	at := base
	for cycle := range 6 {
		for i := range perCycle {
			at = at.Add(7 * 24 * time.Hour / perCycle) // one simulated week per cycle
			e, u := benchEntry(at, cycle*perCycle+i, body)
			mustAppend(t, a, e)
			mustAppendUsage(t, a, u)
		}
		flush(t, s)
		cutoff := at.Add(time.Hour).Truncate(time.Hour)
		r := audit.Retention{Entries: a, Usage: a, AuditDays: 1, UsageDays: 1, Batch: 500,
			Now: func() time.Time { return cutoff.Add(24 * time.Hour) }}
		ne, nu, err := r.RunOnce(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if ne != perCycle || nu < perCycle {
			t.Fatalf("cycle %d: deleted %d entries, %d usage records and sessions", cycle, ne, nu)
		}
		fi, err := os.Stat(s.Path())
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, fi.Size())
	}
	t.Logf("file size after each week and retention pass: %v", sizes)
	if last, first := sizes[len(sizes)-1], sizes[0]; float64(last) > 1.25*float64(first) {
		t.Fatalf("file grew from %d to %d bytes: freed pages are not reused", first, last)
	}
	p, err := a.ListEntries(audit.EntryQuery{Limit: 1})
	if err != nil || p.Total != 0 {
		t.Fatalf("entries left after retention: %d (%v)", p.Total, err)
	}
}
