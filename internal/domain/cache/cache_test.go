package cache

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func openTest(t *testing.T, st Storage, clk *clock, ttl time.Duration, maxBytes int64) *Cache {
	t.Helper()
	c, err := Open(Options{Storage: st, TTL: ttl, MaxBytes: maxBytes, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func lookup(t *testing.T, c *Cache, k Key) *Answer {
	t.Helper()
	ans, f, err := c.Lookup(context.Background(), k, true)
	if err != nil {
		t.Fatal(err)
	}
	f.Done(nil)
	return ans
}

func TestKeyIgnoresOrderAndSpace(t *testing.T) {
	r := Request{Endpoint: "/v1/chat/completions", Provider: "openai", Model: "gpt-4o", UserPath: "/a"}
	a, err := KeyOf(r, []byte(`{"model":"m","messages":[{"role":"user","content":"h\u0069 \"x\""}],"n":1.50}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := KeyOf(r, []byte("{ \"n\" : 1.50,\n \"messages\":[{\"content\":\"h\\u0069 \\\"x\\\"\",\"role\":\"user\"}], \"model\":\"m\"}\n"))
	if a != b {
		t.Fatal("same request in another key order and spacing gives another key")
	}
	for name, other := range map[string]Request{
		"endpoint":  {Endpoint: "/v1/responses", Provider: "openai", Model: "gpt-4o", UserPath: "/a"},
		"provider":  {Endpoint: r.Endpoint, Provider: "groq", Model: "gpt-4o", UserPath: "/a"},
		"model":     {Endpoint: r.Endpoint, Provider: "openai", Model: "gpt-4o-mini", UserPath: "/a"},
		"stream":    {Endpoint: r.Endpoint, Provider: "openai", Model: "gpt-4o", UserPath: "/a", Stream: true},
		"user path": {Endpoint: r.Endpoint, Provider: "openai", Model: "gpt-4o", UserPath: "/b"},
	} {
		if k, _ := KeyOf(other, []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"n":1.50}`)); k == a {
			t.Errorf("%s is not part of the key", name)
		}
	}
	// Array order and values matter.
	for _, body := range []string{`{"model":"m","messages":[{"role":"user","content":"hi!"}],"n":1.50}`, `{"model":"m","messages":[],"n":1.5}`} {
		if k, _ := KeyOf(r, []byte(body)); k == a {
			t.Errorf("%s gives the same key", body)
		}
	}
	for _, bad := range []string{`[1]`, `{"a":`, ``, `{"a":1,}`, `{"a":tru}`, `{"a":[1,]}`, `{"a" 1}`, `{"a":"\x"}`, `{"a":1}x`, `{"a":1 2}`} {
		if _, err := KeyOf(r, []byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestTTLWithClock(t *testing.T) {
	clk := &clock{t: time.Unix(1_000_000, 0)}
	st := newMemStorage()
	c := openTest(t, st, clk, time.Minute, 1<<20)
	if err := c.Put(Meta{Key: keyN(1)}, answerOf(10)); err != nil {
		t.Fatal(err)
	}
	clk.Advance(59 * time.Second)
	if lookup(t, c, keyN(1)) == nil {
		t.Fatal("entry gone before its TTL")
	}
	clk.Advance(time.Second)
	if lookup(t, c, keyN(1)) != nil {
		t.Fatal("entry served after its TTL")
	}
	if len(st.entries) != 0 {
		t.Fatal("expired entry not deleted")
	}
	s, _ := c.Stats()
	if s.Hits != 1 || s.Misses != 1 || s.HitRatio != 0.5 || s.Entries != 0 {
		t.Fatalf("stats %+v", s)
	}
}

func TestLRUEviction(t *testing.T) {
	clk := &clock{t: time.Unix(1_000_000, 0)}
	st := newMemStorage()
	c := openTest(t, st, clk, time.Hour, 1000) // three 300-byte entries fit
	for i := 1; i <= 3; i++ {
		clk.Advance(time.Second)
		if err := c.Put(Meta{Key: keyN(i)}, answerOf(200)); err != nil {
			t.Fatal(err)
		}
	}
	lookup(t, c, keyN(1)) // 2 is now the least recently used
	clk.Advance(time.Second)
	if err := c.Put(Meta{Key: keyN(4)}, answerOf(200)); err != nil {
		t.Fatal(err)
	}
	if lookup(t, c, keyN(2)) != nil || lookup(t, c, keyN(1)) == nil || lookup(t, c, keyN(3)) == nil || lookup(t, c, keyN(4)) == nil {
		t.Fatal("the least recently used entry was not the one evicted")
	}
	if _, ok := st.entries[keyN(2)]; ok {
		t.Fatal("evicted entry still stored")
	}
	s, _ := c.Stats()
	if s.Bytes != 900 || s.Entries != 3 || s.Bytes > s.MaxBytes {
		t.Fatalf("stats %+v", s)
	}
	// Too large on its own: not stored.
	if err := c.Put(Meta{Key: keyN(5)}, answerOf(2000)); err != nil || lookup(t, c, keyN(5)) != nil {
		t.Fatal("an answer over max_bytes was stored")
	}

	// Reopened over the same storage (a restart): the entries are
	// indexed again, the oldest stored first out when the cap is lower.
	c2 := openTest(t, st, clk, time.Hour, 600)
	if lookup(t, c2, keyN(1)) != nil || lookup(t, c2, keyN(3)) == nil || lookup(t, c2, keyN(4)) == nil {
		t.Fatal("reopening with a lower cap did not keep the newest entries")
	}
}

func TestPurgeFilters(t *testing.T) {
	clk := &clock{t: time.Unix(1_000_000, 0)}
	c := openTest(t, newMemStorage(), clk, time.Hour, 1<<20)
	metas := []Meta{
		{Key: keyN(1), UserPath: "/a", Provider: "openai", Model: "gpt-4o"},
		{Key: keyN(2), UserPath: "/b", Provider: "openai", Model: "gpt-4o"},
		{Key: keyN(3), UserPath: "/a", Provider: "groq", Model: "llama"},
	}
	for _, m := range metas {
		if err := c.Put(m, answerOf(1)); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := c.Purge(Filter{Model: "groq/llama"}); n != 1 {
		t.Fatalf("purge provider/model: %d", n)
	}
	if n, _ := c.Purge(Filter{Model: "gpt-4o", UserPath: "/b"}); n != 1 {
		t.Fatalf("purge model and path: %d", n)
	}
	if n, _ := c.Purge(Filter{}); n != 1 {
		t.Fatalf("purge all: %d", n)
	}
}

// TestCoalescing: 100 identical lookups at once: one leader, 99 served
// its answer; a waiter whose context ends stops waiting.
func TestCoalescing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &clock{t: time.Unix(1_000_000, 0)}
		c := openTest(t, newMemStorage(), clk, time.Hour, 1<<20)
		k := keyN(7)
		var leaders, hits atomic.Int64
		release := make(chan struct{})
		var wg sync.WaitGroup
		for range 100 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ans, f, err := c.Lookup(context.Background(), k, true)
				if err != nil {
					t.Error(err)
					return
				}
				if f != nil {
					leaders.Add(1)
					<-release
					a := answerOf(5)
					if err := c.Put(Meta{Key: k}, a); err != nil {
						t.Error(err)
					}
					f.Done(a)
					return
				}
				if ans != nil {
					hits.Add(1)
				}
			}()
		}
		// Let the others queue up behind the leader.
		synctest.Wait()
		if c.waiting(k) == 0 {
			t.Fatal("no flight in progress while the leader holds its answer")
		}
		close(release)
		wg.Wait()
		if leaders.Load() != 1 || hits.Load() != 99 {
			t.Fatalf("%d leaders, %d hits", leaders.Load(), hits.Load())
		}

		// A waiter is bounded by its own context.
		_, f, _ := c.Lookup(context.Background(), keyN(8), true)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		if _, _, err := c.Lookup(ctx, keyN(8), true); err == nil {
			t.Fatal("waiter outlived its context")
		}
		f.Done(nil)
		// A flight that shares nothing leaves the waiters to make their own
		// calls.
		_, f, _ = c.Lookup(context.Background(), keyN(9), true)
		got := make(chan *Flight)
		go func() {
			ans, f2, _ := c.Lookup(context.Background(), keyN(9), true)
			if ans != nil {
				t.Error("served an answer nobody shared")
			}
			got <- f2
		}()
		synctest.Wait() // the second lookup waits for the flight
		f.Done(nil)
		<-got
	})
}

// waiting reports whether key has a flight in progress (1) or not (0).
func (c *Cache) waiting(k Key) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.flights[k] != nil {
		return 1
	}
	return 0
}
