package main

import (
	"fmt"
	"math"
)

// The overhead budget, as ratios measured in one run on one machine.
const (
	// minThroughputRatio: modelgate's non-streaming throughput over plain
	// Caddy's, at every concurrency and body size.
	minThroughputRatio = 0.8
	// maxAddedP50Ratio: modelgate's added p50 over direct, as a multiple
	// of what plain Caddy adds over direct.
	maxAddedP50Ratio = 1.5
	// addedP50FloorMs is the smallest Caddy overhead the ratio is taken
	// against: when plain Caddy adds less than this (or, by noise, less
	// than nothing) the allowance is 1.5 x this floor instead, so a ratio
	// of two near-zero numbers does not decide the check.
	addedP50FloorMs = 0.05
	// maxAddedTTFTMs: modelgate's added p50 time to first streamed token.
	maxAddedTTFTMs = 1.0
	// maxPeakRSSBytes: modelgate's peak RSS at budgetRSSConcurrency.
	maxPeakRSSBytes      = 64 << 20
	budgetRSSConcurrency = 100
)

// Check is one budget line.
type Check struct {
	// Name says what is checked and where.
	Name string `json:"name"`
	// Value is the measured figure; Limit the bound it is held to.
	Value float64 `json:"value"`
	Limit float64 `json:"limit"`
	// Unit of Value and Limit ("x", "ms", "MiB").
	Unit string `json:"unit"`
	// Result is PASS, FAIL or SKIP (a cell was missing or failed).
	Result string `json:"result"`
	// Detail gives the figures the value came from.
	Detail string `json:"detail,omitempty"`
}

// Check results.
const (
	pass = "PASS"
	fail = "FAIL"
	skip = "SKIP"
)

// cellIndex finds cells by key.
type cellIndex map[cellKey]*Cell

func indexCells(cells []*Cell) cellIndex {
	ix := make(cellIndex, len(cells))
	for _, c := range cells {
		ix[c.cellKey] = c
	}
	return ix
}

func (ix cellIndex) get(workload, target string, conc, size int) *Cell {
	return ix[cellKey{Workload: workload, Target: target, Concurrency: conc, BodySize: size}]
}

// evaluateBudget checks the budget on a run's cells. concs and sizes are
// the run's concurrency levels and body sizes.
func evaluateBudget(cells []*Cell, concs, sizes []int) []Check {
	ix := indexCells(cells)
	var out []Check
	for _, conc := range concs {
		for _, size := range sizes {
			where := fmt.Sprintf("chat %s c=%d", sizeName(size), conc)
			d, c, m := ix.get("chat", targetDirect, conc, size), ix.get("chat", targetCaddy, conc, size), ix.get("chat", targetModelgate, conc, size)
			out = append(out, throughputCheck(where, c, m), addedP50Check(where, d, c, m))
		}
	}
	for _, conc := range concs {
		for _, size := range sizes {
			where := fmt.Sprintf("chat-stream %s c=%d", sizeName(size), conc)
			out = append(out, ttftCheck(where,
				ix.get("chat-stream", targetDirect, conc, size), ix.get("chat-stream", targetModelgate, conc, size)))
		}
	}
	return append(out, rssCheck(cells))
}

// throughputCheck: modelgate rps / caddy rps >= minThroughputRatio.
func throughputCheck(where string, caddy, mg *Cell) Check {
	ck := Check{Name: "throughput modelgate/caddy, " + where, Limit: minThroughputRatio, Unit: "x"}
	if !caddy.ok() || !mg.ok() || caddy.Result.ThroughputRPS <= 0 {
		ck.Result = skip
		return ck
	}
	ck.Value = round3(mg.Result.ThroughputRPS / caddy.Result.ThroughputRPS)
	ck.Detail = fmt.Sprintf("modelgate %.0f rps, caddy %.0f rps", mg.Result.ThroughputRPS, caddy.Result.ThroughputRPS)
	ck.Result = verdict(ck.Value >= ck.Limit)
	return ck
}

// addedP50Check: (modelgate p50 - direct p50) <= maxAddedP50Ratio x
// max(caddy p50 - direct p50, addedP50FloorMs).
func addedP50Check(where string, direct, caddy, mg *Cell) Check {
	ck := Check{Name: "added p50 modelgate vs 1.5x caddy's, " + where, Unit: "ms"}
	if !direct.ok() || !caddy.ok() || !mg.ok() {
		ck.Result = skip
		return ck
	}
	base := direct.Result.Latency.P50
	caddyAdded := caddy.Result.Latency.P50 - base
	ck.Value = round3(mg.Result.Latency.P50 - base)
	ck.Limit = round3(maxAddedP50Ratio * math.Max(caddyAdded, addedP50FloorMs))
	ck.Detail = fmt.Sprintf("p50 direct %.3f, caddy %.3f (+%.3f), modelgate %.3f (+%.3f) ms",
		base, caddy.Result.Latency.P50, caddyAdded, mg.Result.Latency.P50, ck.Value)
	ck.Result = verdict(ck.Value <= ck.Limit)
	return ck
}

// ttftCheck: modelgate TTFT p50 - direct TTFT p50 < maxAddedTTFTMs.
func ttftCheck(where string, direct, mg *Cell) Check {
	ck := Check{Name: "added TTFT p50, " + where, Limit: maxAddedTTFTMs, Unit: "ms"}
	if !direct.ok() || !mg.ok() || direct.Result.TTFT == nil || mg.Result.TTFT == nil {
		ck.Result = skip
		return ck
	}
	ck.Value = round3(mg.Result.TTFT.P50 - direct.Result.TTFT.P50)
	ck.Detail = fmt.Sprintf("TTFT p50 direct %.3f, modelgate %.3f ms", direct.Result.TTFT.P50, mg.Result.TTFT.P50)
	ck.Result = verdict(ck.Value < ck.Limit)
	return ck
}

// rssCheck: the highest peak RSS of modelgate over all its cells at
// budgetRSSConcurrency stays under maxPeakRSSBytes.
func rssCheck(cells []*Cell) Check {
	ck := Check{Name: fmt.Sprintf("peak RSS modelgate at c=%d (all workloads)", budgetRSSConcurrency),
		Limit: maxPeakRSSBytes >> 20, Unit: "MiB"}
	var peak int64
	var where string
	for _, c := range cells {
		if c.Target == targetModelgate && c.Concurrency == budgetRSSConcurrency && c.ok() && c.PeakRSSBytes > peak {
			peak, where = c.PeakRSSBytes, fmt.Sprintf("%s %s", c.Workload, sizeName(c.BodySize))
		}
	}
	if peak == 0 {
		ck.Result = skip
		return ck
	}
	ck.Value = round3(float64(peak) / (1 << 20))
	ck.Detail = "highest in " + where
	ck.Result = verdict(peak < maxPeakRSSBytes)
	return ck
}

// budgetPassed is true when no check failed.
func budgetPassed(checks []Check) bool {
	for _, c := range checks {
		if c.Result == fail {
			return false
		}
	}
	return true
}

func verdict(ok bool) string {
	if ok {
		return pass
	}
	return fail
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

func round1(v float64) float64 { return math.Round(v*10) / 10 }
