package main

import (
	"time"

	"github.com/modelgate/modelgate/bench/internal/stats"
)

// Report is the JSON document a run writes to bench/results/.
type Report struct {
	// StartedAt is when the run began (UTC).
	StartedAt time.Time `json:"started_at"`
	// Host describes the machine and the code measured.
	Host Host `json:"host"`
	// Settings are the run's parameters.
	Settings Settings `json:"settings"`
	// RateLimitHeader is modelgate's X-Ratelimit-Limit-Requests on a probe:
	// the seeded rule's cap when the rate-limit stage applies it, else "".
	RateLimitHeader string `json:"rate_limit_header,omitempty"`
	// BudgetProbe describes the budget on "/" that the modelgate-budget
	// target listed at GET /admin/budgets before the matrix.
	BudgetProbe string `json:"budget_probe,omitempty"`
	// Idle is each proxy's memory once started, before any load: plain
	// Caddy's shows what the binary itself costs.
	Idle map[string]memInfo `json:"idle_memory,omitempty"`
	// Cells are the measurements, one per workload x target x concurrency x body size.
	Cells []*Cell `json:"cells"`
	// Records set, for each gateway, the requests sent against the audit
	// entries and usage records stored and dropped.
	Records []Records `json:"records,omitempty"`
	// Allocs are the proxy package's in-process benchmarks.
	Allocs []allocBench `json:"allocs,omitempty"`
	// AllocsError says why Allocs is empty, if it is.
	AllocsError string `json:"allocs_error,omitempty"`
	// Budget is the overhead budget, checked on this run's cells.
	Budget []Check `json:"budget"`
	// BudgetPass is true when no check failed (skipped checks do not fail).
	BudgetPass bool `json:"budget_pass"`
	// Profile names the pprof files of the -profile run, if any.
	Profile *ProfileFiles `json:"profile,omitempty"`
	// Notes are remarks a reader needs (skipped workloads and why).
	Notes []string `json:"notes,omitempty"`
}

// Host is the machine and the code measured.
type Host struct {
	GOOS      string `json:"goos"`
	GOARCH    string `json:"goarch"`
	NumCPU    int    `json:"num_cpu"`
	CPUModel  string `json:"cpu_model,omitempty"`
	GoVersion string `json:"go_version"`
	Commit    string `json:"commit,omitempty"`
	Dirty     bool   `json:"dirty,omitempty"`
}

// Settings are the run's parameters.
type Settings struct {
	DurationS   float64 `json:"duration_s"`
	WarmupS     float64 `json:"warmup_s"`
	Concurrency []int   `json:"concurrency"`
	BodySizes   []int   `json:"body_sizes"`
	MaxTokens   int     `json:"max_tokens"`
	ChunkDelay  string  `json:"upstream_chunk_delay"`
	Latency     string  `json:"upstream_latency"`
	Rounds      int     `json:"rounds"`
	Quick       bool    `json:"quick"`
	// Placement says which CPUs the proxy, the load generator and
	// mockupstream ran on.
	Placement string `json:"placement"`
}

// Cell is one measurement: one workload against one target at one
// concurrency and body size.
type Cell struct {
	cellKey
	// Status is "ok", "n/a (not yet served)" or "error: ...".
	Status string `json:"status"`
	// Result is what the load generator measured.
	Result *stats.Result `json:"result,omitempty"`
	// PeakRSSBytes is the server process's peak resident memory during the
	// cell (the median over rounds, like every figure; 0 for direct, whose
	// server is mockupstream itself). Memory the process kept from earlier,
	// larger cells counts too: Go returns freed memory to the system slowly.
	PeakRSSBytes int64 `json:"peak_rss_bytes,omitempty"`
	// PeakAnonBytes is the highest anonymous RSS sampled (heap and stacks,
	// without the pages of the binary that VmHWM also counts).
	PeakAnonBytes int64 `json:"peak_anon_bytes,omitempty"`
	// CPUPerRequestUs is the CPU time (user and system, all threads) the
	// server used per answered request during the load generator's run,
	// warm-up included, in microseconds; 0 for direct. At a concurrency
	// where the proxy's CPU is the bottleneck, its latencies follow this
	// figure.
	CPUPerRequestUs float64 `json:"cpu_per_request_us,omitempty"`
	// LoadBusy is the share of their CPUs the load generator and
	// mockupstream kept busy during the cell, from 0 to 1 (0: not
	// measured, the run was not pinned). Near 1 the load side sets the
	// pace: latencies then include waiting for the load generator and the
	// upstream, and a faster proxy is offered more load.
	LoadBusy float64 `json:"load_busy,omitempty"`
	// roundsRSS and roundsAnon are each round's peaks, roundsCPU each
	// round's CPU per request, roundsLoad each round's LoadBusy.
	roundsRSS, roundsAnon, roundsCPU, roundsLoad []float64
	// Rounds are the results of each round; Result is their median.
	Rounds []*stats.Result `json:"-"`
	// Reference is the workload whose direct cell the added figures are
	// computed against (the cell's own, except for messages).
	Reference string `json:"reference,omitempty"`
	// AddedP50Ms is the cell's p50 latency minus the direct p50.
	AddedP50Ms *float64 `json:"added_p50_ms,omitempty"`
	// AddedTTFTP50Ms (streams) is the p50 time to first token minus the
	// direct one.
	AddedTTFTP50Ms *float64 `json:"added_ttft_p50_ms,omitempty"`
	// Alloc is the in-process benchmark for this workload (modelgate only).
	Alloc *allocBench `json:"alloc,omitempty"`
	// RoundsRPS, RoundsP50Ms and RoundsTTFTP50Ms are each round's
	// throughput, p50 and TTFT p50 (when there was more than one round),
	// to show how much the figures moved.
	RoundsRPS       []float64 `json:"rounds_rps,omitempty"`
	RoundsP50Ms     []float64 `json:"rounds_p50_ms,omitempty"`
	RoundsTTFTP50Ms []float64 `json:"rounds_ttft_p50_ms,omitempty"`
}

// ok reports whether the cell produced usable figures.
func (c *Cell) ok() bool {
	return c != nil && c.Status == statusOK && c.Result != nil && c.Result.Latency != nil
}

// Cell statuses other than errors.
const (
	statusOK        = "ok"
	statusNotServed = "n/a (not yet served)"
)

// ProfileFiles are the outputs of a -profile run.
type ProfileFiles struct {
	Cell       cellKey `json:"cell"`
	CPU        string  `json:"cpu"`
	CPUTop     string  `json:"cpu_top"`
	Allocs     string  `json:"allocs"`
	AllocsBase string  `json:"allocs_base"`
	AllocsTop  string  `json:"allocs_top"`
}
