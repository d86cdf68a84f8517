package cache

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// TestEntryCap: an answer whose body is longer than MaxEntryBytes is not
// stored; the cap defaults to 1 MiB, lowered to MaxBytes, and follows
// SetLimits; Stats reports it.
func TestEntryCap(t *testing.T) {
	clk := &clock{t: time.Unix(1_000_000, 0)}
	c, err := Open(Options{Storage: newMemStorage(), MaxBytes: 1 << 20, MaxEntryBytes: 100, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Put(Meta{Key: keyN(1)}, answerOf(100)); err != nil || lookup(t, c, keyN(1)) == nil {
		t.Fatalf("an answer of exactly max_entry_bytes was not stored: %v", err)
	}
	if err := c.Put(Meta{Key: keyN(2)}, answerOf(101)); err != nil || lookup(t, c, keyN(2)) != nil {
		t.Fatalf("an answer over max_entry_bytes was stored: %v", err)
	}
	if s, _ := c.Stats(); s.MaxEntryBytes != 100 || c.MaxEntryBytes() != 100 {
		t.Fatalf("stats %+v, MaxEntryBytes %d", s, c.MaxEntryBytes())
	}
	if err := c.SetLimits(time.Hour, 1<<20, 0); err != nil || c.MaxEntryBytes() != DefaultMaxEntryBytes {
		t.Fatalf("default entry cap %d, %v", c.MaxEntryBytes(), err)
	}
	if err := c.SetLimits(time.Hour, 500, 0); err != nil || c.MaxEntryBytes() != 500 {
		t.Fatalf("default entry cap under a 500-byte cache: %d, %v", c.MaxEntryBytes(), err)
	}
	if err := c.SetLimits(time.Hour, 500, 800); err != nil || c.MaxEntryBytes() != 500 {
		t.Fatalf("entry cap over the cache cap: %d, %v", c.MaxEntryBytes(), err)
	}
}

// TestFlightGivenUpEarly: a leader that gives up (Done(nil)) while its
// answer is still coming releases the waiters at once, each a miss
// without a flight of its own (they make their own calls), and the next
// identical request leads a new flight; the leader's later Done changes
// nothing.
func TestFlightGivenUpEarly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := openTest(t, newMemStorage(), &clock{t: time.Unix(1_000_000, 0)}, time.Hour, 1<<20)
		k := keyN(3)
		_, leader, err := c.Lookup(context.Background(), k, true)
		if err != nil || leader == nil {
			t.Fatalf("first lookup: flight %v, %v", leader, err)
		}
		type result struct {
			ans *Answer
			f   *Flight
			err error
		}
		results := make(chan result, 3)
		for range 3 {
			go func() {
				ans, f, err := c.Lookup(context.Background(), k, true)
				results <- result{ans, f, err}
			}()
		}
		synctest.Wait() // every waiter is blocked on the leader
		if len(results) != 0 {
			t.Fatal("a waiter did not wait for the leader")
		}
		leader.Done(nil) // the answer outgrew the cap; it goes on uncached
		synctest.Wait()
		for range 3 {
			r := <-results
			if r.ans != nil || r.f != nil || r.err != nil {
				t.Fatalf("a waiter released by a leader that gave up: %+v", r)
			}
		}
		_, next, _ := c.Lookup(context.Background(), k, true)
		if next == nil {
			t.Fatal("the next identical request did not lead a new flight")
		}
		leader.Done(answerOf(5)) // the first leader's end: ignored
		if c.waiting(k) != 1 {
			t.Fatal("the first leader's late Done ended the new flight")
		}
		next.Done(nil)
	})
}
