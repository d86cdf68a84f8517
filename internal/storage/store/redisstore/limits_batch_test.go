package redisstore

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/testkit/redistest"
)

// windowKeys returns the rate-limit window hashes under rl's prefix.
func windowKeys(t *testing.T, rl *RateLimits) []string {
	t.Helper()
	keys, err := rl.r.Keys(context.Background(), rl.c.Key("rl", "w", "")+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// windowHash returns the fields of the one rate-limit window hash under
// rl's prefix.
func windowHash(t *testing.T, rl *RateLimits) map[string]string {
	t.Helper()
	keys := windowKeys(t, rl)
	if len(keys) != 1 {
		t.Fatalf("window keys %v; want one", keys)
	}
	h, err := rl.r.HGetAll(context.Background(), keys[0]).Result()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// Far below a cap a process counts small batches ahead and admits from
// them without a round trip each; near the cap it asks one by one, so
// three processes hammering one rpm=4000 rule still admit exactly 4,000.
func TestSharedBatchesFarBelowCap(t *testing.T) {
	url, prefix := redistest.New(t)
	clk := &testClock{t: t0.Add(20 * time.Second)}
	o := engineOpts{url: url, prefix: prefix, now: clk.Now}
	engines := make([]*limits.Engine, 3)
	rls := make([]*RateLimits, 3)
	for i := range engines {
		engines[i], rls[i] = newSharedEngine(t, o, rootMinute(4000, 0))
	}
	hook := &roundTrips{}
	rls[0].r.AddHook(hook)
	admitN(t, engines[0], "/team/app", 200)
	// Batches are at most 4 (1/1000 of the cap), so at least 50 calls.
	if n := hook.n.Load(); n < 50 || n > 60 {
		t.Errorf("200 admissions took %d round trips; want 50-60", n)
	}
	if r, _ := strconv.Atoi(windowHash(t, rls[0])["r"]); r < 200 || r > 203 {
		t.Errorf("the window counts %d; want 200 admitted plus at most 3 counted ahead", r)
	}

	var admitted atomic.Int64
	admitted.Store(200)
	var wg sync.WaitGroup
	for g := 0; g < 12; g++ {
		wg.Add(1)
		go func(e *limits.Engine) {
			defer wg.Done()
			for i := 0; i < 1500; i++ {
				a, rej := e.AdmitUserPath("/team/app")
				if rej != nil {
					if rej.Unavailable {
						t.Error("refused as unavailable with Redis up")
						return
					}
					continue
				}
				admitted.Add(1)
				a.Done(0)
			}
		}(engines[g%3])
	}
	wg.Wait()
	if n := admitted.Load(); n != 4000 {
		t.Fatalf("admitted %d of 18,200; want exactly 4,000", n)
	}
	for i, e := range engines {
		if f := e.SharedFallbacks(); f != 0 {
			t.Errorf("engine %d: %d fallbacks", i, f)
		}
	}
}

// What a batch has left when its window ends is given back to that window
// with the next call, and caps under 2,000 never batch.
func TestSharedBatchGivenBack(t *testing.T) {
	url, prefix := redistest.New(t)
	clk := &testClock{t: t0.Add(20 * time.Second)}
	o := engineOpts{url: url, prefix: prefix, now: clk.Now}
	e, rl := newSharedEngine(t, o, rootMinute(4000, 0))
	// Batches of 1, 2, 4, 4 (the fourth with 3 left after 10 admissions
	// would be 11 counted): the window counts one ahead.
	admitN(t, e, "/team/app", 10)
	if h := windowHash(t, rl); h["r"] != "11" {
		t.Fatalf("window %v; want r=11 (10 admitted, 1 counted ahead)", h)
	}
	clk.Add(time.Minute)
	admitN(t, e, "/team/app", 1)
	if h := windowHash(t, rl); h["pr"] != "10" || h["r"] != "1" {
		t.Fatalf("window %v after the next window's first admission; want pr=10 r=1", h)
	}

	url2, prefix2 := redistest.New(t)
	small, rl2 := newSharedEngine(t, engineOpts{url: url2, prefix: prefix2, now: clk.Now}, rootMinute(1999, 0))
	hook := &roundTrips{}
	rl2.r.AddHook(hook)
	admitN(t, small, "/team/app", 20)
	if n := hook.n.Load(); n != 20 {
		t.Errorf("20 admissions under rpm=1999 took %d round trips; want 20", n)
	}
}

// windowRequests returns the r field of every rate-limit window hash
// under rl's prefix.
func windowRequests(t *testing.T, rl *RateLimits) []int64 {
	t.Helper()
	var out []int64
	for _, k := range windowKeys(t, rl) {
		r, err := rl.r.HGet(context.Background(), k, "r").Int64()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// A batch granted under a higher cap is not used once the cap is lowered:
// the window already counts more than the new cap, so nothing more is
// admitted.
func TestSharedBatchDroppedWhenCapLowered(t *testing.T) {
	url, prefix := redistest.New(t)
	clk := &testClock{t: t0.Add(20 * time.Second)}
	e, rl := newSharedEngine(t, engineOpts{url: url, prefix: prefix, now: clk.Now}, rootMinute(200_000, 0))
	admitN(t, e, "/team/app", 3010)
	if err := e.SetConfigRules([]limits.Rule{rootMinute(2000, 0)}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		if a, rej := e.AdmitUserPath("/team/app"); rej == nil {
			a.Done(0)
			t.Fatalf("admitted after the cap was lowered to 2,000 below the window's %v", windowRequests(t, rl))
		}
	}
}

// With a minute and a day rule on one path, the day counter never holds
// more than one batch counted ahead, however many minutes pass.
func TestSharedBatchesOfTwoRulesStayBounded(t *testing.T) {
	url, prefix := redistest.New(t)
	clk := &testClock{t: t0.Add(20 * time.Second)}
	day := limits.Rule{Scope: limits.ScopeUserPath, Subject: "/", Period: limits.PeriodDay, MaxRequests: 100_000_000}
	e, rl := newSharedEngine(t, engineOpts{url: url, prefix: prefix, now: clk.Now}, rootMinute(200_000, 0), day)
	admitted := int64(0)
	for minute := 0; minute < 30; minute++ {
		admitN(t, e, "/team/app", 150)
		admitted += 150
		clk.Add(time.Minute)
	}
	dayCount := slices.Max(windowRequests(t, rl))
	if dayCount < admitted || dayCount > admitted+leaseMaxForTest-1 {
		t.Fatalf("the day window counts %d for %d admitted; want at most one batch (%d) ahead", dayCount, admitted, leaseMaxForTest-1)
	}
}

// leaseMaxForTest is the largest batch the engine asks for (limits'
// leaseMax).
const leaseMaxForTest = 64
