package main

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// hostInfo describes the machine and the commit measured.
func hostInfo(root string) Host {
	h := Host{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, NumCPU: runtime.NumCPU(), GoVersion: runtime.Version()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				h.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	if out, err := gitOutput(root, "rev-parse", "--short", "HEAD"); err == nil {
		h.Commit = out
	}
	if out, err := gitOutput(root, "status", "--porcelain"); err == nil {
		h.Dirty = out != ""
	}
	return h
}

func gitOutput(root string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = root
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}
