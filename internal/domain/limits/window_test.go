package limits

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestWindowEstimate(t *testing.T) {
	const P = int64(time.Minute)
	s := int64(time.Second)
	cases := []struct {
		name               string
		cur, prev, elapsed int64
		want               int64
	}{
		{"empty", 0, 0, 10 * s, 0},
		{"current only", 7, 0, 59 * s, 7},
		{"previous at window start counts fully", 0, 20, 0, 20},
		{"previous three quarters", 10, 20, 15 * s, 25},  // 10 + 20*45/60
		{"previous fraction rounds up", 3, 7, 20 * s, 8}, // 3 + ceil(7*40/60=4.67)
		{"previous exact half", 0, 10, 30 * s, 5},        // 10*30/60
		{"previous almost gone", 1, 100, P - 1, 2},       // ceil(100*1ns/60s)=1
		{"huge counts do not overflow", 1, math.MaxInt64 / 2, 30 * s, 1 + math.MaxInt64/4 + 1},
	}
	for _, c := range cases {
		w := window{cur: c.cur, prev: c.prev, elapsed: c.elapsed, period: P}
		if got := w.used(); got != c.want {
			t.Errorf("%s: used() = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestWindowWait(t *testing.T) {
	const P = int64(time.Minute)
	s := int64(time.Second)
	cases := []struct {
		name               string
		cur, prev, elapsed int64
		limit              int64
		want               int64 // nanoseconds
	}{
		{"room left", 3, 0, 10 * s, 10, 0},
		// 5 + ceil(10*30/60) = 10: need ceil(10*(60-t)/60) <= 4 -> t >= 36s.
		{"within the current window", 5, 10, 30 * s, 10, 6 * s},
		// 10 in the current window: wait for the boundary (30s) plus
		// until ceil(10*(60-t)/60) <= 9 -> t >= 6s.
		{"past the boundary", 10, 0, 30 * s, 10, 36 * s},
		{"past the boundary, limit 1", 1, 0, 0, 1, 2 * P},
		// Overshoot (tokens charged after admission): 1500 of 1000.
		{"overshoot", 1500, 0, 0, 1000, P + 20040*int64(time.Millisecond)}, // 60s - 999*60s/1500
		{"previous only, just above", 0, 11, 0, 10, 10909090910},           // 60 - floor(9*60/11)s
	}
	for _, c := range cases {
		w := window{cur: c.cur, prev: c.prev, elapsed: c.elapsed, period: P}
		got := w.wait(c.limit)
		if got != c.want {
			t.Errorf("%s: wait = %v, want %v", c.name, time.Duration(got), time.Duration(c.want))
			continue
		}
		if got == 0 {
			continue
		}
		// The wait is exact: admitted at +wait, not 1ns earlier.
		at := func(d int64) window {
			c2 := counter{period: P, idx: 10, curReq: c.cur, prevReq: c.prev}
			now := 10*P + c.elapsed + d
			c2.rotate(now)
			return c2.reqWindow(now)
		}
		if u := at(got).used(); u+1 > c.limit {
			t.Errorf("%s: at +wait used=%d, not admitted", c.name, u)
		}
		if u := at(got - 1).used(); u+1 <= c.limit {
			t.Errorf("%s: at +wait-1ns used=%d, already admitted", c.name, u)
		}
	}
}

func TestWindowReset(t *testing.T) {
	const P = int64(time.Minute)
	s := int64(time.Second)
	if got := (window{cur: 1, elapsed: 20 * s, period: P}).reset(); got != 100*s {
		t.Errorf("reset with current traffic = %v, want 100s", time.Duration(got))
	}
	if got := (window{prev: 1, elapsed: 20 * s, period: P}).reset(); got != 40*s {
		t.Errorf("reset with previous traffic only = %v, want 40s", time.Duration(got))
	}
	if got := (window{elapsed: 20 * s, period: P}).reset(); got != 0 {
		t.Errorf("reset of empty window = %v, want 0", time.Duration(got))
	}
}

func TestRotate(t *testing.T) {
	P := int64(time.Minute)
	c := counter{period: P, idx: 5, curReq: 4, prevReq: 9, curTok: 40, prevTok: 90}
	c.rotate(5*P + 59*int64(time.Second))
	if c.curReq != 4 || c.prevReq != 9 {
		t.Fatalf("same window changed: %+v", c.snapshot())
	}
	c.rotate(6 * P)
	if c.idx != 6 || c.curReq != 0 || c.prevReq != 4 || c.prevTok != 40 || c.curTok != 0 {
		t.Fatalf("next window: %+v", c.snapshot())
	}
	c.rotate(5 * P) // older reading: no move back
	if c.idx != 6 || c.prevReq != 4 {
		t.Fatalf("moved back: %+v", c.snapshot())
	}
	c.curReq = 3
	c.rotate(8 * P)
	if c.curReq != 0 || c.prevReq != 0 || c.prevTok != 0 {
		t.Fatalf("two windows later: %+v", c.snapshot())
	}
}

func TestCeilSeconds(t *testing.T) {
	for ns, want := range map[int64]time.Duration{0: 0, 1: time.Second, int64(time.Second): time.Second, int64(time.Second) + 1: 2 * time.Second} {
		if got := ceilSeconds(ns); got != want {
			t.Errorf("ceilSeconds(%d) = %v, want %v", ns, got, want)
		}
	}
}

// TestRetryAfterProperty drives one rule with random traffic and checks on
// every rejection that a retry exactly Retry-After later is admitted and
// one second earlier is not.
func TestRetryAfterProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rejections := 0
	for round := 0; round < 200; round++ {
		clk := newClock()
		limit := int64(1 + rng.IntN(20))
		period := []Period{PeriodMinute, PeriodCustom}[rng.IntN(2)]
		r := Rule{Scope: ScopeUserPath, Subject: "/p", Period: period, MaxRequests: limit}
		if period == PeriodCustom {
			r.PeriodSeconds = 1 + rng.IntN(90)
		}
		e := newEngine(t, clk, r)
		for step := 0; step < 60; step++ {
			clk.Add(time.Duration(rng.Int64N(int64(r.Key().Duration()) / 4)))
			a, rej := e.AdmitUserPath("/p")
			if rej == nil {
				a.Done(0)
				continue
			}
			if rej.RetryAfter < time.Second || rej.RetryAfter%time.Second != 0 {
				t.Fatalf("Retry-After %v not whole seconds >= 1", rej.RetryAfter)
			}
			rejections++
			base := clk.Now()
			if rej.RetryAfter > time.Second {
				clk.Set(base.Add(rej.RetryAfter - time.Second))
				if allowed(e, "/p") {
					t.Fatalf("round %d (limit %d, %s): admitted 1s before Retry-After %v", round, limit, r.Key().PeriodLabel(), rej.RetryAfter)
				}
			}
			clk.Set(base.Add(rej.RetryAfter))
			if !allowed(e, "/p") {
				t.Fatalf("round %d (limit %d, %s): rejected at Retry-After %v", round, limit, r.Key().PeriodLabel(), rej.RetryAfter)
			}
		}
		e.Close()
	}
	if rejections < 500 {
		t.Fatalf("only %d rejections exercised", rejections)
	}
}
