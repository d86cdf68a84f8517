package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// cpuPlan says which CPUs each process of a run may use, as taskset(1)
// lists. With pinning, the proxy under test (plain Caddy or modelgate) gets
// its own CPUs and the load generator and mockupstream share the others, as
// when a gateway runs on its own machine between clients and providers: a
// proxy's figures then show its own work, not time spent waiting for the
// load generator to get off the same core. Empty lists mean unpinned.
type cpuPlan struct {
	taskset string // path of taskset, when pinning
	proxy   string // CPUs of caddy and modelgate
	others  string // CPUs of mockupstream and the load generator
	// othersN is how many CPUs others lists; 0 unpinned.
	othersN int
}

// describe says how the run placed its processes, for the report.
func (p cpuPlan) describe() string {
	if p.taskset == "" {
		return "unpinned: load generator, mockupstream and the proxy share every CPU"
	}
	return fmt.Sprintf("proxies (caddy and every modelgate target) on CPU %s; load generator and mockupstream on CPU %s", p.proxy, p.others)
}

// command is exec.CommandContext(bin, args...), run under taskset on cpus
// when the plan pins. taskset execs bin, so the process id is bin's.
func (p cpuPlan) command(ctx context.Context, cpus, bin string, args ...string) *exec.Cmd {
	if p.taskset == "" || cpus == "" {
		return exec.CommandContext(ctx, bin, args...)
	}
	return exec.CommandContext(ctx, p.taskset, append([]string{"-c", cpus, bin}, args...)...)
}

// planCPUs splits the CPUs this process may use: the upper half for the
// proxy, the lower half for the rest. It pins only when asked, when there
// are at least two CPUs and when taskset is installed; otherwise the
// returned note says why not.
func planCPUs(pin bool) (cpuPlan, string) {
	if !pin {
		return cpuPlan{}, ""
	}
	cpus, err := allowedCPUs()
	if err != nil {
		return cpuPlan{}, "not pinned: " + err.Error()
	}
	if len(cpus) < 2 {
		return cpuPlan{}, "not pinned: only one CPU"
	}
	path, err := exec.LookPath("taskset")
	if err != nil {
		return cpuPlan{}, "not pinned: taskset not found (Debian package util-linux)"
	}
	half := len(cpus) / 2
	return cpuPlan{taskset: path, proxy: joinInts(cpus[half:]), others: joinInts(cpus[:half]), othersN: half}, ""
}

// allowedCPUs reads the CPUs this process may run on from
// /proc/self/status (Cpus_allowed_list, e.g. "0-3,6").
func allowedCPUs() ([]int, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return parseCPUList(strings.TrimSpace(v))
		}
	}
	return nil, fmt.Errorf("no Cpus_allowed_list in /proc/self/status")
}

// parseCPUList parses a kernel CPU list such as "0-3,6".
func parseCPUList(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("CPU list %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("CPU list %q: bad range %q", s, part)
			}
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	return out, nil
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}
