package redisstore

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/testkit/redistest"
)

var (
	rootMinute = func(req, tok int64) limits.Rule {
		return limits.Rule{Scope: limits.ScopeUserPath, Subject: "/", Period: limits.PeriodMinute, MaxRequests: req, MaxTokens: tok}
	}
	rootConcurrent = func(n int64) limits.Rule {
		return limits.Rule{Scope: limits.ScopeUserPath, Subject: "/", Period: limits.PeriodConcurrent, MaxRequests: n}
	}
)

// Two processes sharing one Redis and one rpm=100 rule admit exactly 100
// of 1,000 concurrent requests between them.
func TestSharedWindowExactAcrossProcesses(t *testing.T) {
	url, prefix := redistest.New(t)
	clk := &testClock{t: t0.Add(20 * time.Second)}
	o := engineOpts{url: url, prefix: prefix, now: clk.Now}
	engines := make([]*limits.Engine, 2)
	for i := range engines {
		engines[i], _ = newSharedEngine(t, o, rootMinute(100, 0))
	}
	var admitted, refused atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 10; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				e := engines[(g+i)%2]
				a, rej := e.AdmitUserPath("/team/app")
				if rej != nil {
					if rej.Unavailable {
						t.Error("refused as unavailable with Redis up")
					}
					refused.Add(1)
					continue
				}
				admitted.Add(1)
				a.Done(0)
			}
		}(g)
	}
	wg.Wait()
	if admitted.Load() != 100 || refused.Load() != 900 {
		t.Fatalf("admitted %d, refused %d; want 100 and 900", admitted.Load(), refused.Load())
	}
	for i, e := range engines {
		if f := e.SharedFallbacks(); f != 0 {
			t.Errorf("engine %d: %d fallbacks", i, f)
		}
	}
	// The refusal carries the usual headers and Retry-After: the window
	// started 20 s ago with 100 requests, so the next fits at the end of
	// the next window's first fraction (40 s + 0.6 s → 41 s).
	_, rej := engines[1].AdmitUserPath("/team")
	if rej == nil {
		t.Fatal("101st request admitted")
	}
	if !rej.Headers.HasRequests || rej.Headers.LimitRequests != 100 || rej.Headers.RemainingRequests != 0 {
		t.Errorf("headers %+v", rej.Headers)
	}
	if rej.RetryAfter != 41*time.Second {
		t.Errorf("Retry-After %v, want 41s", rej.RetryAfter)
	}
}

// The shared engine decides, and reports, exactly like the in-memory one
// for one process: same admissions, headers (free concurrency slots
// included) and Retry-After across windows, token charges and
// cancellations.
func TestSharedMatchesMemory(t *testing.T) {
	url, prefix := redistest.New(t)
	clk := &testClock{t: t0.Add(5 * time.Second)}
	rules := []limits.Rule{
		rootMinute(10, 500),
		{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodCustom, PeriodSeconds: 7, MaxRequests: 3},
		{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodHour, MaxRequests: 40, PerChild: true},
		rootConcurrent(4),
	}
	// Leases are timed by the test clock, which jumps up to 40 s a step:
	// an hour's lease keeps a held slot held, as renewal does in real time.
	lease := RateLimitOptions{LeaseTime: time.Hour}
	shared, _ := newSharedEngine(t, engineOpts{url: url, prefix: prefix, now: clk.Now, lease: lease}, rules...)
	mem, err := limits.New(limits.Options{Now: clk.Now, TokensEnforced: true, QuotaTemplates: true})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if err := mem.SetConfigRules(rules); err != nil {
		t.Fatal(err)
	}
	paths := []string{"/team/a", "/team/b", "/other", "/team/a/x"}
	var held [][2]limits.Admission
	steps := []time.Duration{0, 300 * time.Millisecond, 2 * time.Second, 1500 * time.Millisecond, 7 * time.Second, 40 * time.Second, 3 * time.Second}
	for i := 0; i < 120; i++ {
		path := paths[i%len(paths)]
		as, rs := shared.AdmitUserPath(path)
		am, rm := mem.AdmitUserPath(path)
		if (rs == nil) != (rm == nil) {
			t.Fatalf("step %d %s: shared refused=%v, memory refused=%v (%v / %v)", i, path, rs != nil, rm != nil, rs, rm)
		}
		if rs != nil {
			if rs.RetryAfter != rm.RetryAfter || rs.Headers != rm.Headers || rs.Rule != rm.Rule || rs.Reason != rm.Reason {
				t.Fatalf("step %d %s: refusal differs:\nshared %+v\nmemory %+v", i, path, rs, rm)
			}
		} else {
			if as.Headers() != am.Headers() {
				t.Fatalf("step %d %s: headers differ:\nshared %+v\nmemory %+v", i, path, as.Headers(), am.Headers())
			}
			held = append(held, [2]limits.Admission{as, am})
		}
		// Finish some: charge tokens, cancel one in five.
		if len(held) >= 3 || i%5 == 4 {
			for j := range held {
				switch {
				case (i+j)%5 == 0:
					held[j][0].Cancel()
					held[j][1].Cancel()
				default:
					tok := int64(37 * (i%4 + j))
					held[j][0].Done(tok)
					held[j][1].Done(tok)
				}
			}
			held = held[:0]
		}
		clk.Add(steps[i%len(steps)])
	}
}

// A concurrent=5 rule holds across two processes: never more than 5 in
// flight together, and all slots come back.
func TestSharedConcurrencyAcrossProcesses(t *testing.T) {
	url, prefix := redistest.New(t)
	o := engineOpts{url: url, prefix: prefix, now: time.Now}
	engines := make([]*limits.Engine, 2)
	for i := range engines {
		engines[i], _ = newSharedEngine(t, o, rootConcurrent(5))
	}
	var inFlight, peak, admitted atomic.Int64
	var wg sync.WaitGroup
	stop := time.Now().Add(500 * time.Millisecond)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; time.Now().Before(stop); i++ {
				a, rej := engines[(g+i)%2].AdmitUserPath("/x")
				if rej != nil {
					continue
				}
				n := inFlight.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				admitted.Add(1)
				time.Sleep(2 * time.Millisecond)
				inFlight.Add(-1)
				a.Done(0)
			}
		}(g)
	}
	wg.Wait()
	if p := peak.Load(); p > 5 {
		t.Fatalf("%d in flight at once, cap 5", p)
	}
	if peak.Load() < 5 || admitted.Load() < 10 {
		t.Fatalf("peak %d, %d admitted: the test did not load the cap", peak.Load(), admitted.Load())
	}
	// Every slot was given back: five fit again, a sixth does not.
	var hold []limits.Admission
	for i := 0; i < 5; i++ {
		a, rej := engines[i%2].AdmitUserPath("/y")
		if rej != nil {
			t.Fatalf("slot %d not given back: %v", i, rej)
		}
		hold = append(hold, a)
		// Free slots count the other process's too.
		if h := a.Headers(); !h.HasConcurrency || h.LimitConcurrency != 5 || h.RemainingConcurrency != int64(4-i) {
			t.Fatalf("slot %d: headers %+v, want 5 and %d free", i, h, 4-i)
		}
	}
	rej := func() *limits.Rejection { _, r := engines[1].AdmitUserPath("/y"); return r }()
	if rej == nil || rej.Reason != `rate limit exceeded: user_path rule on "/" allows 5 requests in flight at once` {
		t.Fatalf("sixth slot: %v", rej)
	}
	if h := rej.Headers; !h.HasConcurrency || h.LimitConcurrency != 5 || h.RemainingConcurrency != 0 {
		t.Fatalf("sixth slot: headers %+v", h)
	}
	for i := range hold {
		hold[i].Done(0)
	}
}

// A process that dies holding slots (stops renewing, never releases)
// gives them back within the lease time; while it renews, it keeps them.
func TestSharedLeasesOfDeadProcessExpire(t *testing.T) {
	url, prefix := redistest.New(t)
	lease := RateLimitOptions{LeaseTime: time.Second, RenewEvery: 200 * time.Millisecond}
	o := engineOpts{url: url, prefix: prefix, now: time.Now, lease: lease}
	a, rlA := newSharedEngine(t, o, rootConcurrent(3))
	b, _ := newSharedEngine(t, o, rootConcurrent(3))
	for i := 0; i < 3; i++ {
		if _, rej := a.AdmitUserPath("/p1"); rej != nil {
			t.Fatal(rej)
		}
	}
	if n := rlA.Held(); n != 3 {
		t.Fatalf("process 1 holds %d leases, want 3", n)
	}
	// Renewed: still held after twice the lease time.
	time.Sleep(2 * time.Second)
	if _, rej := b.AdmitUserPath("/p2"); rej == nil {
		t.Fatal("slot free although its holder renews it")
	}
	rlA.abandon() // kill -9
	died := time.Now()
	for {
		adm, rej := b.AdmitUserPath("/p2")
		if rej == nil {
			adm.Done(0)
			break
		}
		if time.Since(died) > 3*time.Second {
			t.Fatal("slots of the dead process not back within 3 s (lease 1 s)")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if d := time.Since(died); d > 1500*time.Millisecond {
		t.Fatalf("slots back after %v, lease time 1 s", d)
	}
	// All three are back.
	for i := 0; i < 3; i++ {
		if _, rej := b.AdmitUserPath("/p2"); rej != nil {
			t.Fatalf("slot %d: %v", i, rej)
		}
	}
}

// Tokens charged through one process count at the other; a reset through
// one clears the shared windows; Cancel gives the request back.
func TestSharedTokensResetCancel(t *testing.T) {
	url, prefix := redistest.New(t)
	clk := &testClock{t: t0.Add(10 * time.Second)}
	o := engineOpts{url: url, prefix: prefix, now: clk.Now}
	rule := rootMinute(10, 100)
	a, _ := newSharedEngine(t, o, rule)
	b, _ := newSharedEngine(t, o, rule)
	adm, rej := a.AdmitUserPath("/u")
	if rej != nil {
		t.Fatal(rej)
	}
	if h := adm.Headers(); h.RemainingRequests != 9 || h.RemainingTokens != 100 {
		t.Fatalf("headers %+v", h)
	}
	adm.Done(150) // overshoots
	if _, rej := b.AdmitUserPath("/u"); rej == nil || rej.Reason != `rate limit exceeded: user_path rule on "/" allows 100 tokens per minute` {
		t.Fatalf("after 150 tokens at process 1, process 2: %v", rej)
	}
	if err := a.ResetOne(rule.Key()); err != nil {
		t.Fatal(err)
	}
	adm, rej = b.AdmitUserPath("/u")
	if rej != nil {
		t.Fatalf("after reset: %v", rej)
	}
	if h := adm.Headers(); h.RemainingRequests != 9 || h.RemainingTokens != 100 {
		t.Fatalf("after reset: headers %+v", h)
	}
	adm.Cancel()
	adm, rej = a.AdmitUserPath("/u")
	if rej != nil {
		t.Fatal(rej)
	}
	if h := adm.Headers(); h.RemainingRequests != 9 {
		t.Fatalf("the cancelled request was not given back: %+v", adm.Headers())
	}
	adm.Done(0)
	a.ResetAll()
	for i := 0; i < 10; i++ {
		if _, rej := b.AdmitUserPath("/u"); rej != nil {
			t.Fatalf("after reset-all, request %d: %v", i, rej)
		}
	}
}

// With Redis unreachable each process admits against its own counters,
// counting the fallbacks; fail-closed it refuses as unavailable.
func TestSharedFallbackAndFailClosed(t *testing.T) {
	o := engineOpts{url: "redis://127.0.0.1:1/0", prefix: "mgtest:down:", now: time.Now}
	engines := make([]*limits.Engine, 2)
	for i := range engines {
		engines[i], _ = newSharedEngine(t, o, rootMinute(10, 0), rootConcurrent(2))
	}
	for i, e := range engines {
		var admitted int
		var held []limits.Admission
		for j := 0; j < 15; j++ {
			a, rej := e.AdmitUserPath("/z")
			if rej != nil {
				if rej.Unavailable {
					t.Fatal("unavailable although fail-open")
				}
				continue
			}
			admitted++
			if len(held) < 1 {
				held = append(held, a) // one held: the concurrent cap (2) is local too
			} else {
				a.Done(0)
			}
		}
		if admitted != 10 {
			t.Errorf("engine %d admitted %d, want its local cap 10", i, admitted)
		}
		if f := e.SharedFallbacks(); f != 15 {
			t.Errorf("engine %d: %d fallbacks counted, want 15", i, f)
		}
		if e.SharedHealthy() {
			t.Errorf("engine %d reports the shared store healthy", i)
		}
		for j := range held {
			held[j].Done(0)
		}
	}
	o.failClosed = true
	e, _ := newSharedEngine(t, o, rootMinute(10, 0))
	start := time.Now()
	_, rej := e.AdmitUserPath("/z")
	if rej == nil || !rej.Unavailable || rej.RetryAfter != time.Second {
		t.Fatalf("fail-closed: %+v", rej)
	}
	if time.Since(start) > 500*time.Millisecond {
		t.Fatalf("refusal took %v", time.Since(start))
	}
	if e.SharedFallbacks() != 1 {
		t.Fatalf("%d fallbacks", e.SharedFallbacks())
	}
}

// When Redis comes back the engine goes back to it within a second or two.
func TestSharedRecoversWhenRedisReturns(t *testing.T) {
	url, prefix := redistest.New(t)
	p := newTCPProxy(t, "127.0.0.1:6379")
	clk := &testClock{t: t0.Add(10 * time.Second)}
	direct, _ := newSharedEngine(t, engineOpts{url: url, prefix: prefix, now: clk.Now}, rootMinute(5, 0))
	viaProxy, _ := newSharedEngine(t, engineOpts{url: "redis://" + p.addr + "/0", prefix: prefix, now: clk.Now}, rootMinute(5, 0))
	if _, rej := viaProxy.AdmitUserPath("/r"); rej != nil {
		t.Fatal(rej)
	}
	p.stop()
	// Local counters start from the shared count last seen (1): four more
	// fit, the fifth does not.
	for i := 0; i < 5; i++ {
		_, rej := viaProxy.AdmitUserPath("/r")
		if (rej == nil) != (i < 4) {
			t.Fatalf("fallback admission %d: %v", i, rej)
		}
	}
	if viaProxy.SharedHealthy() || viaProxy.SharedFallbacks() != 5 {
		t.Fatalf("healthy=%v fallbacks=%d", viaProxy.SharedHealthy(), viaProxy.SharedFallbacks())
	}
	p.start(t)
	deadline := time.Now().Add(3 * time.Second)
	for !viaProxy.SharedHealthy() {
		if time.Now().After(deadline) {
			t.Fatal("not back on Redis within 3 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Back on the shared window: 1 (before) + 4 now = 5, then refused at
	// both processes.
	for i := 0; i < 4; i++ {
		if _, rej := viaProxy.AdmitUserPath("/r"); rej != nil {
			t.Fatalf("shared admission %d after recovery: %v", i, rej)
		}
	}
	if _, rej := direct.AdmitUserPath("/r"); rej == nil {
		t.Fatal("process 2 admitted a sixth request")
	}
	if _, rej := viaProxy.AdmitUserPath("/r"); rej == nil {
		t.Fatal("process 1 admitted a sixth request")
	}
}

// A rule created, edited and deleted through one process is in force at
// the other within a second; its counters are shared.
func TestRuleChangesReachOtherProcesses(t *testing.T) {
	url, prefix := redistest.New(t)
	store := newMemRules()
	o := engineOpts{url: url, prefix: prefix, now: time.Now, rules: store, follow: true}
	a, rlA := newSharedEngine(t, o)
	b, _ := newSharedEngine(t, o)
	// Wait until process 2's subscription is live.
	deadline := time.Now().Add(5 * time.Second)
	for len(b.Rules()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("process 2 never saw a rule")
		}
		_ = store.ReplaceRule(&limits.Rule{Scope: limits.ScopeProvider, Subject: "probe", Period: limits.PeriodMinute, MaxRequests: 1, Source: limits.SourceManual}, nil)
		rlA.Announce(limits.Change{Rules: true})
		time.Sleep(50 * time.Millisecond)
	}
	within := func(what string, ok func() bool) {
		t.Helper()
		start := time.Now()
		for !ok() {
			if time.Since(start) > time.Second {
				t.Fatalf("%s: not in force at process 2 within 1 s", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	rule := limits.Rule{Scope: limits.ScopeUserPath, Subject: "/t", Period: limits.PeriodMinute, MaxRequests: 2}
	if err := a.Upsert(rule, nil); err != nil {
		t.Fatal(err)
	}
	within("create", func() bool { return len(b.StatusFor("/t")) == 1 })
	if _, rej := a.AdmitUserPath("/t"); rej != nil {
		t.Fatal(rej)
	}
	if _, rej := b.AdmitUserPath("/t"); rej != nil {
		t.Fatal(rej)
	}
	if _, rej := b.AdmitUserPath("/t"); rej == nil {
		t.Fatal("third request admitted under max 2 shared by two processes")
	}
	rule.MaxRequests = 3
	if err := a.Upsert(rule, nil); err != nil {
		t.Fatal(err)
	}
	within("edit", func() bool { st := b.StatusFor("/t"); return len(st) == 1 && st[0].Rule.MaxRequests == 3 })
	if _, rej := b.AdmitUserPath("/t"); rej != nil {
		t.Fatalf("edit kept the counters, so one more fits: %v", rej)
	}
	if err := a.Delete(rule.Key()); err != nil {
		t.Fatal(err)
	}
	within("delete", func() bool { return len(b.StatusFor("/t")) == 0 })
	if err := a.Upsert(rule, nil); err != nil {
		t.Fatal(err)
	}
	within("re-create", func() bool { return len(b.StatusFor("/t")) == 1 })
	for i := 0; i < 3; i++ {
		if _, rej := b.AdmitUserPath("/t"); rej != nil {
			t.Fatalf("a deleted rule's counters came back: request %d: %v", i, rej)
		}
	}
}

// Reset with rules names only those rules' windows, partitions included,
// and never the leases.
func TestResetScope(t *testing.T) {
	url, prefix := redistest.New(t)
	c, err := Open(context.Background(), Options{URL: url, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Destruct()
	rl := NewRateLimits(c, RateLimitOptions{})
	defer rl.Close()
	k1 := limits.Key{Scope: limits.ScopeUserPath, Subject: "/a", Period: limits.PeriodMinute}
	k2 := limits.Key{Scope: limits.ScopeUserPath, Subject: "/b", Period: limits.PeriodMinute}
	kc := limits.Key{Scope: limits.ScopeUserPath, Subject: "/a", Period: limits.PeriodConcurrent}
	ctx := context.Background()
	now := time.Now().UnixMilli()
	admit := func(ids ...limits.SharedCounter) {
		req := &limits.SharedAdmission{Now: now, Counters: ids}
		if err := rl.Admit(ctx, req); err != nil || !req.Admitted {
			t.Fatalf("admit: %v %v", err, req.Admitted)
		}
	}
	w := func(id string) limits.SharedCounter {
		return limits.SharedCounter{ID: id, Period: time.Minute, MaxRequests: 100}
	}
	admit(w(k1.SharedID()), w(k1.SharedID()+":alice"), w(k2.SharedID()), limits.SharedCounter{ID: kc.SharedID(), MaxRequests: 5})
	if err := rl.Reset(ctx, []limits.Key{k1}); err != nil {
		t.Fatal(err)
	}
	exists := func(key string) bool { return c.R.Exists(ctx, key).Val() == 1 }
	if exists(rl.key(k1.SharedID(), time.Minute)) || exists(rl.key(k1.SharedID()+":alice", time.Minute)) {
		t.Error("reset left a window of the rule")
	}
	if !exists(rl.key(k2.SharedID(), time.Minute)) || !exists(rl.key(kc.SharedID(), 0)) {
		t.Error("reset removed another rule's window or a lease set")
	}
	if err := rl.Reset(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if exists(rl.key(k2.SharedID(), time.Minute)) || !exists(rl.key(kc.SharedID(), 0)) {
		t.Error("reset-all: windows kept or leases dropped")
	}
}

// Usage listings show the shared counts: requests, tokens and slots taken
// through another process, template children included.
func TestSharedUsageAcrossProcesses(t *testing.T) {
	url, prefix := redistest.New(t)
	clk := &testClock{t: t0.Add(30 * time.Second)}
	o := engineOpts{url: url, prefix: prefix, now: clk.Now}
	rules := []limits.Rule{
		rootMinute(10, 1000),
		rootConcurrent(4),
		{Scope: limits.ScopeUserPath, Subject: "/c", Period: limits.PeriodHour, MaxRequests: 9, PerChild: true},
	}
	a, _ := newSharedEngine(t, o, rules...)
	b, _ := newSharedEngine(t, o, rules...)
	var held []limits.Admission
	for i := 0; i < 3; i++ {
		adm, rej := a.AdmitUserPath("/c/alice")
		if rej != nil {
			t.Fatal(rej)
		}
		held = append(held, adm)
	}
	held[0].Done(120)
	st := b.StatusFor("/c/alice")
	if len(st) != 3 {
		t.Fatalf("%d statuses", len(st))
	}
	got := map[string]limits.Usage{}
	for _, s := range st {
		got[s.Key.PeriodLabel()] = s.Usage
	}
	if u := got["minute"]; u.RequestsUsed != 3 || u.TokensUsed != 120 || u.WindowStart != t0 {
		t.Errorf("minute rule at process 2: %+v", u)
	}
	if u := got["concurrent"]; u.InFlight != 2 {
		t.Errorf("concurrent rule at process 2: %+v", u)
	}
	if u := got["hour"]; u.RequestsUsed != 3 {
		t.Errorf("alice's partition at process 2: %+v", u)
	}
	for _, r := range b.Rules() {
		if r.Key.Period == limits.PeriodMinute && r.Usage.RequestsUsed != 3 {
			t.Errorf("Rules at process 2: %+v", r.Usage)
		}
	}
	for _, h := range held[1:] {
		h.Done(0)
	}
}
