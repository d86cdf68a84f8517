package limits

import (
	"testing"
	"time"
)

func TestCancelGivesTheRequestBack(t *testing.T) {
	clk := newClock()
	e := newEngine(t, clk,
		Rule{Scope: ScopeUserPath, Subject: "/team", Period: PeriodMinute, MaxRequests: 2},
		Rule{Scope: ScopeUserPath, Subject: "/team", Period: PeriodConcurrent, MaxRequests: 1})

	a, rej := e.AdmitUserPath("/team/a")
	if rej != nil {
		t.Fatal(rej.Reason)
	}
	if allowed(e, "/team/a") {
		t.Fatal("concurrency slot not held")
	}
	a.Cancel()
	a.Done(100) // ignored after Cancel
	a.Cancel()  // idempotent
	// The slot is free and the cancelled request no longer counts: two
	// more fit in the minute.
	admitN(t, e, "/team/a", 2)
	if allowed(e, "/team/a") {
		t.Fatal("the window admitted more than its cap")
	}
}

func TestCancelAcrossWindowBoundaryAndReset(t *testing.T) {
	clk := newClock()
	k := Rule{Scope: ScopeUserPath, Subject: "/", Period: PeriodMinute, MaxRequests: 10}
	e := newEngine(t, clk, k)

	// Admitted in one window, cancelled in the next: the previous window
	// gives it back.
	a, _ := e.AdmitUserPath("/x")
	clk.Add(time.Minute)
	a.Cancel()
	if got := statusOf(t, e, k.Key()).Usage.RequestsUsed; got != 0 {
		t.Fatalf("after cancel in the next window: %d used", got)
	}

	// A reset between admission and cancel: nothing to give back, and
	// the count never goes negative.
	admitN(t, e, "/x", 3)
	b, _ := e.AdmitUserPath("/x")
	if err := e.ResetOne(k.Key()); err != nil {
		t.Fatal(err)
	}
	admitN(t, e, "/x", 1)
	b.Cancel()
	if got := statusOf(t, e, k.Key()).Usage.RequestsUsed; got != 1 {
		t.Fatalf("cancel after a reset changed the new window: %d used, want 1", got)
	}
}
