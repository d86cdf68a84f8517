package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelgate/modelgate/bench/internal/stats"
)

// runMatrix runs every cell. A round runs the whole matrix once; within
// it, each group (one workload, body size and concurrency) runs its
// targets back to back, in alternating order from round to round (direct,
// caddy, modelgate, modelgate-budget, then the reverse). A burst of other work
// on a shared machine then touches one round of a group, not all, and a
// cell's figures are the median over its rounds. After a gateway's job the
// matrix waits until that gateway's store has written the job's records
// (counted from base, its counts before the matrix), so that its writer
// does not spill into the next target's measurement.
func runMatrix(ctx context.Context, o options, b bins, s *servers, messagesServed bool, base map[string]recordCounts, logf func(string, ...any)) ([]*Cell, error) {
	cells, jobs := planJobs(o, messagesServed)
	answered := map[string]int64{}
	for i, j := range jobs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		time.Sleep(o.settleBefore)
		c := j.cell
		res, m, err := runCell(ctx, o, b, s, c.cellKey)
		rss, anon, cpuUs := m.rss, m.anon, m.cpuUs
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			c.Status = "error: " + firstLine(err.Error())
		case res.OK == 0:
			c.Status = "error: no successful requests (" + res.FirstError + ")"
		case !strings.HasPrefix(c.Status, "error"):
			c.Status = statusOK
		}
		if res != nil {
			c.Rounds = append(c.Rounds, res)
		}
		if rss > 0 {
			c.roundsRSS, c.roundsAnon = append(c.roundsRSS, float64(rss)), append(c.roundsAnon, float64(anon))
		}
		if cpuUs > 0 {
			c.roundsCPU = append(c.roundsCPU, cpuUs)
		}
		if m.loadBusy > 0 {
			c.roundsLoad = append(c.roundsLoad, m.loadBusy)
		}
		logf("[%d/%d] round %d %s", i+1, len(jobs), j.round+1, progressLine(c.cellKey, res, m, err))
		if res != nil && isGateway(c.Target) && base != nil {
			answered[c.Target] += int64(res.Answered)
			b0 := base[c.Target]
			want := recordCounts{audit: b0.audit + answered[c.Target], usage: b0.usage + answered[c.Target]}
			t0 := time.Now()
			got, err := settleRecords(ctx, s.readFunc(c.Target), want, 2*time.Second, 20*time.Second)
			if err != nil && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if d := time.Since(t0); d > 500*time.Millisecond || err != nil {
				logf("    %s store: %d/%d audit, %d/%d usage stored after waiting %.1fs (err %v)",
					c.Target, got.audit-b0.audit, answered[c.Target], got.usage-b0.usage, answered[c.Target], d.Seconds(), err)
			}
		}
		for _, p := range s.all() {
			if p.exited() {
				return nil, p.failure(fmt.Errorf("exited during the run: %v", p.waitErr))
			}
		}
	}
	for _, c := range cells {
		c.Result = combineRounds(c.Rounds)
		c.PeakRSSBytes, c.PeakAnonBytes = int64(medianOf(c.roundsRSS)), int64(medianOf(c.roundsAnon))
		c.CPUPerRequestUs = round1(medianOf(c.roundsCPU))
		c.LoadBusy = round3(medianOf(c.roundsLoad))
		if len(c.Rounds) < 2 {
			continue
		}
		for _, r := range c.Rounds {
			c.RoundsRPS = append(c.RoundsRPS, round1(r.ThroughputRPS))
			if r.Latency != nil {
				c.RoundsP50Ms = append(c.RoundsP50Ms, r.Latency.P50)
			}
			if r.TTFT != nil {
				c.RoundsTTFTP50Ms = append(c.RoundsTTFTP50Ms, r.TTFT.P50)
			}
		}
	}
	return cells, nil
}

// job is one load generator run: a cell in one round.
type job struct {
	cell  *Cell
	round int
}

// planJobs lays out the cells of the selected workloads and the order in
// which to measure them (see runMatrix). Cells of messages workloads are
// marked not served, and get no jobs, unless messagesServed.
func planJobs(o options, messagesServed bool) ([]*Cell, []job) {
	var cells []*Cell
	var groups [][]*Cell
	for _, w := range workloads {
		if len(o.only) > 0 && !o.only[w.Name] {
			continue
		}
		for _, size := range o.sizes {
			for _, conc := range o.concurrency {
				group := make([]*Cell, len(w.Targets))
				for i, t := range w.Targets {
					group[i] = &Cell{cellKey: cellKey{Workload: w.Name, Target: t, Concurrency: conc, BodySize: size}}
					if w.Shape == "messages" && !messagesServed {
						group[i].Status = statusNotServed
					}
				}
				cells = append(cells, group...)
				if w.Shape != "messages" || messagesServed {
					groups = append(groups, group)
				}
			}
		}
	}
	var jobs []job
	for r := 0; r < o.rounds; r++ {
		for _, group := range groups {
			for i := range group {
				if r%2 == 1 {
					i = len(group) - 1 - i
				}
				jobs = append(jobs, job{group[i], r})
			}
		}
	}
	return cells, jobs
}

// cellMeasures are what runCell measured besides the load generator's
// figures.
type cellMeasures struct {
	// rss and anon are the target server's peak memory; cpuUs its CPU per
	// answered request (0 for direct).
	rss, anon int64
	cpuUs     float64
	// loadBusy is how busy the load generator and mockupstream kept their
	// CPUs (see loadBusy); 0 when not measured.
	loadBusy float64
}

// runCell runs the load generator for one cell while watching the target
// server's peak memory and the CPU it uses per answered request, and the
// CPU the load side (the load generator and mockupstream) used.
func runCell(ctx context.Context, o options, b bins, s *servers, k cellKey) (res *stats.Result, m cellMeasures, err error) {
	var w workload
	for _, x := range workloads {
		if x.Name == k.Workload {
			w = x
		}
	}
	watched := s.proxy(k.Target)
	var (
		pw      *peakWatch
		cpu0    int64
		cpu0Err error
	)
	if watched != nil {
		pw = watchPeak(watched.pid())
		cpu0, cpu0Err = readCPUTicks(watched.pid())
	}
	up0, up0Err := readCPUTicks(s.upstream.pid())
	start := time.Now()
	res, genCPU, err := loadgen(ctx, b, o, w, k, s.urls[k.Target])
	wall := time.Since(start)
	if up1, err1 := readCPUTicks(s.upstream.pid()); up0Err == nil && err1 == nil && err == nil {
		m.loadBusy = loadBusy(up1-up0, genCPU, wall, o.cpus.othersN)
	}
	if pw != nil {
		m.rss, m.anon = pw.stop()
		if cpu1, err1 := readCPUTicks(watched.pid()); cpu0Err == nil && err1 == nil && res != nil {
			m.cpuUs = cpuPerRequestUs(cpu0, cpu1, res.Answered)
		}
	}
	return res, m, err
}

// loadBusy is the share of their CPUs the load side kept busy during a
// load generator run of length wall: mockupstream's CPU ticks and the
// load generator's CPU time over wall times cpus, the number of CPUs the
// two were pinned to. Near 1 the load side, not the proxy, sets the
// pace, and latencies include waiting for it. 0 when unpinned (cpus 0)
// or wall is not positive.
func loadBusy(upstreamTicks int64, loadgenCPU, wall time.Duration, cpus int) float64 {
	if cpus <= 0 || wall <= 0 || upstreamTicks < 0 {
		return 0
	}
	used := time.Duration(upstreamTicks)*time.Second/userHZ + loadgenCPU
	return used.Seconds() / (wall.Seconds() * float64(cpus))
}

// loadgen runs the load generator once and decodes its JSON; it also
// returns the CPU time (user and system) the load generator used.
func loadgen(ctx context.Context, b bins, o options, w workload, k cellKey, url string) (*stats.Result, time.Duration, error) {
	args := []string{
		"-url", url, "-shape", w.Shape, "-stream=" + strconv.FormatBool(w.Stream),
		"-concurrency", strconv.Itoa(k.Concurrency), "-duration", o.duration.String(), "-warmup", o.warmup.String(),
		"-body-size", strconv.Itoa(k.BodySize), "-api-key", keyFor(k.Target), "-model", benchModel,
		"-max-tokens", strconv.Itoa(o.maxTokens),
	}
	cmd := o.cpus.command(ctx, o.cpus.others, b.loadgen, args...)
	var errBuf strings.Builder
	cmd.Stderr = &errBuf
	out, err := cmd.Output()
	if err != nil {
		return nil, 0, fmt.Errorf("loadgen: %w: %s", err, strings.TrimSpace(errBuf.String()))
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	var res stats.Result
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, cpu, fmt.Errorf("loadgen output: %w", err)
	}
	return &res, cpu, nil
}

func progressLine(k cellKey, res *stats.Result, m cellMeasures, err error) string {
	head := fmt.Sprintf("%-15s %5s c=%-3d %-9s", k.Workload, sizeName(k.BodySize), k.Concurrency, k.Target)
	switch {
	case err != nil:
		return head + " error: " + firstLine(err.Error())
	case res.Latency == nil:
		return head + " no successful requests: " + res.FirstError
	}
	line := fmt.Sprintf("%s %7.0f rps  p50 %.3f ms  p99 %.3f ms", head, res.ThroughputRPS, res.Latency.P50, res.Latency.P99)
	if res.TTFT != nil {
		line += fmt.Sprintf("  TTFT p50 %.3f ms", res.TTFT.P50)
	}
	if m.rss > 0 {
		line += "  RSS " + mib(m.rss) + " MiB"
	}
	if m.cpuUs > 0 {
		line += fmt.Sprintf("  CPU %.0f µs/req", m.cpuUs)
	}
	if m.loadBusy > 0 {
		line += fmt.Sprintf("  load side %.0f%% busy", 100*m.loadBusy)
	}
	if n := res.Errors + res.Non2xx; n > 0 {
		line += fmt.Sprintf("  %d errors (%s)", n, res.FirstError)
	}
	return line
}
