package main

import (
	"slices"
	"testing"

	"github.com/modelgate/modelgate/bench/internal/stats"
)

func TestParseBenchOutput(t *testing.T) {
	out := `goos: linux
BenchmarkProxyChat/1KiB-2      	   91425	     13777 ns/op	  78.39 MB/s	   10212 B/op	      37 allocs/op
BenchmarkProxyChat/64KiB-2     	    6447	    268137 ns/op	 244.62 MB/s	  155398 B/op	      37 allocs/op
BenchmarkProxyStream-2         	   29776	     40170 ns/op	   25079 B/op	      97 allocs/op
PASS`
	list := parseBenchOutput(out)
	if len(list) != 3 {
		t.Fatalf("parsed %d lines: %+v", len(list), list)
	}
	want := allocBench{Name: "BenchmarkProxyChat/64KiB", NsPerOp: 268137, BytesPerOp: 155398, AllocsPerOp: 37}
	if list[1] != want {
		t.Errorf("got %+v, want %+v", list[1], want)
	}
	if a := findAllocBench(list, "BenchmarkProxyChat", 65536); a == nil || a.Name != "BenchmarkProxyChat/64KiB" {
		t.Errorf("sized lookup: %+v", a)
	}
	if a := findAllocBench(list, "BenchmarkProxyStream", 1024); a == nil || a.AllocsPerOp != 97 {
		t.Errorf("unsized lookup: %+v", a)
	}
	if a := findAllocBench(list, "BenchmarkProxyMessages", 1024); a != nil {
		t.Errorf("missing benchmark found: %+v", a)
	}
}

func TestParseMemStatus(t *testing.T) {
	m, err := parseMemStatus([]byte("Name:\tmodelgate\nVmHWM:\t   59404 kB\nVmRSS:\t   59000 kB\nRssAnon:\t    9356 kB\nRssFile:\t   49776 kB\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m != (memInfo{RSS: 59000 << 10, HWM: 59404 << 10, Anon: 9356 << 10}) {
		t.Errorf("got %+v", m)
	}
	if _, err := parseMemStatus([]byte("VmRSS: 1 kB\n")); err == nil {
		t.Error("missing fields accepted")
	}
}

func TestCombineRoundsMedian(t *testing.T) {
	mk := func(rps, p50 float64, ok int) *stats.Result {
		return &stats.Result{OK: ok, Sent: ok + 2, Answered: ok + 1, ThroughputRPS: rps, StatusCodes: map[string]int{"200": ok},
			Latency: &stats.Summary{Count: ok, Min: p50 / 2, P50: p50, Max: p50 * 3}}
	}
	two := combineRounds([]*stats.Result{mk(100, 2, 10), mk(300, 4, 30)})
	if two.ThroughputRPS != 200 || two.Latency.P50 != 3 || two.OK != 40 || two.StatusCodes["200"] != 40 ||
		two.Sent != 44 || two.Answered != 42 {
		t.Errorf("two rounds: %+v %+v", two, two.Latency)
	}
	if two.Latency.Min != 1 || two.Latency.Max != 12 || two.Latency.Count != 40 {
		t.Errorf("extremes: %+v", two.Latency)
	}
	three := combineRounds([]*stats.Result{mk(100, 2, 10), mk(5000, 40, 10), mk(300, 4, 10)})
	if three.ThroughputRPS != 300 || three.Latency.P50 != 4 {
		t.Errorf("three rounds: rps %v p50 %v", three.ThroughputRPS, three.Latency.P50)
	}
	if three.TTFT != nil {
		t.Error("TTFT appeared from nowhere")
	}
	if combineRounds(nil) != nil {
		t.Error("no rounds must combine to nil")
	}
}

func TestPlanJobsAlternatesAndSkipsUnserved(t *testing.T) {
	o := options{rounds: 2, concurrency: []int{10}, sizes: []int{1024}, only: map[string]bool{"chat": true, "messages": true}}
	cells, jobs := planJobs(o, false)
	if len(cells) != 7 { // chat: 6 targets; messages: modelgate only
		t.Fatalf("%d cells", len(cells))
	}
	if cells[6].Workload != "messages" || cells[6].Status != statusNotServed {
		t.Errorf("messages cell: %+v", cells[6])
	}
	var order []string
	for _, j := range jobs {
		order = append(order, j.cell.Target)
	}
	want := []string{targetDirect, targetCaddy, targetModelgate, targetBudget, targetAlias, targetPG,
		targetPG, targetAlias, targetBudget, targetModelgate, targetCaddy, targetDirect}
	if !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	if jobs[6].round != 1 || jobs[6].cell != jobs[5].cell {
		t.Errorf("round 2 must reuse the cells: %+v", jobs[6])
	}
	_, jobs = planJobs(o, true)
	if len(jobs) != 14 {
		t.Errorf("served messages: %d jobs, want 14", len(jobs))
	}
}
