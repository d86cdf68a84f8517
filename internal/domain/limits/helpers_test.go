package limits

import (
	"sync"
	"testing"
	"time"
)

// t0 is aligned to minute, hour and day windows.
var t0 = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)

// fakeClock is an injectable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: t0} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// newEngine returns a memory-only engine on clk with the given rules
// installed as manual rules.
func newEngine(t testing.TB, clk *fakeClock, rules ...Rule) *Engine {
	t.Helper()
	e, err := New(Options{Now: clk.Now, TokensEnforced: true, QuotaTemplates: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	for _, r := range rules {
		if err := e.Upsert(r, nil); err != nil {
			t.Fatalf("Upsert(%+v): %v", r, err)
		}
	}
	return e
}

// admitN admits n requests on path, failing the test on a rejection, and
// finishes them with Done(0).
func admitN(t testing.TB, e *Engine, path string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		a, rej := e.AdmitUserPath(path)
		if rej != nil {
			t.Fatalf("request %d on %s rejected: %s", i, path, rej.Reason)
		}
		a.Done(0)
	}
}

// allowed reports whether one more request on path is admitted (and
// finishes it).
func allowed(e *Engine, path string) bool {
	a, rej := e.AdmitUserPath(path)
	a.Done(0)
	return rej == nil
}

// statusOf returns the admin-list status of k.
func statusOf(t testing.TB, e *Engine, k Key) RuleStatus {
	t.Helper()
	for _, s := range e.Rules() {
		if s.Key == k.Normalize() {
			return s
		}
	}
	t.Fatalf("rule %s not listed", k)
	return RuleStatus{}
}

func up(subject string, period Period, maxReq int64) Rule {
	return Rule{Scope: ScopeUserPath, Subject: subject, Period: period, MaxRequests: maxReq}
}
