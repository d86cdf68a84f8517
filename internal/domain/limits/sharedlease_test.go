package limits

import "testing"

// A batch's size follows the recent admissions, 1/leaseShare of the cap
// and leaseMax; what is left of a window's batch moves to the give-back
// when a later window's batch replaces it, and batches of one window add
// up.
func TestCounterLease(t *testing.T) {
	var l counterLease
	now := 7 * rateSlot
	l.note(now)
	if got := l.want(1_000_000); got != 1 {
		t.Errorf("after one admission want %d, want 1", got)
	}
	for range 99 {
		l.note(now)
	}
	if got := l.want(1_000_000); got != leaseMax {
		t.Errorf("after 100 admissions want %d, want %d", got, leaseMax)
	}
	if got := l.want(5_000); got != 5 {
		t.Errorf("under a cap of 5,000 want %d, want 5", got)
	}
	l.note(now + rateSlot) // the next slot still sees the last one's 100
	if got := l.want(1_000_000); got != leaseMax {
		t.Errorf("one slot on want %d, want %d", got, leaseMax)
	}
	l.note(now + 3*rateSlot) // an idle slot between: nothing recent
	if got := l.want(1_000_000); got != 1 {
		t.Errorf("after an idle slot want %d, want 1", got)
	}

	l.install(10, 4, 5000)
	l.install(10, 3, 5000)
	if l.win != 10 || l.left != 5 {
		t.Fatalf("two batches of window 10: win %d left %d, want 10 and 5", l.win, l.left)
	}
	if !l.usable(10, 5000, true) || l.left != 5 || l.back != 0 {
		t.Fatalf("the batch's own window and cap: usable left %d back %d", l.left, l.back)
	}
	if l.usable(10, 4000, true) || l.left != 0 || l.backWin != 10 || l.back != 5 {
		t.Fatalf("after the cap changed: %+v; want nothing left, 5 to give back to window 10", l)
	}
	l.back = 0
	l.install(10, 4, 5000)
	l.install(11, 2, 5000)
	if l.win != 11 || l.left != 1 || l.backWin != 10 || l.back != 3 {
		t.Fatalf("after window 11's batch: %+v; want win 11 left 1, 3 to give back to window 10", l)
	}
	if l.usable(11, 5000, false) || l.back != 1 || l.backWin != 11 {
		t.Fatalf("a counter that may no longer count ahead: %+v; want its 1 given back", l)
	}
}
