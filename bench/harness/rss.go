package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

// memInfo is a process's memory from /proc/<pid>/status, in bytes.
type memInfo struct {
	RSS  int64 `json:"rss_bytes"`  // VmRSS: resident now
	HWM  int64 `json:"hwm_bytes"`  // VmHWM: peak resident ("high water mark")
	Anon int64 `json:"anon_bytes"` // RssAnon: the anonymous part of RSS (heap, stacks), without the binary's mapped pages
}

// readMem reads a process's memInfo.
func readMem(pid int) (memInfo, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memInfo{}, err
	}
	return parseMemStatus(b)
}

// parseMemStatus extracts VmRSS, VmHWM and RssAnon from /proc/<pid>/status
// text ("VmRSS:     1234 kB").
func parseMemStatus(b []byte) (memInfo, error) {
	var m memInfo
	fields := map[string]*int64{"VmRSS:": &m.RSS, "VmHWM:": &m.HWM, "RssAnon:": &m.Anon}
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) < 2 {
			continue
		}
		dst, ok := fields[string(f[0])]
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(string(f[1]), 10, 64)
		if err != nil {
			return memInfo{}, fmt.Errorf("malformed line %q", sc.Text())
		}
		*dst = kb << 10
		found++
	}
	if found < len(fields) {
		return memInfo{}, fmt.Errorf("VmRSS, VmHWM or RssAnon missing")
	}
	return m, nil
}

// resetPeak resets the process's VmHWM to its current RSS (writing 5 to
// /proc/<pid>/clear_refs, Linux 4.0+), so the next reading is the peak of
// one cell rather than of the whole run.
func resetPeak(pid int) error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// peakWatch measures one process's peak memory over a cell: the kernel's
// VmHWM when it could be reset at the start (else the highest VmRSS
// sample), and the highest RssAnon sample, sampling every 50 ms.
type peakWatch struct {
	pid     int
	resetOK bool
	stopc   chan struct{}
	wg      sync.WaitGroup
	rss     int64
	anon    int64
}

func watchPeak(pid int) *peakWatch {
	w := &peakWatch{pid: pid, resetOK: resetPeak(pid) == nil, stopc: make(chan struct{})}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			if m, err := readMem(pid); err == nil {
				w.rss, w.anon = max(w.rss, m.RSS), max(w.anon, m.Anon)
			}
			select {
			case <-w.stopc:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

// stop ends the watch and returns the peak RSS and peak anonymous RSS.
func (w *peakWatch) stop() (rss, anon int64) {
	close(w.stopc)
	w.wg.Wait()
	if w.resetOK {
		if m, err := readMem(w.pid); err == nil {
			return max(m.HWM, w.rss), w.anon
		}
	}
	return w.rss, w.anon
}
