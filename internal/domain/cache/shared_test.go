package cache

import (
	"errors"
	"testing"
	"time"
)

func TestSharedStorageHitsAcrossCaches(t *testing.T) {
	clk := &clock{t: time.Unix(1_000_000, 0)}
	st := newMemStorage()
	open := func(shared bool) *Cache {
		c, err := Open(Options{Storage: st, TTL: time.Minute, MaxBytes: 1 << 20, Now: clk.Now, Shared: shared})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	p1, p2, private := open(true), open(true), open(false)
	if err := p1.Put(Meta{Key: keyN(1), UserPath: "/a", Model: "m"}, answerOf(10)); err != nil {
		t.Fatal(err)
	}
	if err := p1.Put(Meta{Key: keyN(2), UserPath: "/b", Model: "m"}, answerOf(10)); err != nil {
		t.Fatal(err)
	}
	if lookup(t, private, keyN(1)) != nil {
		t.Fatal("a cache that does not share its storage looked it up anyway")
	}
	if ans := lookup(t, p2, keyN(1)); ans == nil || ans.BodySize() != 10 {
		t.Fatal("an entry stored by one process is not a hit at the other")
	}
	if s, err := p2.Stats(); err != nil || s.Entries != 2 || s.Bytes != 220 || s.Hits != 1 {
		t.Fatalf("stats at the other process: %+v, %v", s, err)
	}
	// A purge at p2 removes what p1 stored, also entries p2 never looked
	// up.
	if n, err := p2.Purge(Filter{UserPath: "/b"}); err != nil || n != 1 {
		t.Fatalf("purge: %d, %v", n, err)
	}
	if lookup(t, p1, keyN(2)) != nil {
		t.Fatal("an entry purged at the other process is still a hit")
	}
	// Past its TTL an entry is no hit, even found in the storage.
	clk.Advance(time.Minute)
	if lookup(t, open(true), keyN(1)) != nil {
		t.Fatal("an expired entry was served")
	}
}

// failScan is a storage whose Scan fails.
type failScan struct{ *memStorage }

func (failScan) Scan(func(Meta) error) error { return errors.New("unreachable") }

func TestSharedStorageThatCannotBeScannedOpens(t *testing.T) {
	st := failScan{newMemStorage()}
	if _, err := Open(Options{Storage: st}); err == nil {
		t.Fatal("a private storage that cannot be scanned opened")
	}
	c, err := Open(Options{Storage: st, Shared: true})
	if err != nil {
		t.Fatalf("a shared storage that cannot be scanned: %v", err)
	}
	if err := c.Put(Meta{Key: keyN(1)}, answerOf(1)); err != nil || lookup(t, c, keyN(1)) == nil {
		t.Fatalf("put then lookup: %v", err)
	}
}
