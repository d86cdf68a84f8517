package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

// serverPlacement is the CPU affinity the harness gave the modelgate-pg
// target's PostgreSQL and Redis servers for the run, and what to give
// back at its end.
type serverPlacement struct {
	taskset string
	// was maps each process id moved to its affinity list before.
	was map[int]string
}

// placeServers moves the PostgreSQL server of dsn (its postmaster and
// every process it has started) and the Redis server of redisURL onto the
// load side's CPUs, so that their work never takes the CPUs of the proxy
// under test, as when the databases run on machines of their own. New
// PostgreSQL backends inherit the postmaster's affinity. It needs the
// right to change those processes' affinity (the same user, or root); the
// returned note says what was done or why not.
func placeServers(ctx context.Context, plan cpuPlan, dsn, redisURL string) (*serverPlacement, string) {
	if plan.taskset == "" {
		return nil, "database servers not pinned: the run is not pinned"
	}
	pids, err := serverPIDs(ctx, dsn, redisURL)
	if err != nil {
		return nil, "database servers not pinned: " + err.Error()
	}
	p := &serverPlacement{taskset: plan.taskset, was: map[int]string{}}
	for _, pid := range pids {
		before, err := affinity(plan.taskset, pid)
		if err != nil {
			continue // a backend that has exited
		}
		if err := exec.CommandContext(ctx, plan.taskset, "-a", "-p", "-c", plan.others, strconv.Itoa(pid)).Run(); err != nil {
			p.restore()
			return nil, fmt.Sprintf("database servers not pinned: taskset on process %d: %v", pid, err)
		}
		p.was[pid] = before
	}
	return p, fmt.Sprintf("database servers (PostgreSQL and Redis, %d processes) on CPU %s with the load generator", len(p.was), plan.others)
}

// restore gives the moved processes their affinity back.
func (p *serverPlacement) restore() {
	if p == nil {
		return
	}
	for pid, list := range p.was {
		_ = exec.Command(p.taskset, "-a", "-p", "-c", list, strconv.Itoa(pid)).Run()
	}
}

// serverPIDs returns the process ids of the Redis server (INFO's
// process_id) and of the PostgreSQL postmaster (the parent of this
// connection's backend) with its children.
func serverPIDs(ctx context.Context, dsn, redisURL string) ([]int, error) {
	ropts, err := redis.ParseURL(redisURL)
	if err != nil {
		return nil, err
	}
	rc := redis.NewClient(ropts)
	defer rc.Close()
	info, err := rc.Info(ctx, "server").Result()
	if err != nil {
		return nil, fmt.Errorf("redis INFO: %w", err)
	}
	var pids []int
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "process_id:"); ok {
			if pid, err := strconv.Atoi(v); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	if len(pids) == 0 {
		return nil, fmt.Errorf("redis INFO has no process_id")
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	var backend int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		return nil, err
	}
	postmaster, err := parentOf(backend)
	if err != nil {
		return nil, fmt.Errorf("postgresql backend %d: %w (is the server on this machine?)", backend, err)
	}
	pids = append(pids, postmaster)
	return append(pids, childrenOf(postmaster)...), nil
}

// parentOf reads the parent process id of pid from /proc.
func parentOf(pid int) (int, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	// The command name is in parentheses and may hold spaces: fields
	// after its closing parenthesis are state, then the parent's id.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 2 {
		return 0, fmt.Errorf("unreadable /proc/%d/stat", pid)
	}
	return strconv.Atoi(f[1])
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if parent, err := parentOf(child); err == nil && parent == pid {
			out = append(out, child)
		}
	}
	return out
}

// affinity is the CPU list pid may run on, as taskset -p -c prints it.
func affinity(taskset string, pid int) (string, error) {
	out, err := exec.Command(taskset, "-p", "-c", strconv.Itoa(pid)).Output()
	if err != nil {
		return "", err
	}
	_, list, ok := strings.Cut(strings.TrimSpace(string(out)), ": ")
	if !ok {
		return "", fmt.Errorf("taskset printed %q", out)
	}
	return list, nil
}
