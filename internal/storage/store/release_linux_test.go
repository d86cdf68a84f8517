//go:build linux

package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.etcd.io/bbolt"
)

// rssFileKiB reads the process's resident file-backed pages.
func rssFileKiB(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}

// TestReleaseMappedDropsTouchedPages: pages of the store file read through
// bbolt's map leave the resident set when the writer releases them, and
// every value still reads back the same afterwards.
func TestReleaseMappedDropsTouchedPages(t *testing.T) {
	s, err := Open(Options{Path: filepath.Join(t.TempDir(), "r.db"), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	val := bytes.Repeat([]byte("v"), 64<<10)
	const n = 512 // 32 MiB
	for i := range n {
		if !s.Enqueue(Write{Bucket: "b", Key: []byte(fmt.Sprintf("k%04d", i)), Value: val}) {
			t.Fatal("queue full")
		}
	}
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	readAll := func() {
		err := s.View(func(tx *bbolt.Tx) error {
			return tx.Bucket([]byte("b")).ForEach(func(k, v []byte) error {
				if !bytes.Equal(v, val) {
					return fmt.Errorf("%s changed", k)
				}
				return nil
			})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// What reading makes resident is what the release must drop: the
	// kernel may keep fewer than all 32 MiB in memory (other processes'
	// pressure, reclaim while reading), so the test measures it.
	base := rssFileKiB(t)
	readAll()
	before := rssFileKiB(t)
	added := before - base
	if added < 4<<10 {
		t.Skipf("reading 32 MiB of the store left only %d KiB more resident (memory pressure): nothing to release", added)
	}
	w := &writer{s: s}
	w.releaseMapped()
	after := rssFileKiB(t)
	if released := before - after; released < added/2 {
		t.Errorf("resident file pages %d KiB, %d after reading, %d after the release: %d of the %d KiB read were released",
			base, before, after, released, added)
	}
	readAll()
}
