package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// runProfile loads modelgate with the -profile-cell workload while taking a
// CPU profile and two allocation snapshots from Caddy's admin endpoint
// (/debug/pprof/), then writes `go tool pprof -top` summaries beside the
// raw profiles in <out>/profiles/<stamp>/. The cell is not part of the
// table: profiling costs a little CPU.
func runProfile(ctx context.Context, o options, b bins, s *servers, stamp time.Time, logf func(string, ...any)) (*ProfileFiles, error) {
	adminURL := s.adminURLs[o.profileCell.Target]
	var w workload
	for _, x := range workloads {
		if x.Name == o.profileCell.Workload {
			w = x
		}
	}
	dir := filepath.Join(o.out, "profiles", stamp.Format("20060102T150405Z"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	pf := &ProfileFiles{
		Cell:       o.profileCell,
		CPU:        filepath.Join(dir, "cpu.pb.gz"),
		CPUTop:     filepath.Join(dir, "cpu-top.txt"),
		Allocs:     filepath.Join(dir, "allocs.pb.gz"),
		AllocsBase: filepath.Join(dir, "allocs-base.pb.gz"),
		AllocsTop:  filepath.Join(dir, "allocs-top.txt"),
	}
	logf("profiling %s under %s %s c=%d ...", o.profileCell.Target, w.Name, sizeName(o.profileCell.BodySize), o.profileCell.Concurrency)
	if err := fetch(ctx, adminURL+"/debug/pprof/allocs", pf.AllocsBase); err != nil {
		return nil, err
	}
	seconds := int(math.Ceil((o.warmup + o.duration).Seconds()))
	cpuErr := make(chan error, 1)
	go func() {
		cpuErr <- fetch(ctx, fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", adminURL, seconds), pf.CPU)
	}()
	res, _, err := loadgen(ctx, b, o, w, o.profileCell, s.urls[o.profileCell.Target])
	if err != nil {
		return nil, err
	}
	if err := <-cpuErr; err != nil {
		return nil, err
	}
	if err := fetch(ctx, adminURL+"/debug/pprof/allocs", pf.Allocs); err != nil {
		return nil, err
	}
	logf("profiled run: %.0f rps, p50 %.3f ms", res.ThroughputRPS, res.Latency.P50)
	if err := pprofTop(ctx, pf.CPUTop, pf.CPU, "-top", "-nodecount=40"); err != nil {
		return pf, err
	}
	if err := pprofTop(ctx, pf.AllocsTop, pf.Allocs, "-top", "-nodecount=40", "-sample_index=alloc_space", "-base", pf.AllocsBase); err != nil {
		return pf, err
	}
	logf("profiles in %s", dir)
	return pf, nil
}

// fetch saves the body of GET url to path.
func fetch(ctx context.Context, url, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// pprofTop writes `go tool pprof <args> <profile>` to out.
func pprofTop(ctx context.Context, out, profile string, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", append(append([]string{"tool", "pprof"}, args...), profile)...)
	b, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go tool pprof: %w: %s", err, b)
	}
	return os.WriteFile(out, b, 0o644)
}
