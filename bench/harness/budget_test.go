package main

import (
	"testing"

	"github.com/modelgate/modelgate/bench/internal/stats"
)

// cell builds an ok cell with the given throughput, p50 and (if > 0) TTFT p50.
func cell(workload, target string, conc, size int, rps, p50, ttft float64, rss int64) *Cell {
	r := &stats.Result{OK: 100, ThroughputRPS: rps, Latency: &stats.Summary{Count: 100, P50: p50}}
	if ttft > 0 {
		r.TTFT = &stats.Summary{Count: 100, P50: ttft}
	}
	return &Cell{cellKey: cellKey{workload, target, conc, size}, Status: statusOK, Result: r, PeakRSSBytes: rss}
}

func byName(checks []Check) map[string]Check {
	m := map[string]Check{}
	for _, c := range checks {
		m[c.Name] = c
	}
	return m
}

func TestBudgetChecks(t *testing.T) {
	const mib = 1 << 20
	cells := []*Cell{
		// c=10: modelgate at 0.85x caddy's throughput, adds 0.29 ms where caddy adds 0.2 (allowance 0.3).
		cell("chat", targetDirect, 10, 1024, 10000, 1.0, 0, 0),
		cell("chat", targetCaddy, 10, 1024, 5000, 1.2, 0, 60*mib),
		cell("chat", targetModelgate, 10, 1024, 4250, 1.29, 0, 62*mib),
		// c=100: 0.79x and 0.31 ms over an allowance of 0.3 ms: both fail.
		cell("chat", targetDirect, 100, 1024, 10000, 1.0, 0, 0),
		cell("chat", targetCaddy, 100, 1024, 5000, 1.2, 0, 60*mib),
		cell("chat", targetModelgate, 100, 1024, 3950, 1.31, 0, 63*mib),
		// streams: +0.9 ms passes, +1.0 fails (the bound is strict).
		cell("chat-stream", targetDirect, 10, 1024, 200, 45, 2.0, 0),
		cell("chat-stream", targetModelgate, 10, 1024, 200, 45, 2.9, 62*mib),
		cell("chat-stream", targetDirect, 100, 1024, 1000, 60, 3.0, 0),
		cell("chat-stream", targetModelgate, 100, 1024, 900, 70, 4.0, 64*mib), // RSS at the limit: fails
	}
	got := byName(evaluateBudget(cells, []int{10, 100}, []int{1024}))
	want := map[string]string{
		"throughput modelgate/caddy, chat 1KiB c=10":           pass,
		"throughput modelgate/caddy, chat 1KiB c=100":          fail,
		"added p50 modelgate vs 1.5x caddy's, chat 1KiB c=10":  pass,
		"added p50 modelgate vs 1.5x caddy's, chat 1KiB c=100": fail,
		"added TTFT p50, chat-stream 1KiB c=10":                pass,
		"added TTFT p50, chat-stream 1KiB c=100":               fail,
		"peak RSS modelgate at c=100 (all workloads)":          fail,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d checks, want %d: %+v", len(got), len(want), got)
	}
	for name, result := range want {
		ck, ok := got[name]
		if !ok {
			t.Errorf("missing check %q", name)
			continue
		}
		if ck.Result != result {
			t.Errorf("%s: %s (value %v, limit %v), want %s", name, ck.Result, ck.Value, ck.Limit, result)
		}
	}
	if ck := got["throughput modelgate/caddy, chat 1KiB c=10"]; ck.Value != 0.85 {
		t.Errorf("throughput ratio = %v, want 0.85", ck.Value)
	}
	if ck := got["added p50 modelgate vs 1.5x caddy's, chat 1KiB c=10"]; ck.Value != 0.29 || ck.Limit != 0.3 {
		t.Errorf("added p50 = %v limit %v, want 0.29 limit 0.3", ck.Value, ck.Limit)
	}
	if ck := got["peak RSS modelgate at c=100 (all workloads)"]; ck.Value != 64 || ck.Detail != "highest in chat-stream 1KiB" {
		t.Errorf("rss check = %+v", ck)
	}
	if budgetPassed(evaluateBudget(cells, []int{10, 100}, []int{1024})) {
		t.Error("budget with failures passed")
	}
}

func TestBudgetFloorAndSkips(t *testing.T) {
	cells := []*Cell{
		// Caddy measured faster than direct (noise): the allowance is 1.5 x the 0.05 ms floor.
		cell("chat", targetDirect, 10, 1024, 10000, 1.0, 0, 0),
		cell("chat", targetCaddy, 10, 1024, 9000, 0.98, 0, 0),
		cell("chat", targetModelgate, 10, 1024, 9000, 1.07, 0, 0),
		// A failed modelgate cell: its checks are skipped, not failed.
		cell("chat", targetDirect, 100, 1024, 10000, 1.0, 0, 0),
		cell("chat", targetCaddy, 100, 1024, 9000, 1.1, 0, 0),
		{cellKey: cellKey{"chat", targetModelgate, 100, 1024}, Status: "error: boom"},
	}
	checks := evaluateBudget(cells, []int{10, 100}, []int{1024})
	got := byName(checks)
	if ck := got["added p50 modelgate vs 1.5x caddy's, chat 1KiB c=10"]; ck.Result != pass || ck.Limit != 0.075 {
		t.Errorf("floor: %+v", ck)
	}
	for _, name := range []string{
		"throughput modelgate/caddy, chat 1KiB c=100",
		"added p50 modelgate vs 1.5x caddy's, chat 1KiB c=100",
		"added TTFT p50, chat-stream 1KiB c=10",
		"peak RSS modelgate at c=100 (all workloads)",
	} {
		if got[name].Result != skip {
			t.Errorf("%s: %s, want SKIP", name, got[name].Result)
		}
	}
	if !budgetPassed(checks) {
		t.Error("skips alone must not fail the budget")
	}
}

func TestFillDerivedMessagesAgainstChat(t *testing.T) {
	cells := []*Cell{
		cell("chat", targetDirect, 10, 1024, 10000, 1.0, 0, 0),
		cell("chat", targetModelgate, 10, 1024, 5000, 1.5, 0, 0),
		cell("messages", targetModelgate, 10, 1024, 4000, 2.25, 0, 0),
	}
	allocs := []allocBench{{Name: "BenchmarkProxyChat/1KiB", AllocsPerOp: 37}, {Name: "BenchmarkProxyMessages", AllocsPerOp: 80}}
	fillDerived(cells, allocs)
	if cells[0].AddedP50Ms != nil {
		t.Error("direct has no added figure")
	}
	if v := cells[1].AddedP50Ms; v == nil || *v != 0.5 || cells[1].Alloc.AllocsPerOp != 37 {
		t.Errorf("chat modelgate: %+v", cells[1])
	}
	if v := cells[2].AddedP50Ms; v == nil || *v != 1.25 || cells[2].Reference != "chat" || cells[2].Alloc.AllocsPerOp != 80 {
		t.Errorf("messages modelgate: %+v", cells[2])
	}
}
