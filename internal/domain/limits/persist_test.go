package limits

import (
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// restart closes e and returns a new engine on the same store, with
// config installed as its config rules.
func restart(t testing.TB, e *Engine, ms *memStore, clk *fakeClock, config ...Rule) *Engine {
	t.Helper()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e2, err := New(Options{Rules: ms, Counters: ms, Now: clk.Now, TokensEnforced: true, QuotaTemplates: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e2.SetConfigRules(config); err != nil {
		t.Fatal(err)
	}
	return e2
}

func newPersistentEngine(t testing.TB, clk *fakeClock, flush time.Duration) (*Engine, *memStore) {
	t.Helper()
	ms := newMemStore()
	e, err := New(Options{Rules: ms, Counters: ms, Now: clk.Now, FlushInterval: flush, TokensEnforced: true, QuotaTemplates: true})
	if err != nil {
		t.Fatal(err)
	}
	return e, ms
}

func TestPersistAcrossRestart(t *testing.T) {
	clk := newClock()
	e, ms := newPersistentEngine(t, clk, 0)
	hourly := Rule{Scope: ScopeUserPath, Subject: "/team", Period: PeriodHour, MaxRequests: 10, MaxTokens: 1000}
	tmpl := Rule{Scope: ScopeUserPath, Subject: "/customers", Period: PeriodHour, MaxRequests: 3, PerChild: true}
	cfg := Rule{Scope: ScopeProvider, Subject: "openai", Period: PeriodDay, MaxRequests: 100}
	conc := Rule{Scope: ScopeUserPath, Subject: "/team", Period: PeriodConcurrent, MaxRequests: 9}
	for _, r := range []Rule{hourly, tmpl, conc} {
		if err := e.Upsert(r, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SetConfigRules([]Rule{cfg}); err != nil {
		t.Fatal(err)
	}
	clk.Add(10 * time.Minute)
	a, _ := e.AdmitUserPath("/team/app")
	a.Done(250)
	admitN(t, e, "/team", 4)
	admitN(t, e, "/customers/alice", 2)
	admitN(t, e, "/customers/bob/x", 1)
	held, _ := e.AdmitUserPath("/team") // in flight at shutdown: gauges are not persisted
	for i := 0; i < 7; i++ {
		a, _ := e.AdmitTarget("openai", "gpt")
		a.Done(0)
	}

	clk.Add(20 * time.Minute)
	e2 := func() *Engine {
		defer held.Done(0)
		return restart(t, e, ms, clk, cfg)
	}()
	defer e2.Close()

	if len(e2.Rules()) != 4 {
		t.Fatalf("rules after restart: %+v", e2.Rules())
	}
	if u := statusOf(t, e2, hourly.Key()).Usage; u.RequestsUsed != 6 || u.TokensUsed != 250 {
		t.Fatalf("hourly usage after restart %+v, want 6 requests, 250 tokens", u)
	}
	if u := statusOf(t, e2, conc.Key()).Usage; u.InFlight != 0 {
		t.Fatalf("gauge persisted: %+v", u)
	}
	if u := statusOf(t, e2, cfg.Key()).Usage; u.RequestsUsed != 7 {
		t.Fatalf("config rule usage after restart %+v, want 7", u)
	}
	sf := e2.StatusFor("/customers/alice")
	if len(sf) != 1 || sf[0].Usage.RequestsUsed != 2 {
		t.Fatalf("alice after restart: %+v", sf)
	}
	admitN(t, e2, "/customers/alice", 1)
	if allowed(e2, "/customers/alice") {
		t.Fatal("alice's restored partition not enforced")
	}
	admitN(t, e2, "/team", 4)
	if allowed(e2, "/team") {
		t.Fatal("restored hourly window not enforced")
	}
	// Sliding estimate across restart: two hours later the previous window
	// is gone entirely.
	clk.Add(2 * time.Hour)
	e3 := restart(t, e2, ms, clk, cfg)
	defer e3.Close()
	if u := statusOf(t, e3, hourly.Key()).Usage; u.RequestsUsed != 0 {
		t.Fatalf("expired window restored: %+v", u)
	}
}

func TestPersistResetsSurviveRestart(t *testing.T) {
	clk := newClock()
	e, ms := newPersistentEngine(t, clk, time.Hour)
	a := up("/a", PeriodHour, 10)
	b := up("/b", PeriodHour, 10)
	c := up("/c", PeriodHour, 10)
	tmpl := Rule{Scope: ScopeUserPath, Subject: "/t", Period: PeriodHour, MaxRequests: 10, PerChild: true}
	for _, r := range []Rule{a, b, c, tmpl} {
		if err := e.Upsert(r, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"/a", "/b", "/c", "/t/x", "/t/y"} {
		admitN(t, e, p, 3)
	}
	// Snapshot first, so the store holds the pre-reset values.
	if err := e.flush(true); err != nil {
		t.Fatal(err)
	}
	if err := e.ResetOne(a.Key()); err != nil {
		t.Fatal(err)
	}
	if err := e.ResetOne(tmpl.Key()); err != nil {
		t.Fatal(err)
	}
	if err := e.Delete(c.Key()); err != nil {
		t.Fatal(err)
	}
	admitN(t, e, "/t/x", 1)

	e = restart(t, e, ms, clk)
	if u := statusOf(t, e, a.Key()).Usage.RequestsUsed; u != 0 {
		t.Fatalf("reset-one undone by restart: %d", u)
	}
	if u := statusOf(t, e, b.Key()).Usage.RequestsUsed; u != 3 {
		t.Fatalf("b = %d, want 3", u)
	}
	if sf := e.StatusFor("/t/x"); sf[0].Usage.RequestsUsed != 1 {
		t.Fatalf("template child x = %+v, want 1", sf[0].Usage)
	}
	if sf := e.StatusFor("/t/y"); sf[0].Usage.RequestsUsed != 0 {
		t.Fatalf("template child y = %+v, want 0", sf[0].Usage)
	}
	if len(e.Rules()) != 3 {
		t.Fatalf("deleted rule came back: %+v", e.Rules())
	}
	// A recreated rule does not inherit the deleted rule's counters.
	if err := e.Upsert(c, nil); err != nil {
		t.Fatal(err)
	}
	if u := statusOf(t, e, c.Key()).Usage.RequestsUsed; u != 0 {
		t.Fatalf("recreated rule inherited %d", u)
	}

	// Reset-all survives too.
	admitN(t, e, "/a", 2)
	if err := e.flush(true); err != nil {
		t.Fatal(err)
	}
	e.ResetAll()
	e = restart(t, e, ms, clk)
	defer e.Close()
	for _, s := range e.Rules() {
		if s.Usage.RequestsUsed != 0 {
			t.Fatalf("reset-all undone for %s: %+v", s.Key, s.Usage)
		}
	}
	for _, s := range e.StatusFor("/t/x") {
		if s.Usage.RequestsUsed != 0 {
			t.Fatalf("reset-all undone for template child: %+v", s.Usage)
		}
	}
}

func TestPersistDropsUnclaimedConfigCounters(t *testing.T) {
	clk := newClock()
	e, ms := newPersistentEngine(t, clk, 0)
	cfg := up("/cfg", PeriodHour, 10)
	if err := e.SetConfigRules([]Rule{cfg}); err != nil {
		t.Fatal(err)
	}
	admitN(t, e, "/cfg", 4)
	// Restart with a config lacking the rule, then restart with it again:
	// the counters of the removed rule are gone.
	e = restart(t, e, ms, clk)
	if len(e.Rules()) != 0 {
		t.Fatalf("config rule persisted: %+v", e.Rules())
	}
	e = restart(t, e, ms, clk, cfg)
	defer e.Close()
	if u := statusOf(t, e, cfg.Key()).Usage.RequestsUsed; u != 0 {
		t.Fatalf("removed config rule's counters came back: %d", u)
	}
}

func TestPeriodicFlush(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock()
		e, ms := newPersistentEngine(t, clk, 5*time.Millisecond)
		defer e.Close()
		r := up("/team", PeriodHour, 10)
		if err := e.Upsert(r, nil); err != nil {
			t.Fatal(err)
		}
		admitN(t, e, "/team", 3)
		id := CounterID{Rule: r.Key()}
		time.Sleep(5*time.Millisecond - time.Nanosecond) // bubble time: just short of one flush interval
		synctest.Wait()
		if err := ms.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got, ok := ms.record(id); ok && got.Requests != 0 {
			t.Fatalf("snapshot before the flush interval: %+v", got)
		}
		time.Sleep(time.Nanosecond) // the tick
		synctest.Wait()
		if err := ms.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got, ok := ms.record(id); !ok || got.Requests != 3 {
			t.Fatalf("no periodic snapshot (last %+v, %v)", got, ok)
		}
	})
}

// TestFlushResetRace runs snapshots concurrently with resets and checks
// that a reset is never undone by a snapshot taken before it but committed
// after it. The store commits queued snapshots only when flushed, while the
// reset's marker is committed at once, so the stale record regularly lands
// last; only the generation check keeps it out.
func TestFlushResetRace(t *testing.T) {
	clk := newClock()
	ms := newMemStore()
	r := up("/team", PeriodHour, 1<<40)
	tmpl := Rule{Scope: ScopeUserPath, Subject: "/c", Period: PeriodHour, MaxRequests: 1 << 40, PerChild: true}
	e, err := New(Options{Rules: ms, Counters: ms, Now: clk.Now, QuotaTemplates: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []Rule{r, tmpl} {
		if err := e.Upsert(x, nil); err != nil {
			t.Fatal(err)
		}
	}
	iterations := 60
	if testing.Short() {
		iterations = 10
	}
	for it := 0; it < iterations; it++ {
		var wg sync.WaitGroup
		stop := make(chan struct{})
		wg.Add(2)
		go func() { // traffic
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				allowed(e, "/team")
				allowed(e, "/c/child"+string(rune('a'+i%5)))
			}
		}()
		go func() { // snapshots
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				e.flush(false)
			}
		}()
		time.Sleep(time.Millisecond)
		if it%2 == 0 {
			if err := e.ResetOne(r.Key()); err != nil {
				t.Fatal(err)
			}
			if err := e.ResetOne(tmpl.Key()); err != nil {
				t.Fatal(err)
			}
		} else {
			e.ResetAll()
		}
		close(stop)
		wg.Wait()
		// Traffic stopped racing; reset once more so the expected state
		// is exactly zero, with snapshots from before still in the queue.
		e.flush(false)
		if it%2 == 0 {
			e.ResetOne(r.Key())
			e.ResetOne(tmpl.Key())
		} else {
			e.ResetAll()
		}
		e = restart(t, e, ms, clk)
		if u := statusOf(t, e, r.Key()).Usage.RequestsUsed; u != 0 {
			t.Fatalf("iteration %d: reset undone after restart: %d requests", it, u)
		}
		for _, c := range "abcde" {
			if sf := e.StatusFor("/c/child" + string(c)); sf[0].Usage.RequestsUsed != 0 {
				t.Fatalf("iteration %d: template reset undone for child %c: %+v", it, c, sf[0].Usage)
			}
		}
	}
	e.Close()
}

// TestLoadDropsVoidAndInvalid: at load, unreadable and invalid stored
// rules are skipped, snapshots older than their rule's marker or the
// floor, or from windows long gone, are deleted, and generations resume
// above everything stored.
func TestLoadDropsVoidAndInvalid(t *testing.T) {
	clk := newClock()
	ms := newMemStore()
	r := up("/team", PeriodHour, 10)
	other := up("/other", PeriodHour, 10)
	ms.rules[r.Key()] = r
	ms.rules[other.Key()] = other
	ms.rules[Key{Scope: ScopeUserPath, Subject: "/x", Period: "week"}] = Rule{Scope: ScopeUserPath, Subject: "/x", Period: "week", MaxRequests: 1}
	ms.skipped = []error{errors.New(`record "junk": not JSON`)}
	nowIdx := t0.UnixNano() / int64(time.Hour)
	ms.markers[r.Key()] = 5
	ms.floor = 3
	void := CounterID{Rule: r.Key()}
	ms.records[void] = Snapshot{Gen: 4, Window: nowIdx, Requests: 7} // below the marker
	belowFloor := CounterID{Rule: other.Key()}
	ms.records[belowFloor] = Snapshot{Gen: 2, Window: nowIdx, Requests: 7}
	expired := CounterID{Rule: other.Key(), Child: "gone"}
	ms.records[expired] = Snapshot{Gen: 9, Window: nowIdx - 2, Requests: 7}
	gauge := CounterID{Rule: Key{Scope: ScopeUserPath, Subject: "/team", Period: PeriodConcurrent}}
	ms.records[gauge] = Snapshot{Gen: 6, Window: nowIdx, Requests: 1}
	e, err := New(Options{Rules: ms, Counters: ms, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.SetConfigRules(nil); err != nil {
		t.Fatal(err)
	}
	rs := e.Rules()
	if len(rs) != 2 {
		t.Fatalf("rules %+v", rs)
	}
	for _, st := range rs {
		if st.Usage.RequestsUsed != 0 {
			t.Fatalf("void snapshot restored: %+v", st)
		}
	}
	for _, id := range []CounterID{void, belowFloor, expired, gauge} {
		if _, ok := ms.record(id); ok {
			t.Errorf("stale record %+v not deleted", id)
		}
	}
	if g := e.gen.Load(); g <= 9 {
		t.Fatalf("generation %d did not resume above the stored ones", g)
	}
}

// TestFullQueueKeepsCountersDirty: a snapshot the store cannot take now
// is retried by the next flush instead of being lost.
func TestFullQueueKeepsCountersDirty(t *testing.T) {
	clk := newClock()
	e, ms := newPersistentEngine(t, clk, 0)
	r := up("/team", PeriodHour, 10)
	if err := e.Upsert(r, nil); err != nil {
		t.Fatal(err)
	}
	admitN(t, e, "/team", 2)
	ms.full = true
	if err := e.flush(false); err != nil {
		t.Fatal(err)
	}
	ms.full = false
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if s, ok := ms.record(CounterID{Rule: r.Key()}); !ok || s.Requests != 2 {
		t.Fatalf("snapshot after a full queue: %+v, %v", s, ok)
	}
}
