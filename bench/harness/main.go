// Command harness measures what modelgate adds to every request: it builds
// modelgate and mockupstream, starts on loopback mockupstream, a plain
// Caddy reverse_proxy (the modelgate binary with a bare Caddyfile), the
// full modelgate chain and the same with one budget in force, drives each
// with the load generator (bench/loadgen, a separate process) for every
// workload, concurrency and body size, counts the audit entries and usage
// records each gateway stored and dropped, and prints and saves the table
// and the overhead budget.
//
// From the repository root:
//
//	go run ./bench/harness            # full run: 3 rounds, about 4-5 minutes
//	go run ./bench/harness -quick     # 1 round of short cells, about 1-2 minutes
//	go run ./bench/harness -profile   # also CPU and allocation profiles of modelgate
//
// Results go to bench/results/<timestamp>.json and bench/results/latest.json.
// See bench/README.md for what each figure means.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// A closed stdout (`| head`) must not kill the harness before it has
	// stopped its servers and removed its temporary directory: writes
	// then fail instead.
	signal.Ignore(syscall.SIGPIPE)
	code := 0
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "harness:", err)
			code = 1
			if errors.Is(err, errBudget) {
				code = 2
			}
		}
	}
	stop()
	os.Exit(code)
}

// errBudget is returned under -strict when a budget check fails.
var errBudget = errors.New("budget failed")

// options are the command-line settings.
type options struct {
	quick        bool
	rounds       int
	duration     time.Duration
	warmup       time.Duration
	concurrency  []int
	sizes        []int
	only         map[string]bool // workload names; empty means all
	targets      map[string]bool // target names (-targets); empty means all
	chunkDelay   time.Duration
	maxTokens    int
	out          string
	allocs       bool
	profile      bool
	profileCell  cellKey
	keepTemp     bool
	strict       bool
	settleBefore time.Duration
	pin          bool
	placeDB      bool
	cpus         cpuPlan // set by run from pin
	postgres     string  // maintenance DSN of the modelgate-pg target's server
	redis        string  // the modelgate-pg target's Redis URL
	// shared is the modelgate-pg target's database and Redis prefix, set
	// by run; nil when the target does not run.
	shared *sharedBackends
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	var concs, sizes, only, pcell, targets string
	fs := flag.NewFlagSet("harness", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.quick, "quick", false, "one round of short cells (1s after 0.3s warm-up): about a minute of load")
	fs.IntVar(&o.rounds, "rounds", 3, "rounds over the whole matrix (targets in alternating order); a cell's figures are the median")
	fs.DurationVar(&o.duration, "duration", 1500*time.Millisecond, "measured time per cell and round")
	fs.DurationVar(&o.warmup, "warmup", 500*time.Millisecond, "warm-up per cell and round, not measured")
	fs.StringVar(&concs, "concurrency", "10,100", "comma-separated concurrency levels")
	fs.StringVar(&sizes, "sizes", "1024,65536", "comma-separated request body sizes in bytes")
	fs.StringVar(&only, "workloads", "", "comma-separated workloads to run (chat, chat-stream, messages, messages-stream, chat-cached); default all")
	fs.DurationVar(&o.chunkDelay, "chunk-delay", time.Millisecond, "mockupstream delay before each generated chunk of a stream")
	fs.IntVar(&o.maxTokens, "max-tokens", 32, "max_tokens per request: the mock echoes at most this many words")
	fs.StringVar(&o.out, "out", "", "results directory (default <repo>/bench/results)")
	fs.BoolVar(&o.allocs, "allocs", true, "run the proxy package's benchmarks for allocations per request")
	fs.BoolVar(&o.profile, "profile", false, "after the table, profile modelgate (pprof CPU and allocations) under -profile-cell's load")
	fs.StringVar(&pcell, "profile-cell", "chat,1024,100", "workload,body size,concurrency[,target] to load while profiling (target: a gateway target, default modelgate)")
	fs.StringVar(&targets, "targets", "", "comma-separated targets to run (direct and modelgate always run: the checks compare with them); default all")
	fs.BoolVar(&o.keepTemp, "keep-temp", false, "keep the temporary directory (binaries, Caddyfiles, server logs)")
	fs.BoolVar(&o.pin, "pin", true, "give the proxy under test its own CPUs (upper half) and the load generator and mockupstream the rest, with taskset")
	fs.BoolVar(&o.placeDB, "pin-db", true, "with -pin, move the modelgate-pg target's PostgreSQL and Redis server processes onto the load generator's CPUs for the run (as when the databases have machines of their own), and back after it")
	fs.BoolVar(&o.strict, "strict", false, "exit with status 2 when a budget check fails")
	fs.StringVar(&o.postgres, "postgres", defaultPostgresDSN, "PostgreSQL server (a postgres:// URL of a database to connect to) on which the modelgate-pg target gets a database of its own for the run; empty: no modelgate-pg target")
	fs.StringVar(&o.redis, "redis", defaultRedisURL, "Redis server of the modelgate-pg target (its keys get a prefix of their own for the run); empty: no modelgate-pg target")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if o.quick {
		o.rounds, o.duration, o.warmup = 1, time.Second, 300*time.Millisecond
	}
	o.settleBefore = 200 * time.Millisecond
	var err error
	if o.concurrency, err = intList(concs); err != nil {
		return o, fmt.Errorf("-concurrency: %w", err)
	}
	if o.sizes, err = intList(sizes); err != nil {
		return o, fmt.Errorf("-sizes: %w", err)
	}
	o.only = map[string]bool{}
	for _, name := range strings.Split(only, ",") {
		if name = strings.TrimSpace(name); name != "" {
			if !knownWorkload(name) {
				return o, fmt.Errorf("-workloads: unknown workload %q", name)
			}
			o.only[name] = true
		}
	}
	o.targets = map[string]bool{}
	for _, name := range strings.Split(targets, ",") {
		if name = strings.TrimSpace(name); name != "" {
			if !isGateway(name) && name != targetDirect && name != targetCaddy {
				return o, fmt.Errorf("-targets: unknown target %q", name)
			}
			o.targets[name] = true
		}
	}
	if o.profileCell, err = parseCell(pcell); err != nil {
		return o, fmt.Errorf("-profile-cell: %w", err)
	}
	if o.duration <= 0 || o.warmup < 0 || o.maxTokens < 1 || o.rounds < 1 {
		return o, errors.New("-duration must be positive, -warmup not negative, -max-tokens and -rounds at least 1")
	}
	return o, nil
}

func intList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func parseCell(s string) (cellKey, error) {
	f := strings.Split(s, ",")
	target := targetModelgate
	if len(f) == 4 {
		target = f[3]
		f = f[:3]
	}
	if len(f) != 3 || !knownWorkload(f[0]) || !isGateway(target) {
		return cellKey{}, fmt.Errorf("%q is not workload,size,concurrency[,gateway target]", s)
	}
	size, err1 := strconv.Atoi(f[1])
	conc, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil || size < 1 || conc < 1 {
		return cellKey{}, fmt.Errorf("%q is not workload,size,concurrency", s)
	}
	return cellKey{Workload: f[0], Target: target, Concurrency: conc, BodySize: size}, nil
}

func knownWorkload(name string) bool {
	for _, w := range workloads {
		if w.Name == name {
			return true
		}
	}
	return false
}

// findRoot walks up from the working directory to the modelgate module.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(b), "module github.com/modelgate/modelgate\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run from inside the modelgate repository (no go.mod for github.com/modelgate/modelgate above the working directory)")
		}
		dir = parent
	}
}
