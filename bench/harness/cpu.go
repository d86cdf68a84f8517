package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// userHZ is the unit of the CPU times in /proc/<pid>/stat: Linux reports
// them in clock ticks of 1/100 s on every architecture the harness runs on.
const userHZ = 100

// readCPUTicks returns the user plus system CPU time a process (all its
// threads) has used so far, in clock ticks.
func readCPUTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseCPUTicks(b)
}

// parseCPUTicks reads utime and stime (the 14th and 15th fields) from
// /proc/<pid>/stat text. The second field, the command name in
// parentheses, may hold spaces and parentheses of its own, so fields are
// counted from after its last ')'.
func parseCPUTicks(b []byte) (int64, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("no command name in %q", b)
	}
	f := bytes.Fields(b[i+1:])
	// f[0] is the 3rd field (state), so utime and stime are f[11], f[12].
	if len(f) < 13 {
		return 0, fmt.Errorf("only %d fields after the command name", len(f))
	}
	var sum int64
	for _, s := range f[11:13] {
		v, err := strconv.ParseInt(string(s), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("CPU time %q: %v", s, err)
		}
		sum += v
	}
	return sum, nil
}

// cpuPerRequestUs is the CPU a server used per answered request, in
// microseconds, from its CPU ticks before and after a load generator run
// (warm-up included, as answered counts it); 0 when nothing was answered
// or a reading failed.
func cpuPerRequestUs(before, after int64, answered int) float64 {
	if answered <= 0 || after < before {
		return 0
	}
	return float64(after-before) * 1e6 / userHZ / float64(answered)
}
