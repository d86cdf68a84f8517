package audittest

import (
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/domain/pricing"
)

// testReprice checks pricing.UsageStore: the records reprice changes are
// rewritten, others kept, and the hour and day rows, the breakdown rows
// and sessions move by
// the change exactly (an unpriced record priced leaves the unpriced
// count), also across more records than one chunk.
func testReprice(t *testing.T, open Open) {
	s := open(t)
	rs, ok := s.(pricing.UsageStore)
	if !ok {
		t.Skip("the storage does not reprice")
	}
	t0 := Base.Add(2 * time.Hour)
	var recs []*audit.UsageRecord
	for i := range 600 {
		recs = append(recs, UsageAt(t0.Add(time.Duration(i)*time.Second), "/a", "s1", "m", 0.001))
	}
	unpriced := UsageAt(t0.Add(time.Hour), "/a", "s1", "m", 0)
	unpriced.TotalCost, unpriced.CostSource = nil, ""
	reported := UsageAt(t0.Add(time.Hour), "/a", "s1", "m", 0.5)
	reported.CostSource = catalog.CostSourceProvider
	other := UsageAt(t0.Add(time.Hour), "/b", "", "keep", 0.25)
	outside := UsageAt(Base.Add(48*time.Hour), "/a", "s1", "m", 0.001)
	recs = append(recs, unpriced, reported, other, outside)
	MustAppendUsage(t, s, recs...)
	Flush(t, s)

	calls := 0
	err := rs.RepriceUsage(t.Context(), Base, Base.Add(24*time.Hour), func(r *audit.UsageRecord) bool {
		calls++
		if r.Model != "m" || r.CostSource == catalog.CostSourceProvider {
			return false
		}
		r.SetCost(catalog.Breakdown{Input: 0.002, Output: 0.001, Total: 0.003, Currency: "USD", Source: catalog.CostSourceOverride})
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 603 {
		t.Fatalf("reprice called %d times, want 603 (the window's records)", calls)
	}
	var total catalog.Nanos
	var overrides int
	if err := s.UsageRecords(Base, Base.Add(24*time.Hour), func(r *audit.UsageRecord) bool {
		total = total.Add(catalog.NanosOf(r.Spend()))
		if r.CostSource == catalog.CostSourceOverride {
			overrides++
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	// 601 records at 0.003, the reported 0.5 and the other 0.25 kept.
	want := catalog.NanosOf(0.003)*601 + catalog.NanosOf(0.5) + catalog.NanosOf(0.25)
	if overrides != 601 || total != want {
		t.Fatalf("records: %d repriced, total %v; want 601, %v", overrides, total, want)
	}
	for _, g := range []audit.Granularity{audit.Hourly, audit.Daily} {
		rows, err := s.UsageAggregates(g, Base, Base.Add(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		var sum catalog.Nanos
		var unp int64
		for _, r := range rows {
			sum, unp = sum.Add(r.Cost), unp+r.Unpriced
		}
		if sum != want || unp != 0 {
			t.Fatalf("granularity %v: rows sum %v, unpriced %d; want %v, 0", g, sum, unp, want)
		}
	}
	// The breakdown rows move too: the window's hour and day rows sum to
	// the same figure with every record priced, and the month rows to it
	// and the record outside the window.
	for _, c := range []struct {
		g        audit.Granularity
		from, to time.Time
		want     catalog.Nanos
		priced   int64
	}{
		{audit.Hourly, Base, Base.Add(24 * time.Hour), want, 603},
		{audit.Daily, Base, Base.Add(24 * time.Hour), want, 603},
		{audit.Monthly, time.Time{}, time.Time{}, want + catalog.NanosOf(0.001), 604},
	} {
		rows, err := s.Breakdown(audit.BreakdownSelect{Granularity: c.g, From: c.from, To: c.to})
		if err != nil {
			t.Fatal(err)
		}
		var sum catalog.Nanos
		var priced int64
		for _, r := range rows {
			sum, priced = sum.Add(r.Cost), priced+r.Priced
		}
		if sum != c.want || priced != c.priced {
			t.Fatalf("breakdown granularity %v: rows sum %v over %d priced; want %v over %d", c.g, sum, priced, c.want, c.priced)
		}
	}
	sess, _, err := s.Sessions(audit.SessionQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	wantSess := catalog.NanosOf(0.003)*601 + catalog.NanosOf(0.5) + catalog.NanosOf(0.001)
	if len(sess) != 1 || sess[0].Cost != wantSess {
		t.Fatalf("sessions %+v; want one costing %v", sess, wantSess)
	}
}
