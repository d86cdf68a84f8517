package budgets

import (
	"fmt"
	"testing"
	"time"
)

// benchTracker has 1,000 budgets: a daily root budget, 100 per_child
// templates (/tenants<i>, monthly) whose 100 children each have been
// charged (10,000 active child paths), and 899 budgets on /org/team<i>
// with hourly, weekly and custom periods. Amounts never bind. paths are
// the 10,000 child paths, one level below their child.
func benchTracker(b testing.TB) (*Tracker, []string, time.Time) {
	now, _ := time.Parse(time.RFC3339, "2026-11-23T10:00:00Z")
	list := []Budget{{UserPath: "/", Period: Daily, Amount: 1e12, Source: SourceManual}}
	for i := range 100 {
		list = append(list, Budget{UserPath: fmt.Sprintf("/tenants%d", i), Period: Monthly, Amount: 1e12, PerChild: true, Source: SourceManual})
	}
	periods := []Period{Hourly, Weekly, 600}
	for i := 0; len(list) < 1000; i++ {
		list = append(list, Budget{UserPath: fmt.Sprintf("/org/team%d", i/3), Period: periods[i%3], Amount: 1e12, Source: SourceManual})
	}
	tr := NewTracker()
	if _, err := tr.Set(list, DefaultSettings(), now); err != nil {
		b.Fatal(err)
	}
	if n := len(tr.Budgets()); n != 1000 {
		b.Fatalf("%d budgets", n)
	}
	paths := make([]string, 0, 10000)
	for i := range 100 {
		for j := range 100 {
			p := fmt.Sprintf("/tenants%d/c%d/app", i, j)
			tr.Charge(p, 0.001, now)
			paths = append(paths, p)
		}
	}
	active := 0
	for i := range 100 {
		kids, _ := tr.ChildSpend(Key{fmt.Sprintf("/tenants%d", i), Monthly}, now)
		active += len(kids)
	}
	if active != 10000 {
		b.Fatalf("%d active children", active)
	}
	return tr, paths, now
}

// BenchmarkCheck is an admitted request on a child path: the root budget
// and the caller's template child among 1,000 budgets.
func BenchmarkCheck(b *testing.B) {
	tr, paths, now := benchTracker(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if ok, _, _ := tr.Check(paths[i%len(paths)], now); !ok {
			b.Fatal("refused")
		}
	}
}

// BenchmarkCheckTeam is an admitted request covered by four budgets (the
// root and three on /org/team7).
func BenchmarkCheckTeam(b *testing.B) {
	tr, _, now := benchTracker(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if ok, _, _ := tr.Check("/org/team7/app/x", now); !ok {
			b.Fatal("refused")
		}
	}
}

// BenchmarkReserve is the in-process admission of a priced request on a
// child path with a reservation (the root budget and the caller's
// template child among 1,000 budgets), settled at its real cost.
func BenchmarkReserve(b *testing.B) {
	tr, paths, now := benchTracker(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, ok, _, _ := tr.Reserve(paths[i%len(paths)], 5000, now)
		if !ok {
			b.Fatal("refused")
		}
		r.Settle(1e-6, now)
	}
}

// BenchmarkReserveTeam is BenchmarkReserve covered by four budgets.
func BenchmarkReserveTeam(b *testing.B) {
	tr, _, now := benchTracker(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, ok, _, _ := tr.Reserve("/org/team7/app/x", 5000, now)
		if !ok {
			b.Fatal("refused")
		}
		r.Settle(1e-6, now)
	}
}

// BenchmarkCharge charges a completed response on a child path.
func BenchmarkCharge(b *testing.B) {
	tr, paths, now := benchTracker(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr.Charge(paths[i%len(paths)], 0.001, now)
	}
}

// BenchmarkCheckParallel is BenchmarkCheck from every core at once.
func BenchmarkCheckParallel(b *testing.B) {
	tr, paths, now := benchTracker(b)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			tr.Check(paths[i%len(paths)], now)
			i++
		}
	})
}

// TestCheckAndChargeDoNotAllocate: once a child has been charged, Check
// (admitted, or with no covering budget) and Charge allocate nothing.
func TestCheckAndChargeDoNotAllocate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 10,000 children")
	}
	tr, paths, now := benchTracker(t)
	i := 0
	if n := testing.AllocsPerRun(1000, func() {
		tr.Check(paths[i%len(paths)], now)
		tr.Check("/org/team7/app", now)
		tr.Check("/nobody", now)
		i++
	}); n != 0 {
		t.Fatalf("Check allocates %v times", n)
	}
	if n := testing.AllocsPerRun(1000, func() {
		tr.Charge(paths[i%len(paths)], 0.001, now)
		tr.Charge("/org/team7/app", 0.001, now)
		i++
	}); n != 0 {
		t.Fatalf("Charge allocates %v times", n)
	}
	if n := testing.AllocsPerRun(1000, func() {
		r, _, _, _ := tr.Reserve(paths[i%len(paths)], 5000, now)
		r.Settle(0.001, now)
		r, _, _, _ = tr.Reserve("/org/team7/app", 5000, now)
		r.Settle(0, now)
		i++
	}); n != 0 {
		t.Fatalf("Reserve and Settle allocate %v times", n)
	}
}
