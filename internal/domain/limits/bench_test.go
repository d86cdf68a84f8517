package limits

import (
	"fmt"
	"testing"
)

// benchEngine has 100 rules: a root rule, a per_child template on
// /customers with 10,000 active child partitions, a model and provider mix,
// and user-path rules on other subtrees. Caps never bind.
func benchEngine(b *testing.B) (*Engine, []string) {
	e, err := New(Options{TokensEnforced: true, QuotaTemplates: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	const big = 1 << 50
	rules := []Rule{
		{Scope: ScopeUserPath, Subject: "/", Period: PeriodMinute, MaxRequests: big, MaxTokens: big},
		{Scope: ScopeUserPath, Subject: "/customers", Period: PeriodHour, MaxRequests: big, MaxTokens: big, PerChild: true},
		{Scope: ScopeUserPath, Subject: "/customers", Period: PeriodConcurrent, MaxRequests: big},
	}
	for i := 0; len(rules) < 70; i++ {
		rules = append(rules, Rule{Scope: ScopeUserPath, Subject: fmt.Sprintf("/team%d/app", i), Period: PeriodMinute, MaxRequests: big})
	}
	for i := 0; len(rules) < 85; i++ {
		rules = append(rules, Rule{Scope: ScopeProvider, Subject: fmt.Sprintf("provider%d", i), Period: PeriodMinute, MaxRequests: big, MaxTokens: big})
	}
	for i := 0; len(rules) < 100; i++ {
		rules = append(rules, Rule{Scope: ScopeModel, Subject: fmt.Sprintf("provider%d/model%d", i, i), Period: PeriodMinute, MaxRequests: big, MaxTokens: big})
	}
	rules = append(rules[:99], Rule{Scope: ScopeModel, Subject: "model1", Period: PeriodHour, MaxRequests: big})
	for _, r := range rules {
		if err := e.Upsert(r, nil); err != nil {
			b.Fatal(err)
		}
	}
	if n := len(e.Rules()); n != 100 {
		b.Fatalf("%d rules", n)
	}
	paths := make([]string, 10000)
	for i := range paths {
		paths[i] = fmt.Sprintf("/customers/c%d/app", i)
		a, rej := e.AdmitUserPath(paths[i])
		if rej != nil {
			b.Fatal(rej)
		}
		a.Done(1)
	}
	if n := e.groups[rules[1].Key()].tmpl.len(); n != 10000 {
		b.Fatalf("%d partitions", n)
	}
	return e, paths
}

// BenchmarkAdmitUserPath is the allowed path of the rate-limit handler:
// three matching rules (root, template child partition, concurrency gauge)
// among 100, across 10,000 child partitions, plus Done(0).
func BenchmarkAdmitUserPath(b *testing.B) {
	e, paths := benchEngine(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a, rej := e.AdmitUserPath(paths[i%len(paths)])
		if rej != nil {
			b.Fatal(rej)
		}
		a.Done(0)
	}
}

// BenchmarkAdmitUserPathParallel is BenchmarkAdmitUserPath from
// GOMAXPROCS goroutines (contention on the shared root counter).
func BenchmarkAdmitUserPathParallel(b *testing.B) {
	e, paths := benchEngine(b)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			a, rej := e.AdmitUserPath(paths[i%len(paths)])
			if rej != nil {
				b.Fatal(rej)
			}
			a.Done(0)
			i += 7
		}
	})
}

// BenchmarkAdmitUserPathUnmatched is a path covered only by the root rule.
func BenchmarkAdmitUserPathUnmatched(b *testing.B) {
	e, _ := benchEngine(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a, rej := e.AdmitUserPath("/somebody/else/deep/path")
		if rej != nil {
			b.Fatal(rej)
		}
		a.Done(0)
	}
}

// BenchmarkTargetAvailable checks a provider and its model (three rules:
// provider, provider/model, bare model) without charging.
func BenchmarkTargetAvailable(b *testing.B) {
	e, _ := benchEngine(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok := e.TargetAvailable("Provider1", "model1"); !ok {
			b.Fatal("unavailable")
		}
	}
}

// BenchmarkAdmitDone admits a target and charges tokens at Done.
func BenchmarkAdmitDone(b *testing.B) {
	e, _ := benchEngine(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a, rej := e.AdmitTarget("provider1", "model1")
		if rej != nil {
			b.Fatal(rej)
		}
		a.Done(120)
	}
}

// BenchmarkNoRules is the cost when rate limiting has no rules.
func BenchmarkNoRules(b *testing.B) {
	e, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		a, _ := e.AdmitUserPath("/team/app")
		a.Done(0)
	}
}

// TestAdmitAllocs pins the zero-allocation allowed path.
func TestAdmitAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation test")
	}
	res := testing.Benchmark(func(b *testing.B) {
		e, paths := benchEngine(b)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			a, _ := e.AdmitUserPath(paths[i%len(paths)])
			a.Done(5)
			t, _ := e.AdmitTarget("provider1", "model1")
			t.Done(5)
			e.TargetAvailable("provider1", "model1")
		}
	})
	if a := res.AllocsPerOp(); a != 0 {
		t.Fatalf("%d allocs per admission, want 0", a)
	}
}
