package main

import (
	"fmt"
	"math"
	"slices"
)

// The overhead budget, as ratios measured in one run on one machine.
const (
	// minThroughputRatio: modelgate's throughput over plain Caddy's, chat
	// and chat-stream, at every concurrency and body size.
	minThroughputRatio = 0.9
	// minBudgetRatio: the throughput of modelgate with one budget in force
	// over modelgate's without it, chat and chat-stream, every cell.
	minBudgetRatio = 0.97
	// minAliasRatio: the throughput of modelgate through a two-target
	// virtual model over modelgate's by the model's own name, chat and
	// chat-stream, every cell.
	minAliasRatio = 0.97
	// minCacheRatio: the throughput of a repeated chat request answered
	// by the response cache over the same request uncached, every cell.
	minCacheRatio = 1.5
	// maxAddedP50Ratio: modelgate's added p50 over direct, as a multiple
	// of what plain Caddy adds over direct.
	maxAddedP50Ratio = 1.5
	// addedP50FloorMs is the smallest Caddy overhead the ratio is taken
	// against: when plain Caddy adds less than this (or, by noise, less
	// than nothing) the allowance is 1.5 x this floor instead, so a ratio
	// of two near-zero numbers does not decide the check.
	addedP50FloorMs = 0.05
	// highConcurrency is the concurrency from which the streams' added
	// time to first token is held to plain Caddy's (the client then
	// saturates its CPU and both proxies queue) and at which peak memory
	// is compared.
	highConcurrency = 100
	// maxAddedTTFTMs: below highConcurrency, modelgate's added p50 time to
	// first streamed token over direct stays under this.
	maxAddedTTFTMs = 1.0
	// maxTTFTOverCaddyMs: from highConcurrency, modelgate's added p50 time
	// to first token is at most plain Caddy's added time plus this.
	maxTTFTOverCaddyMs = 0.5
	// maxRSSOverCaddyBytes: modelgate's highest peak RSS at
	// highConcurrency (any workload) is at most plain Caddy's highest
	// there plus this.
	maxRSSOverCaddyBytes = 32 << 20
)

// Check is one budget line.
type Check struct {
	// Name says what is checked and where.
	Name string `json:"name"`
	// Value is the measured figure; Limit the bound it is held to.
	Value float64 `json:"value"`
	Limit float64 `json:"limit"`
	// Unit of Value and Limit ("x", "ms", "MiB", "records").
	Unit string `json:"unit"`
	// Op is how Value must compare with Limit to pass: ">=", "<=", "<"
	// or "="; empty for INFO.
	Op string `json:"op"`
	// Result is PASS, FAIL, SKIP (a cell was missing or failed) or INFO
	// (a figure reported without a bound: Op and Limit are empty).
	Result string `json:"result"`
	// Detail gives the figures the value came from.
	Detail string `json:"detail,omitempty"`
}

// Check results.
const (
	pass = "PASS"
	fail = "FAIL"
	skip = "SKIP"
	// info marks a figure reported without a bound; it never fails.
	info = "INFO"
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

// evaluateBudget checks the budget on a run's cells and the gateways'
// record counts. concs and sizes are the run's concurrency levels and
// body sizes.
func evaluateBudget(cells []*Cell, records []Records, concs, sizes []int) []Check {
	ix := indexCells(cells)
	var out []Check
	for _, w := range []string{"chat", "chat-stream"} {
		for _, conc := range concs {
			for _, size := range sizes {
				where := fmt.Sprintf("%s %s c=%d", w, sizeName(size), conc)
				d, c, m := ix.get(w, targetDirect, conc, size), ix.get(w, targetCaddy, conc, size), ix.get(w, targetModelgate, conc, size)
				out = append(out, throughputCheck("throughput modelgate/caddy, "+where, minThroughputRatio, m, c))
				if w == "chat" {
					out = append(out, addedP50Check(where, d, c, m))
				} else {
					out = append(out, ttftCheck(where, conc, d, c, m))
				}
			}
		}
	}
	out = append(out, rssCheck(cells))
	for _, w := range []string{"chat", "chat-stream"} {
		for _, conc := range concs {
			for _, size := range sizes {
				where := fmt.Sprintf("%s %s c=%d", w, sizeName(size), conc)
				out = append(out, throughputCheck("throughput budget on/off, "+where, minBudgetRatio,
					ix.get(w, targetBudget, conc, size), ix.get(w, targetModelgate, conc, size)))
				out = append(out, throughputCheck("throughput alias/model name, "+where, minAliasRatio,
					ix.get(w, targetAlias, conc, size), ix.get(w, targetModelgate, conc, size)))
			}
		}
	}
	if slices.Contains(gatewayTargets, targetPG) {
		for _, w := range []string{"chat", "chat-stream"} {
			for _, conc := range concs {
				for _, size := range sizes {
					where := fmt.Sprintf("%s %s c=%d", w, sizeName(size), conc)
					out = append(out, ratioInfo("throughput PostgreSQL+Redis/bbolt, "+where,
						ix.get(w, targetPG, conc, size), ix.get(w, targetModelgate, conc, size)))
				}
			}
		}
	}
	for _, conc := range concs {
		for _, size := range sizes {
			where := fmt.Sprintf("chat-cached %s c=%d", sizeName(size), conc)
			out = append(out, throughputCheck("throughput cache hits/uncached, "+where, minCacheRatio,
				ix.get("chat-cached", targetCache, conc, size), ix.get("chat-cached", targetModelgate, conc, size)))
		}
	}
	for _, t := range gatewayTargets {
		out = append(out, recordChecks(t, records)...)
	}
	return out
}

// throughputCheck: num rps / den rps >= min.
func throughputCheck(name string, minRatio float64, num, den *Cell) Check {
	ck := Check{Name: name, Limit: minRatio, Unit: "x", Op: ">="}
	if !den.ok() || !num.ok() || den.Result.ThroughputRPS <= 0 {
		ck.Result = skip
		return ck
	}
	ck.Value = round3(num.Result.ThroughputRPS / den.Result.ThroughputRPS)
	ck.Detail = fmt.Sprintf("%s %.0f rps, %s %.0f rps", num.Target, num.Result.ThroughputRPS, den.Target, den.Result.ThroughputRPS)
	ck.Result = verdict(ck.Value >= ck.Limit)
	return ck
}

// ratioInfo reports num rps / den rps without a bound: the figure is
// given, not judged (INFO), or SKIP when a cell is missing or failed.
func ratioInfo(name string, num, den *Cell) Check {
	ck := throughputCheck(name, 0, num, den)
	if ck.Result != skip {
		ck.Result, ck.Op = info, ""
	}
	return ck
}

// addedP50Check: (modelgate p50 - direct p50) <= maxAddedP50Ratio x
// max(caddy p50 - direct p50, addedP50FloorMs).
func addedP50Check(where string, direct, caddy, mg *Cell) Check {
	ck := Check{Name: "added p50 modelgate vs 1.5x caddy's, " + where, Unit: "ms", Op: "<="}
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

// ttftCheck: modelgate's added TTFT p50 (over direct) is under
// maxAddedTTFTMs below highConcurrency, and at most caddy's added TTFT p50
// plus maxTTFTOverCaddyMs from it.
func ttftCheck(where string, conc int, direct, caddy, mg *Cell) Check {
	hasTTFT := func(c *Cell) bool { return c.ok() && c.Result.TTFT != nil }
	if conc < highConcurrency {
		ck := Check{Name: "added TTFT p50, " + where, Limit: maxAddedTTFTMs, Unit: "ms", Op: "<"}
		if !hasTTFT(direct) || !hasTTFT(mg) {
			ck.Result = skip
			return ck
		}
		ck.Value = round3(mg.Result.TTFT.P50 - direct.Result.TTFT.P50)
		ck.Detail = fmt.Sprintf("TTFT p50 direct %.3f, modelgate %.3f ms", direct.Result.TTFT.P50, mg.Result.TTFT.P50)
		ck.Result = verdict(ck.Value < ck.Limit)
		return ck
	}
	ck := Check{Name: fmt.Sprintf("added TTFT p50 vs caddy's +%.1f ms, %s", maxTTFTOverCaddyMs, where), Unit: "ms", Op: "<="}
	if !hasTTFT(direct) || !hasTTFT(caddy) || !hasTTFT(mg) {
		ck.Result = skip
		return ck
	}
	base := direct.Result.TTFT.P50
	caddyAdded := caddy.Result.TTFT.P50 - base
	ck.Value = round3(mg.Result.TTFT.P50 - base)
	ck.Limit = round3(caddyAdded + maxTTFTOverCaddyMs)
	ck.Detail = fmt.Sprintf("TTFT p50 direct %.3f, caddy %.3f (+%.3f), modelgate %.3f ms", base, caddy.Result.TTFT.P50, caddyAdded, mg.Result.TTFT.P50)
	if caddy.LoadBusy > 0 && mg.LoadBusy > 0 {
		ck.Detail += fmt.Sprintf("; load side busy %.0f%% (direct), %.0f%% (caddy), %.0f%% (modelgate)",
			100*direct.LoadBusy, 100*caddy.LoadBusy, 100*mg.LoadBusy)
	}
	ck.Result = verdict(ck.Value <= ck.Limit)
	return ck
}

// rssCheck: the highest peak RSS of modelgate over all its cells at
// highConcurrency is at most plain Caddy's highest there plus
// maxRSSOverCaddyBytes.
func rssCheck(cells []*Cell) Check {
	ck := Check{Name: fmt.Sprintf("peak RSS modelgate vs caddy's +%d MiB at c=%d (all workloads)", maxRSSOverCaddyBytes>>20, highConcurrency),
		Unit: "MiB", Op: "<="}
	peak := func(target string) (int64, string) {
		var p int64
		var where string
		for _, c := range cells {
			if c.Target == target && c.Concurrency == highConcurrency && c.ok() && c.PeakRSSBytes > p {
				p, where = c.PeakRSSBytes, fmt.Sprintf("%s %s", c.Workload, sizeName(c.BodySize))
			}
		}
		return p, where
	}
	mg, mgWhere := peak(targetModelgate)
	cd, cdWhere := peak(targetCaddy)
	if mg == 0 || cd == 0 {
		ck.Result = skip
		return ck
	}
	ck.Value = round3(float64(mg) / (1 << 20))
	ck.Limit = round3(float64(cd+maxRSSOverCaddyBytes) / (1 << 20))
	ck.Detail = fmt.Sprintf("modelgate highest in %s, caddy %.1f MiB in %s", mgWhere, float64(cd)/(1<<20), cdWhere)
	ck.Result = verdict(mg <= cd+maxRSSOverCaddyBytes)
	return ck
}

// recordChecks: the gateway dropped no audit entry and no usage record,
// and stored one of each for every request answered (at most one for
// every request sent: a request cut off on the way may be recorded too).
// Counts that could not be read fail: nothing then shows that no record
// was lost.
func recordChecks(target string, records []Records) []Check {
	var r *Records
	for i := range records {
		if records[i].Target == target {
			r = &records[i]
		}
	}
	checks := []Check{
		{Name: target + ": audit entries dropped", Unit: "records", Op: "="},
		{Name: target + ": usage records dropped", Unit: "records", Op: "="},
		{Name: target + ": audit entries stored for requests answered", Unit: "records", Op: ">="},
		{Name: target + ": usage records stored for requests answered", Unit: "records", Op: ">="},
	}
	switch {
	case r == nil || r.Answered == 0 && r.Error == "":
		for i := range checks {
			checks[i].Result = skip
		}
		return checks
	case r.Error != "":
		for i := range checks {
			checks[i].Result, checks[i].Detail = fail, "counts not read: "+firstLine(r.Error)
		}
		return checks
	}
	for i, dropped := range []int64{r.AuditDropped, r.UsageDropped} {
		checks[i].Value = float64(dropped)
		checks[i].Result = verdict(dropped == 0)
	}
	for i, stored := range []int64{r.AuditStored, r.UsageStored} {
		ck := &checks[2+i]
		ck.Value, ck.Limit = float64(stored), float64(r.Answered)
		ck.Detail = fmt.Sprintf("%d sent, %d answered, %d stored", r.Sent, r.Answered, stored)
		ck.Result = verdict(stored >= int64(r.Answered) && stored <= int64(r.Sent))
	}
	return checks
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
