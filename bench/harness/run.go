package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

// bins are the binaries a run builds.
type bins struct{ modelgate, mockupstream, loadgen string }

// run is the whole harness: build, start, measure, report.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	root, err := findRoot()
	if err != nil {
		return err
	}
	if o.out == "" {
		o.out = filepath.Join(root, "bench", "results")
	}
	tmp, err := os.MkdirTemp("", "modelgate-bench-")
	if err != nil {
		return err
	}
	if o.keepTemp {
		fmt.Fprintln(stderr, "temporary directory kept:", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	var pinNote string
	o.cpus, pinNote = planCPUs(o.pin)

	report := &Report{StartedAt: time.Now().UTC().Truncate(time.Second), Host: hostInfo(root), Settings: Settings{
		DurationS: o.duration.Seconds(), WarmupS: o.warmup.Seconds(), Concurrency: o.concurrency, BodySizes: o.sizes,
		MaxTokens: o.maxTokens, ChunkDelay: o.chunkDelay.String(), Latency: "0s", Rounds: o.rounds, Quick: o.quick,
		Placement: o.cpus.describe(),
	}}
	if pinNote != "" {
		report.Notes = append(report.Notes, pinNote)
		logf("%s", pinNote)
	}

	if len(o.targets) > 0 {
		for _, t := range slices.Clone(allTargets) {
			if t != targetDirect && t != targetModelgate && !o.targets[t] {
				dropTarget(t)
			}
		}
		if !o.targets[targetCache] {
			dropTarget(targetCache)
		}
	}
	if o.profile && !slices.Contains(gatewayTargets, o.profileCell.Target) {
		return fmt.Errorf("-profile-cell: target %s is not run", o.profileCell.Target)
	}
	if !slices.Contains(allTargets, targetPG) {
		o.shared = nil
	} else if o.shared, err = prepareShared(ctx, o.postgres, o.redis, report.StartedAt.Format("20060102T150405Z")); err != nil {
		dropTarget(targetPG)
		note := targetPG + " not run: " + err.Error()
		report.Notes = append(report.Notes, note)
		logf("%s", note)
	} else {
		defer func() {
			if err := o.shared.drop(); err != nil {
				logf("%v", err)
			}
		}()
		if o.placeDB {
			placed, note := placeServers(ctx, o.cpus, o.shared.DSN, o.shared.RedisURL)
			defer placed.restore()
			report.Notes = append(report.Notes, note)
			logf("%s", note)
		}
	}

	logf("building modelgate, mockupstream and loadgen into %s ...", tmp)
	b, err := build(ctx, root, filepath.Join(tmp, "bin"))
	if err != nil {
		return err
	}

	ps := &procs{}
	defer ps.stopAll()
	srv, err := startServers(ctx, ps, b, tmp, o)
	if err != nil {
		return err
	}
	report.Idle = map[string]memInfo{}
	for _, t := range append([]string{targetCaddy}, gatewayTargets...) {
		if m, err := readMem(srv.proxy(t).pid()); err == nil {
			report.Idle[t] = m
		}
	}
	messagesServed, err := probeTargets(ctx, srv, report)
	if err != nil {
		return err
	}

	base, err := baselineRecords(ctx, srv)
	if err != nil {
		return err
	}

	report.Cells, err = runMatrix(ctx, o, b, srv, messagesServed, base, logf)
	if err != nil {
		return err
	}
	logf("waiting for the gateways' stores to catch up, then counting records ...")
	report.Records = finalRecords(ctx, srv, report.Cells, base)
	if o.profile {
		if report.Profile, err = runProfile(ctx, o, b, srv, report.StartedAt, logf); err != nil {
			report.Notes = append(report.Notes, "profile: "+err.Error())
			logf("profile failed: %v", err)
		}
	}
	ps.stopAll() // free the CPU for the in-process benchmarks

	if o.allocs {
		logf("running go test -bench %s -benchmem ./internal/gateway/proxy ...", allocBenchPattern)
		var out string
		if report.Allocs, out, err = runAllocBenches(ctx, root); err != nil {
			report.AllocsError = err.Error() + "\n" + out
			logf("in-process benchmarks failed: %v", err)
		}
	}

	fillDerived(report.Cells, report.Allocs)
	report.Budget = evaluateBudget(report.Cells, report.Records, o.concurrency, o.sizes)
	report.BudgetPass = budgetPassed(report.Budget)
	printTable(stdout, report)
	path, err := writeJSON(o.out, report)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nwrote %s (and latest.json)\n", path)
	if o.strict && !report.BudgetPass {
		return errBudget
	}
	return nil
}

// build compiles the three binaries into dir.
func build(ctx context.Context, root, dir string) (bins, error) {
	b := bins{
		modelgate:    filepath.Join(dir, "modelgate"),
		mockupstream: filepath.Join(dir, "mockupstream"),
		loadgen:      filepath.Join(dir, "loadgen"),
	}
	for _, t := range []struct{ out, pkg string }{
		{b.modelgate, "./cmd/modelgate"}, {b.mockupstream, "./cmd/mockupstream"}, {b.loadgen, "./bench/loadgen"},
	} {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", t.out, t.pkg)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return b, fmt.Errorf("go build %s: %w\n%s", t.pkg, err, out)
		}
	}
	return b, nil
}
