package audittest

import (
	"math"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// testSumsSaturate: sums that would pass the largest count or amount stay
// there, in one batch and when a later batch adds to a stored row, and
// every read still answers: the store never wraps to a negative total nor
// fails a write on an overflow. (The gateway bounds each answer's counts,
// so only the sums of very many answers come near.)
func testSumsSaturate(t *testing.T, open Open) {
	s := open(t)
	huge := func(at time.Duration) *audit.UsageRecord {
		r := UsageAt(Base.Add(at), "/a", "s1", "gpt", math.MaxFloat64/2)
		r.Usage = catalog.Usage{InputTokens: math.MaxInt64 / 2, OutputTokens: 1, TotalTokens: math.MaxInt64/2 + 1}
		return r
	}
	slow := func(at time.Duration) *audit.Entry {
		e := EntryAt(Base.Add(at), 200)
		e.DurationNs = math.MaxInt64 / 2
		return e
	}
	// Two records in one batch, then two more in a second batch: the
	// second adds to the rows the first wrote.
	MustAppendUsage(t, s, huge(time.Minute), huge(2*time.Minute))
	MustAppend(t, s, slow(time.Minute), slow(2*time.Minute))
	Flush(t, s)
	MustAppendUsage(t, s, huge(3*time.Minute), huge(4*time.Minute))
	MustAppend(t, s, slow(3*time.Minute), slow(4*time.Minute))
	Flush(t, s)

	want := catalog.Usage{InputTokens: math.MaxInt64, OutputTokens: 4, TotalTokens: math.MaxInt64}
	for _, g := range []audit.Granularity{audit.Hourly, audit.Daily} {
		rows, err := s.UsageAggregates(g, time.Time{}, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || rows[0].Requests != 4 || rows[0].Tokens != want || rows[0].Cost != math.MaxInt64 {
			t.Fatalf("%v rows: %+v; want 4 requests, tokens %+v, cost the largest Nanos", g, rows, want)
		}
	}
	sess, _, err := s.Sessions(audit.SessionQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(sess) != 1 || sess[0].Requests != 4 || sess[0].Usage != want || sess[0].Cost != math.MaxInt64 {
		t.Fatalf("sessions: %+v", sess)
	}
	hours, err := s.AuditHours(time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hours) != 1 || hours[0].Requests != 4 || hours[0].DurationNs != math.MaxInt64 {
		t.Fatalf("audit hours: %+v", hours)
	}
}
