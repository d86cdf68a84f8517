package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/modelgate/modelgate/bench/internal/stats"
)

// fillDerived computes each cell's figures relative to direct (for
// messages workloads, direct's chat figures) and attaches the in-process
// allocation benchmark to modelgate cells.
func fillDerived(cells []*Cell, allocs []allocBench) {
	ix := indexCells(cells)
	byName := map[string]workload{}
	for _, w := range workloads {
		byName[w.Name] = w
	}
	for _, c := range cells {
		w := byName[c.Workload]
		if c.Target == targetModelgate {
			c.Alloc = findAllocBench(allocs, w.AllocBench, c.BodySize)
		}
		if c.Target == targetDirect && w.ref() == w.Name {
			continue
		}
		d := ix.get(w.ref(), targetDirect, c.Concurrency, c.BodySize)
		if !c.ok() || !d.ok() {
			continue
		}
		c.Reference = w.ref()
		v := round3(c.Result.Latency.P50 - d.Result.Latency.P50)
		c.AddedP50Ms = &v
		if c.Result.TTFT != nil && d.Result.TTFT != nil {
			t := round3(c.Result.TTFT.P50 - d.Result.TTFT.P50)
			c.AddedTTFTP50Ms = &t
		}
	}
}

// printTable writes the human-readable results: one row per cell, then
// the allocation benchmarks and the budget.
func printTable(w io.Writer, r *Report) {
	commit := r.Host.Commit
	if r.Host.Dirty {
		commit += " (uncommitted changes)"
	}
	fmt.Fprintf(w, "\nModelgate overhead, %s, commit %s, %d CPU (%s)\n%d round(s) x %gs per cell after %gs warm-up; upstream latency 0, chunk delay %s\n",
		r.StartedAt.Format("2006-01-02 15:04 UTC"), commit, r.Host.NumCPU, r.Host.CPUModel,
		r.Settings.Rounds, r.Settings.DurationS, r.Settings.WarmupS, r.Settings.ChunkDelay)
	fmt.Fprintf(w, "placement: %s\n", r.Settings.Placement)
	for _, t := range append([]string{targetCaddy}, gatewayTargets...) {
		if m, ok := r.Idle[t]; ok {
			fmt.Fprintf(w, "idle %s: RSS %s MiB (anon %s MiB)\n", t, mib(m.RSS), mib(m.Anon))
		}
	}
	if r.RateLimitHeader != "" {
		fmt.Fprintf(w, "modelgate applies the seeded rate-limit rule (%s: %s)\n", rateLimitHeader, r.RateLimitHeader)
	}
	if r.BudgetProbe != "" {
		fmt.Fprintf(w, "%s enforces a %s\n", targetBudget, r.BudgetProbe)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, tableHeader)
	// A failed cell has a "-" under each figure: every column but the
	// four that name the cell and the note.
	figures := strings.Count(tableHeader, "\t") - 4
	for _, c := range r.Cells {
		row := []string{c.Workload, sizeName(c.BodySize), strconv.Itoa(c.Concurrency), c.Target}
		if !c.ok() {
			for range figures {
				row = append(row, "-")
			}
			fmt.Fprintln(tw, strings.Join(row, "\t")+"\t  "+c.Status)
			continue
		}
		res := c.Result
		row = append(row,
			fmt.Sprintf("%.0f", res.ThroughputRPS),
			f3(res.Latency.P50), f3(res.Latency.P90), f3(res.Latency.P99),
			addedCell(c.AddedP50Ms, c.Reference, c.Workload),
			summaryP50(res.TTFT), addedCell(c.AddedTTFTP50Ms, c.Reference, c.Workload), summaryP50(res.TTLT),
			mib(c.PeakRSSBytes), mib(c.PeakAnonBytes), cpuCell(c.CPUPerRequestUs), loadCell(c.LoadBusy), allocCell(c.Alloc), strconv.Itoa(res.Errors+res.Non2xx))
		note := ""
		if c.Reference != "" && c.Reference != c.Workload {
			note = "  * vs direct " + c.Reference
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t"+note)
	}
	tw.Flush()
	fmt.Fprintln(w, "\n+p50 / +TTFT: the figure minus direct's; '*': against direct's chat figures (mockupstream has no /v1/messages).")
	fmt.Fprintln(w, "load %: how busy the load generator and mockupstream kept their CPUs; near 100 they, not the proxy, set the pace.")

	if len(r.Allocs) > 0 {
		fmt.Fprintln(w, "\nIn-process hot path (go test -bench "+allocBenchPattern+" -benchmem ./internal/gateway/proxy):")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "benchmark\tns/op\tB/op\tallocs/op\t")
		for _, a := range r.Allocs {
			fmt.Fprintf(tw, "%s\t%.0f\t%d\t%d\t\n", a.Name, a.NsPerOp, a.BytesPerOp, a.AllocsPerOp)
		}
		tw.Flush()
	} else if r.AllocsError != "" {
		fmt.Fprintln(w, "\nIn-process benchmarks failed: "+firstLine(r.AllocsError))
	}

	printRecords(w, r.Records)

	fmt.Fprintln(w, "\nBudget (ratios within this run):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, ck := range r.Budget {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ck.Result, ck.Name, checkFigure(ck), ck.Detail)
	}
	tw.Flush()
	verdict := "PASS"
	if !r.BudgetPass {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "Budget overall: %s\n", verdict)
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note: "+n)
	}
}

// printRecords writes, per gateway, the requests sent and the records
// stored and dropped.
func printRecords(w io.Writer, records []Records) {
	if len(records) == 0 {
		return
	}
	fmt.Fprintln(w, "\nRecords (whole matrix, warm-ups included):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "gateway\tsent\tanswered\taudit stored\tusage stored\taudit dropped\tusage dropped\t")
	for _, rc := range records {
		if rc.Error != "" {
			fmt.Fprintf(tw, "%s\t%d\t%d\t-\t-\t-\t-\t  %s\n", rc.Target, rc.Sent, rc.Answered, firstLine(rc.Error))
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t\n", rc.Target, rc.Sent, rc.Answered,
			rc.AuditStored, rc.UsageStored, rc.AuditDropped, rc.UsageDropped)
	}
	tw.Flush()
}

func checkFigure(ck Check) string {
	if ck.Result == skip {
		return "no data"
	}
	if ck.Op == "" {
		return fmt.Sprintf("%.3f %s", ck.Value, ck.Unit)
	}
	if ck.Unit == "records" {
		return fmt.Sprintf("%.0f %s %.0f", ck.Value, ck.Op, ck.Limit)
	}
	return fmt.Sprintf("%.3f %s %s %.3f", ck.Value, ck.Unit, ck.Op, ck.Limit)
}

func addedCell(v *float64, ref, workload string) string {
	if v == nil {
		return "-"
	}
	s := fmt.Sprintf("%+.3f", *v)
	if ref != "" && ref != workload {
		s += "*"
	}
	return s
}

func summaryP50(s *stats.Summary) string {
	if s == nil {
		return "-"
	}
	return f3(s.P50)
}

func f3(v float64) string { return fmt.Sprintf("%.3f", v) }

func mib(b int64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(b)/(1<<20))
}

func allocCell(a *allocBench) string {
	if a == nil {
		return "-"
	}
	return strconv.FormatInt(a.AllocsPerOp, 10)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// writeJSON writes the report to dir/<stamp>.json and dir/latest.json.
func writeJSON(dir string, r *Report) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", err
	}
	b = append(b, '\n')
	path := filepath.Join(dir, r.StartedAt.Format("20060102T150405Z")+".json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return "", err
	}
	return path, os.WriteFile(filepath.Join(dir, "latest.json"), b, 0o644)
}

// cpuCell formats a CPU-per-request figure; "-" when there is none.
func cpuCell(us float64) string {
	if us <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", us)
}

// loadCell is the load side's busy share as a percentage; "-" when not
// measured.
func loadCell(busy float64) string {
	if busy <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", 100*busy)
}

// tableHeader names the table's columns, tab-separated: the cell
// (workload, body, conc, target), its figures, and a note.
const tableHeader = "workload\tbody\tconc\ttarget\trps\tp50 ms\tp90 ms\tp99 ms\t+p50 ms\tTTFT p50\t+TTFT\tTTLT p50\tpeak RSS MiB\tanon MiB\tCPU µs/req\tload %\tallocs/op\terrors\t  note"
