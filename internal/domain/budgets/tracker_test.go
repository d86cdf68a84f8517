package budgets

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

func TestTrackerChargeAndCheck(t *testing.T) {
	now := ts(t, "2026-11-23T10:00:00Z")
	tr := newTestTracker(t, DefaultSettings(), now, Budget{UserPath: "/team", Period: Daily, Amount: 1})
	mustCheck(t, tr, "/team", now, true)
	tr.Charge("/team/app", 0.4, now)
	tr.Charge("/team", 0.4, now)
	mustCheck(t, tr, "/team/app", now, true)
	tr.Charge("/team-alpha", 5, now) // not covered
	tr.Charge("/", 5, now)           // not covered
	mustCheck(t, tr, "/team", now, true)
	tr.Charge("/team/app/x", 0.25, now.Add(time.Minute))
	at := now.Add(2 * time.Minute)
	wait, which := mustCheck(t, tr, "/team/app", at, false)
	if which == nil || which.UserPath != "/team" || which.Period != Daily {
		t.Fatalf("which = %+v", which)
	}
	if want := ts(t, "2026-11-24T00:00:00Z").Sub(at); wait != want {
		t.Fatalf("retry after %v, want %v", wait, want)
	}
	mustCheck(t, tr, "/team", at, false)
	mustCheck(t, tr, "/team-alpha", at, true)
	mustCheck(t, tr, "/", at, true)
	mustCheck(t, tr, "/other", at, true)

	// The next period starts with no spend.
	mustCheck(t, tr, "/team", ts(t, "2026-11-24T00:00:00Z"), true)
	tr.Charge("/team", 0.5, ts(t, "2026-11-24T00:00:01Z"))
	mustCheck(t, tr, "/team", ts(t, "2026-11-24T00:00:02Z"), true)
	// A late charge for the finished period is dropped, not added to the
	// new one.
	tr.Charge("/team", 0.6, ts(t, "2026-11-23T23:59:59Z"))
	mustCheck(t, tr, "/team", ts(t, "2026-11-24T00:00:03Z"), true)
}

func TestTrackerIgnoresBadCosts(t *testing.T) {
	now := ts(t, "2026-11-23T10:00:00Z")
	tr := newTestTracker(t, DefaultSettings(), now, Budget{UserPath: "/", Period: Hourly, Amount: 1})
	for _, c := range []float64{0, -3, math.NaN(), math.Inf(1), math.Inf(-1)} {
		tr.Charge("/a", c, now)
	}
	mustCheck(t, tr, "/a", now, true)
	tr.Charge("/a", 0.999, now)
	mustCheck(t, tr, "/a", now, true)
	tr.Charge("/a", 0.001, now)
	mustCheck(t, tr, "/a", now, false)
}

func TestTrackerZeroAmountRefusesEverything(t *testing.T) {
	now := ts(t, "2026-11-23T10:00:00Z")
	tr := newTestTracker(t, DefaultSettings(), now,
		Budget{UserPath: "/blocked", Period: Monthly, Amount: 0},
		Budget{UserPath: "/tenants", Period: Monthly, Amount: 0, PerChild: true})
	wait, _ := mustCheck(t, tr, "/blocked/x", now, false)
	if wait != ts(t, "2026-12-01T00:00:00Z").Sub(now) {
		t.Fatalf("wait %v", wait)
	}
	mustCheck(t, tr, "/tenants/new/app", now, false) // a child never charged
	mustCheck(t, tr, "/tenants", now, true)          // the template path itself
	mustCheck(t, tr, "/open", now, true)
}

// TestTrackerPerChild: a template keeps /customers/a and /customers/b
// apart, charges /customers/a/app to /customers/a and never charges or
// refuses the template path itself.
func TestTrackerPerChild(t *testing.T) {
	now := ts(t, "2026-11-23T10:00:00Z")
	tr := newTestTracker(t, DefaultSettings(), now,
		Budget{UserPath: "/customers", Period: Daily, Amount: 5, PerChild: true})
	tr.Charge("/customers/a/app", 3, now)
	tr.Charge("/customers/a", 2, now)
	tr.Charge("/customers", 100, now) // the template path is not charged
	tr.Charge("/customers/b", 4.5, now)
	_, which := mustCheck(t, tr, "/customers/a", now, false)
	if which.UserPath != "/customers" || !which.PerChild || which.EffectiveSubject("/customers/a/app") != "/customers/a" {
		t.Fatalf("which %+v", which)
	}
	mustCheck(t, tr, "/customers/a/other", now, false)
	mustCheck(t, tr, "/customers/b", now, true)
	mustCheck(t, tr, "/customers/c", now, true)
	mustCheck(t, tr, "/customers", now, true)
	mustCheck(t, tr, "/customers-x", now, true)

	// A root template: every first segment is a child.
	tr = newTestTracker(t, DefaultSettings(), now, Budget{UserPath: "/", Period: Hourly, Amount: 1, PerChild: true})
	tr.Charge("/x/y", 1, now)
	mustCheck(t, tr, "/x", now, false)
	mustCheck(t, tr, "/y", now, true)
	mustCheck(t, tr, "/", now, true)
}

// TestTrackerLongestWait: when several covering budgets are spent, Check
// names the one whose period ends last.
func TestTrackerLongestWait(t *testing.T) {
	now := ts(t, "2026-11-23T10:30:00Z")
	tr := newTestTracker(t, DefaultSettings(), now,
		Budget{UserPath: "/", Period: Hourly, Amount: 1},
		Budget{UserPath: "/team", Period: Daily, Amount: 1},
		Budget{UserPath: "/team", Period: Monthly, Amount: 100},
		Budget{UserPath: "/team/app", Period: 600, Amount: 1})
	tr.Charge("/team/app", 2, now)
	wait, which := mustCheck(t, tr, "/team/app", now, false)
	if which.UserPath != "/team" || which.Period != Daily || wait != 13*time.Hour+30*time.Minute {
		t.Fatalf("which %s wait %v", which.Key(), wait)
	}
	// Elsewhere only the hourly root budget is spent.
	wait, which = mustCheck(t, tr, "/other", now, false)
	if which.Key() != (Key{"/", Hourly}) || wait != 30*time.Minute {
		t.Fatalf("which %s wait %v", which.Key(), wait)
	}
	// After the hour and the custom window, the daily budget still holds.
	later := ts(t, "2026-11-23T11:00:00Z")
	mustCheck(t, tr, "/other", later, true)
	_, which = mustCheck(t, tr, "/team/app", later, false)
	if which.Period != Daily {
		t.Fatalf("which %s", which.Key())
	}
}

// TestTrackerResetOne: a reset clears the spend (all children of a
// template) and re-admits; charges dated before the reset are dropped.
func TestTrackerResetOne(t *testing.T) {
	now := ts(t, "2026-11-23T10:00:00Z")
	tr := newTestTracker(t, DefaultSettings(), now,
		Budget{UserPath: "/team", Period: Daily, Amount: 1},
		Budget{UserPath: "/team", Period: Weekly, Amount: 1},
		Budget{UserPath: "/customers", Period: Daily, Amount: 1, PerChild: true})
	tr.Charge("/team", 1, now)
	tr.Charge("/customers/a", 1, now)
	tr.Charge("/customers/b", 1, now)
	mustCheck(t, tr, "/team", now, false)
	at := now.Add(time.Minute)
	if err := tr.Reset(Key{"/team", Daily}, at); err != nil {
		t.Fatal(err)
	}
	_, which := mustCheck(t, tr, "/team", at, false) // the weekly one is still spent
	if which.Period != Weekly {
		t.Fatalf("which %s", which.Key())
	}
	if err := tr.Reset(Key{"/team", Weekly}, at); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, tr, "/team", at, true)
	tr.Charge("/team", 5, now.Add(30*time.Second)) // dated before the reset
	mustCheck(t, tr, "/team", at, true)
	for _, b := range tr.Budgets() {
		if b.UserPath == "/team" && !b.LastResetAt.Equal(at) {
			t.Fatalf("last reset %v", b.LastResetAt)
		}
	}

	if err := tr.Reset(Key{"/customers", Daily}, at); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, tr, "/customers/a", at, true)
	mustCheck(t, tr, "/customers/b", at, true)

	if err := tr.Reset(Key{"/nope", Daily}, at); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown key: %v", err)
	}
	if err := NewTracker().Reset(Key{"/nope", Daily}, at); !errors.Is(err, ErrNotFound) {
		t.Fatalf("empty tracker: %v", err)
	}

	tr.Charge("/team", 2, at)
	tr.Charge("/customers/a", 2, at)
	tr.ResetAll(at.Add(time.Second))
	mustCheck(t, tr, "/team", at.Add(time.Second), true)
	mustCheck(t, tr, "/customers/a", at.Add(time.Second), true)
}

// TestTrackerSetKeepsSpend: editing an amount keeps the spend; switching
// per_child, adding a budget or moving its current period starts afresh
// and is reported for rebuilding.
func TestTrackerSetKeepsSpend(t *testing.T) {
	now := ts(t, "2026-11-23T10:00:00Z")
	tr := newTestTracker(t, DefaultSettings(), now,
		Budget{UserPath: "/team", Period: Daily, Amount: 10},
		Budget{UserPath: "/team", Period: Hourly, Amount: 10},
		Budget{UserPath: "/c", Period: Daily, Amount: 10})
	tr.Charge("/team", 3, now)
	tr.Charge("/c/x", 3, now)
	mustCheck(t, tr, "/team", now, true)

	fresh, err := tr.Set([]Budget{
		{UserPath: "/team", Period: Daily, Amount: 2, Source: SourceManual},
		{UserPath: "/team", Period: Hourly, Amount: 2, Source: SourceManual},
		{UserPath: "/c", Period: Daily, Amount: 2, PerChild: true, Source: SourceManual},
		{UserPath: "/new", Period: Daily, Amount: 0.5, Source: SourceManual},
	}, DefaultSettings(), now)
	if err != nil {
		t.Fatal(err)
	}
	if len(fresh) != 2 || fresh[0] != (Key{"/c", Daily}) || fresh[1] != (Key{"/new", Daily}) {
		t.Fatalf("fresh %v", fresh)
	}
	mustCheck(t, tr, "/team", now, false) // 3 spent of the new 2
	mustCheck(t, tr, "/c/x", now, true)   // the template starts afresh

	// A settings change that moves the daily period restarts it; the
	// hourly period is not moved and keeps its spend.
	fresh, err = tr.Set(tr.Budgets(), Settings{DailyResetHour: 6, WeeklyResetWeekday: 1, MonthlyResetDay: 1}, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(fresh) != 3 {
		t.Fatalf("fresh %v", fresh)
	}
	for _, k := range fresh {
		if k.Period != Daily {
			t.Fatalf("fresh %v", fresh)
		}
	}
	_, which := mustCheck(t, tr, "/team", now, false)
	if which.Period != Hourly {
		t.Fatalf("which %s", which.Key())
	}

	if _, err := tr.Set([]Budget{{UserPath: "/a", Period: Daily}, {UserPath: "/a", Period: Daily}}, DefaultSettings(), now); !errors.Is(err, ErrInvalidBudget) {
		t.Fatalf("duplicate: %v", err)
	}
	if _, err := tr.Set(nil, Settings{DailyResetHour: 99, MonthlyResetDay: 1}, now); !errors.Is(err, ErrInvalidSettings) {
		t.Fatalf("settings: %v", err)
	}
	if len(tr.Budgets()) != 4 {
		t.Fatal("a failed Set changed the budgets")
	}
}

func TestTrackerSweep(t *testing.T) {
	now := ts(t, "2026-11-23T10:00:00Z")
	tr := newTestTracker(t, DefaultSettings(), now,
		Budget{UserPath: "/c", Period: Hourly, Amount: 1, PerChild: true},
		Budget{UserPath: "/team", Period: Hourly, Amount: 1})
	tr.Charge("/c/a", 1, now)
	tr.Charge("/c/b", 0.5, now)
	if n := tr.Sweep(now); n != 0 {
		t.Fatalf("swept %d children with spend", n)
	}
	later := now.Add(time.Hour)
	tr.Charge("/c/b", 0.25, later)
	if n := tr.Sweep(later); n != 1 {
		t.Fatalf("swept %d, want the idle child only", n)
	}
	tr.Charge("/c/a", 1, later) // a swept child comes back
	mustCheck(t, tr, "/c/a", later, false)
	mustCheck(t, tr, "/c/b", later, true)
}

// TestTrackerSpendSaturates: charges whose sum passes the largest spend
// a budget holds (math.MaxInt64 Nanos, about 9.2 billion USD) leave the
// spend there, never wrapped to a negative one.
func TestTrackerSpendSaturates(t *testing.T) {
	now := ts(t, "2026-11-23T10:00:00Z")
	b := Budget{UserPath: "/a", Period: Hourly, Amount: 1}
	tr := newTestTracker(t, DefaultSettings(), now, b)
	tr.Charge("/a", math.MaxFloat64, now)
	tr.Charge("/a", math.MaxFloat64, now)
	got, err := tr.Spent(b.Key(), "/a", now)
	if err != nil || got != catalog.Nanos(math.MaxInt64).Float() {
		t.Fatalf("spent %g, %v; want the largest spend", got, err)
	}
	mustCheck(t, tr, "/a", now, false)
}

// TestTrackerSpendIsExact: a million charges of 0.0000013 USD spend
// exactly 1.3 USD, as the usage records they come from add up
// (catalog.Nanos); float64 addition would spend 1.3000000000117504.
func TestTrackerSpendIsExact(t *testing.T) {
	now := ts(t, "2026-11-23T10:00:00Z")
	b := Budget{UserPath: "/a", Period: Daily, Amount: 1.3}
	tr := newTestTracker(t, DefaultSettings(), now, b)
	for range 999_999 {
		tr.Charge("/a/app", 0.0000013, now)
	}
	mustCheck(t, tr, "/a/app", now, true) // one charge short of the amount
	tr.Charge("/a/app", 0.0000013, now)
	got, err := tr.Spent(b.Key(), "/a", now)
	if err != nil || got != 1.3 {
		t.Fatalf("spent %.17g, %v; want exactly 1.3", got, err)
	}
	mustCheck(t, tr, "/a/app", now, false) // the amount is spent, to the billionth
}
