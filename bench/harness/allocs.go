package main

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// allocBench is one line of `go test -bench -benchmem` output.
type allocBench struct {
	Name        string  `json:"name"`
	NsPerOp     float64 `json:"ns_per_op"`
	BytesPerOp  int64   `json:"bytes_per_op"`
	AllocsPerOp int64   `json:"allocs_per_op"`
}

// allocBenchPattern selects the in-process benchmarks of the hot path.
const allocBenchPattern = "BenchmarkProxy"

// runAllocBenches runs the proxy package's benchmarks with -benchmem in
// the repository at root and parses the results.
func runAllocBenches(ctx context.Context, root string) ([]allocBench, string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", allocBenchPattern, "-benchmem", "./internal/gateway/proxy")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, string(out), fmt.Errorf("go test -bench %s ./internal/gateway/proxy: %w", allocBenchPattern, err)
	}
	return parseBenchOutput(string(out)), string(out), nil
}

var benchLineRE = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(?:\s+[\d.]+ MB/s)?\s+(\d+) B/op\s+(\d+) allocs/op`)

// parseBenchOutput extracts the -benchmem lines; the "-N" GOMAXPROCS
// suffix is dropped from names.
func parseBenchOutput(out string) []allocBench {
	var list []allocBench
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		m := benchLineRE.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		ns, _ := strconv.ParseFloat(m[2], 64)
		b, _ := strconv.ParseInt(m[3], 10, 64)
		a, _ := strconv.ParseInt(m[4], 10, 64)
		list = append(list, allocBench{Name: m[1], NsPerOp: ns, BytesPerOp: b, AllocsPerOp: a})
	}
	return list
}

// findAllocBench returns the benchmark for a workload and body size:
// "<name>/<size>" if there is one, else "<name>".
func findAllocBench(list []allocBench, name string, size int) *allocBench {
	if name == "" {
		return nil
	}
	for _, want := range []string{name + "/" + sizeName(size), name} {
		for i := range list {
			if list[i].Name == want {
				return &list[i]
			}
		}
	}
	return nil
}
