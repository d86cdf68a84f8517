package main

import (
	"math"
	"os"
	"runtime"
	"testing"
	"time"
)

func TestParseCPUTicks(t *testing.T) {
	// utime 1200, stime 345; a command name with a space and a ')'.
	stat := "4242 (mode) lgate) S 1 4242 4242 0 -1 4194560 1500 0 0 0 1200 345 0 0 20 0 9 0 100 2000000 3000 18446744073709551615\n"
	got, err := parseCPUTicks([]byte(stat))
	if err != nil || got != 1545 {
		t.Fatalf("parseCPUTicks = %d, %v; want 1545", got, err)
	}
	for _, bad := range []string{"", "1 (x) S 1 2", "1 (x) S 1 2 3 4 5 6 7 8 9 10 x 5"} {
		if _, err := parseCPUTicks([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestCPUPerRequestUs(t *testing.T) {
	// 150 ticks = 1.5 s of CPU over 3000 requests: 500 µs each.
	if got := cpuPerRequestUs(1000, 1150, 3000); got != 500 {
		t.Errorf("got %v, want 500", got)
	}
	if cpuPerRequestUs(10, 20, 0) != 0 || cpuPerRequestUs(20, 10, 5) != 0 {
		t.Error("no requests or a counter going back must give 0")
	}
}

func TestLoadBusy(t *testing.T) {
	// mockupstream 150 ticks (1.5 s) and the load generator 0.9 s over a
	// 2 s run on 2 CPUs: 2.4 of 4 CPU seconds.
	if got := loadBusy(150, 900*time.Millisecond, 2*time.Second, 2); math.Abs(got-0.6) > 1e-9 {
		t.Errorf("got %v, want 0.6", got)
	}
	if got := loadBusy(100, time.Second, 2*time.Second, 1); got != 1 {
		t.Errorf("saturated: got %v, want 1", got)
	}
	for _, c := range []struct {
		ticks int64
		wall  time.Duration
		cpus  int
	}{{10, time.Second, 0}, {10, 0, 1}, {-1, time.Second, 1}} {
		if got := loadBusy(c.ticks, time.Second, c.wall, c.cpus); got != 0 {
			t.Errorf("loadBusy(%d, 1s, %v, %d) = %v, want 0 (not measured)", c.ticks, c.wall, c.cpus, got)
		}
	}
}

// TestReadCPUTicksOfItself reads this process's own CPU time, which a busy
// loop makes grow.
func TestReadCPUTicksOfItself(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/<pid>/stat is Linux's")
	}
	before, err := readCPUTicks(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	x := 0
	for after := before; after == before; {
		for i := range 1 << 22 {
			x += i
		}
		if after, err = readCPUTicks(os.Getpid()); err != nil {
			t.Fatal(err)
		}
		if after < before {
			t.Fatalf("CPU time went back: %d after %d", after, before)
		}
	}
	_ = x
}
