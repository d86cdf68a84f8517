package limits

import (
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestConcurrencyCapUnderLoad(t *testing.T) {
	clk := newClock()
	conc := Rule{Scope: ScopeUserPath, Subject: "/team", Period: PeriodConcurrent, MaxRequests: 5}
	// More rules on the path, so admissions lock several counters.
	e := newEngine(t, clk, conc, up("/", PeriodMinute, 1<<40), up("/team/app", PeriodHour, 1<<40))
	var (
		inFlight, peak, admitted, rejected atomic.Int64
		wg                                 sync.WaitGroup
	)
	for g := 0; g < 200; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				a, rej := e.AdmitUserPath("/team/app")
				if rej != nil {
					rejected.Add(1)
					if rej.RetryAfter != time.Second {
						t.Errorf("Retry-After %v for a full concurrency cap", rej.RetryAfter)
					}
					continue
				}
				n := inFlight.Add(1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				admitted.Add(1)
				time.Sleep(10 * time.Microsecond)
				inFlight.Add(-1)
				a.Done(0)
			}
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > 5 {
		t.Fatalf("peak in flight %d exceeds cap 5", p)
	}
	if admitted.Load() == 0 || rejected.Load() == 0 {
		t.Fatalf("admitted %d, rejected %d: test did not exercise the cap", admitted.Load(), rejected.Load())
	}
	if f := statusOf(t, e, conc.Key()).Usage.InFlight; f != 0 {
		t.Fatalf("%d slots still held", f)
	}
	// Rejections consumed nothing on the window rules.
	if u := statusOf(t, e, up("/", PeriodMinute, 1).Key()).Usage.RequestsUsed; u != admitted.Load() {
		t.Fatalf("root counted %d requests, %d admitted", u, admitted.Load())
	}
}

func TestDoneFromDeferredRecover(t *testing.T) {
	conc := Rule{Scope: ScopeUserPath, Subject: "/", Period: PeriodConcurrent, MaxRequests: 5}
	e := newEngine(t, newClock(), conc)
	var wg sync.WaitGroup
	for g := 0; g < 200; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { _ = recover() }()
			a, rej := e.AdmitUserPath("/x")
			if rej != nil {
				return
			}
			defer a.Done(0)
			defer a.Done(0) // twice: idempotent
			panic("handler blew up")
		}()
	}
	wg.Wait()
	if f := statusOf(t, e, conc.Key()).Usage.InFlight; f != 0 {
		t.Fatalf("%d slots leaked after panics", f)
	}
	var held []Admission
	for i := 0; i < 5; i++ {
		a, rej := e.AdmitUserPath("/x")
		if rej != nil {
			t.Fatalf("slot %d unavailable: %s", i, rej.Reason)
		}
		held = append(held, a)
	}
	if allowed(e, "/x") {
		t.Fatal("sixth slot granted")
	}
	for i := range held {
		held[i].Done(0)
	}
}

func TestProviderConcurrency(t *testing.T) {
	r := Rule{Scope: ScopeProvider, Subject: "openai", Period: PeriodConcurrent, MaxRequests: 2}
	e := newEngine(t, newClock(), r)
	a1, _ := e.AdmitTarget("openai", "m")
	a2, _ := e.AdmitTarget("openai", "m")
	if ra, ok := e.TargetAvailable("openai", "m"); ok || ra != time.Second {
		t.Fatalf("TargetAvailable = %v, %v", ra, ok)
	}
	a1.Done(0)
	if _, ok := e.TargetAvailable("openai", "m"); !ok {
		t.Fatal("slot not released")
	}
	a2.Done(0)
}

func TestManyRulesSpillAdmission(t *testing.T) {
	// More matching rules than the inline capacity of Admission and of the
	// match buffer.
	var rules []Rule
	for s := 1; s <= 20; s++ {
		rules = append(rules, Rule{Scope: ScopeUserPath, Subject: "/", PeriodSeconds: s, MaxRequests: 3})
	}
	rules = append(rules, Rule{Scope: ScopeUserPath, Subject: "/", Period: PeriodConcurrent, MaxRequests: 1})
	e := newEngine(t, newClock(), rules...)
	a, rej := e.AdmitUserPath("/x")
	if rej != nil {
		t.Fatal(rej)
	}
	if allowed(e, "/x") {
		t.Fatal("concurrency cap not applied with many rules")
	}
	a.Done(0)
	admitN(t, e, "/x", 2)
	if allowed(e, "/x") {
		t.Fatal("window caps not applied with many rules")
	}
}

func TestEvictIdlePartitions(t *testing.T) {
	clk := newClock()
	tmpl := Rule{Scope: ScopeUserPath, Subject: "/c", Period: PeriodMinute, MaxRequests: 2, PerChild: true}
	e := newEngine(t, clk, tmpl)
	admitN(t, e, "/c/old", 2)
	held, _ := e.AdmitUserPath("/c/streaming")
	clk.Add(90 * time.Second)
	admitN(t, e, "/c/new", 1)
	e.evict()
	tm := e.groups[tmpl.Key()].tmpl
	if tm.lookup("old") == nil {
		t.Fatal("partition with a decaying window evicted")
	}
	clk.Add(time.Minute)
	e.evict()
	if tm.lookup("old") != nil {
		t.Fatal("idle partition kept")
	}
	if tm.lookup("new") == nil || tm.lookup("streaming") == nil {
		t.Fatal("active partitions evicted")
	}
	held.Done(500)
	// An evicted child starts fresh.
	admitN(t, e, "/c/old", 2)

	// An admission racing eviction retries with a live partition.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				e.evict()
			}
		}
	}()
	for i := 0; i < 2000; i++ {
		clk.Add(3 * time.Minute)
		admitN(t, e, "/c/racer", 1)
	}
	close(stop)
	wg.Wait()
}

func TestAdmitBatchTakesNoSlot(t *testing.T) {
	conc := Rule{Scope: ScopeUserPath, Subject: "/team", Period: PeriodConcurrent, MaxRequests: 1}
	win := up("/team", PeriodMinute, 3)
	tmpl := Rule{Scope: ScopeUserPath, Subject: "/team", Period: PeriodHour, MaxRequests: 2, PerChild: true}
	e := newEngine(t, newClock(), conc, win, tmpl)
	if len(e.Rules()) != 3 {
		t.Fatalf("rules %+v", e.Rules())
	}
	held, _ := e.AdmitUserPath("/team/a")
	for i := 0; i < 2; i++ {
		if h, rej := e.AdmitBatch("/team/b"); rej != nil || !h.HasRequests {
			t.Fatalf("batch %d: %v %+v", i, rej, h)
		}
	}
	if _, rej := e.AdmitBatch("/team/b"); rej == nil || rej.Rule != win.Key() {
		t.Fatalf("third batch: %+v, want the minute rule", rej)
	}
	held.Done(0)
	if sf := e.StatusFor("/team/b"); sf[len(sf)-1].Usage.InFlight != 0 {
		t.Fatalf("batch left a hold: %+v", sf)
	}
}

// TestConcurrencyHeaders: a concurrency rule reports its cap and free
// slots in the headers of an admission, counting that admission, and a
// refusal by a concurrency-only rule carries them with none free.
func TestConcurrencyHeaders(t *testing.T) {
	e := newEngine(t, newClock(), Rule{Scope: ScopeUserPath, Subject: "/team", Period: PeriodConcurrent, MaxRequests: 2})
	a1, rej := e.AdmitUserPath("/team/app")
	if rej != nil {
		t.Fatal(rej)
	}
	if h := a1.Headers(); !h.HasConcurrency || h.LimitConcurrency != 2 || h.RemainingConcurrency != 1 || h.HasRequests || h.HasTokens {
		t.Fatalf("first admission: %+v", h)
	}
	a2, _ := e.AdmitUserPath("/team/app")
	if h := a2.Headers(); h.RemainingConcurrency != 0 {
		t.Fatalf("second admission: %+v", h)
	}
	_, rej = e.AdmitUserPath("/team/app")
	if rej == nil {
		t.Fatal("third request admitted past a cap of 2")
	}
	hdr := http.Header{}
	rej.Headers.Apply(hdr)
	if hdr.Get(HeaderLimitConcurrency) != "2" || hdr.Get(HeaderRemainingConcurrency) != "0" || len(hdr) != 2 {
		t.Fatalf("refusal headers: %v", hdr)
	}
	a1.Done(0)
	a2.Done(0)
}
