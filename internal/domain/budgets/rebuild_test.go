package budgets

import (
	"strings"
	"testing"
	"time"
)

// TestRebuildRestoresSpend: a fresh tracker (a restart) rebuilt from the
// persisted usage refuses and admits exactly as the one that charged.
func TestRebuildRestoresSpend(t *testing.T) {
	now := ts(t, "2026-11-23T10:05:00Z")
	list := []Budget{
		{UserPath: "/team", Period: Daily, Amount: 1},
		{UserPath: "/customers", Period: Daily, Amount: 1, PerChild: true},
		{UserPath: "/", Period: 600, Amount: 10},
	}
	src := &fakeSource{}
	src.add("/team/app", 0.6, ts(t, "2026-11-23T09:00:00Z"))
	src.add("/team", 0.5, ts(t, "2026-11-23T10:02:00Z"))
	src.add("/team", 7, ts(t, "2026-11-22T23:59:59Z")) // yesterday
	src.add("/team-alpha", 7, now)                     // not covered
	src.add("/customers/a/app", 1.2, ts(t, "2026-11-23T01:00:00Z"))
	src.add("/customers/b", 0.3, ts(t, "2026-11-23T01:00:00Z"))
	src.add("/customers", 50, ts(t, "2026-11-23T01:00:00Z")) // the template path

	tr := newTestTracker(t, DefaultSettings(), now, list...)
	if err := tr.Rebuild(src, now); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, tr, "/team", now, false)
	mustCheck(t, tr, "/customers/a", now, false)
	mustCheck(t, tr, "/customers/b", now, true)
	mustCheck(t, tr, "/team-alpha", now, true)
	tr.Charge("/customers/b", 0.7, now)
	mustCheck(t, tr, "/customers/b", now, false)

	// The custom window started at 10:00 and the records since then sum
	// to 0.5 + 7: the root budget still admits.
	for _, q := range src.queries {
		want := ts(t, "2026-11-23T00:00:00Z")
		if q.prefix == "/" {
			want = ts(t, "2026-11-23T10:00:00Z")
		}
		if !q.since.Equal(want) || q.perChild != (q.prefix == "/customers") {
			t.Fatalf("query %+v", q)
		}
	}
	mustCheck(t, tr, "/x", now, true)
	if got := spentOf(t, tr, Key{"/", 600}, "/", now); got != 7.5+0.7 {
		t.Fatalf("root spend %v", got)
	}
}

// TestRebuildSinceLastReset: spend counts from the later of the period
// start and the last reset, which need not be on an hour boundary.
func TestRebuildSinceLastReset(t *testing.T) {
	now := ts(t, "2026-11-23T10:00:00Z")
	reset := ts(t, "2026-11-23T08:17:23Z")
	src := &fakeSource{}
	src.add("/team", 0.9, ts(t, "2026-11-23T08:00:00Z"))
	src.add("/team", 0.2, ts(t, "2026-11-23T08:30:00Z"))
	tr := newTestTracker(t, DefaultSettings(), now,
		Budget{UserPath: "/team", Period: Daily, Amount: 1, LastResetAt: reset})
	if err := tr.Rebuild(src, now); err != nil {
		t.Fatal(err)
	}
	if q := src.queries[0]; !q.since.Equal(reset) {
		t.Fatalf("since %v", q.since)
	}
	if got := spentOf(t, tr, Key{"/team", Daily}, "/team", now); got != 0.2 {
		t.Fatalf("spent %v", got)
	}
	mustCheck(t, tr, "/team", now, true)
}

// TestRebuildErrorsKeepSpend: a failing query is reported naming its
// budget; other budgets are rebuilt and the failed one keeps its spend.
func TestRebuildErrorsKeepSpend(t *testing.T) {
	now := ts(t, "2026-11-23T10:00:00Z")
	tr := newTestTracker(t, DefaultSettings(), now,
		Budget{UserPath: "/a", Period: Daily, Amount: 1},
		Budget{UserPath: "/b", Period: Daily, Amount: 1})
	tr.Charge("/a", 2, now)
	src := &fakeSource{fail: map[string]bool{"/a": true}}
	src.add("/b", 3, now)
	err := tr.Rebuild(src, now)
	if err == nil || !strings.Contains(err.Error(), "/a daily") {
		t.Fatalf("err %v", err)
	}
	mustCheck(t, tr, "/a", now, false)
	mustCheck(t, tr, "/b", now, false)
	if err := tr.Rebuild(nil, now); err != nil {
		t.Fatal(err)
	}
}

// TestRebuildAfterSettingsChange: when a settings change moves a period,
// its spend is recomputed for the new period from the usage records.
func TestRebuildAfterSettingsChange(t *testing.T) {
	now := ts(t, "2026-11-23T10:00:00Z")
	src := &fakeSource{}
	src.add("/team", 0.7, ts(t, "2026-11-22T20:00:00Z")) // yesterday evening
	src.add("/team", 0.2, ts(t, "2026-11-23T09:00:00Z"))
	tr := newTestTracker(t, DefaultSettings(), now, Budget{UserPath: "/team", Period: Daily, Amount: 0.8})
	if err := tr.Rebuild(src, now); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, tr, "/team", now, true) // 0.2 since midnight

	// Days now start at 12:00: the current day began yesterday at noon
	// and holds both records.
	fresh, err := tr.Set(tr.Budgets(), Settings{DailyResetHour: 12, WeeklyResetWeekday: 1, MonthlyResetDay: 1}, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.RebuildKeys(src, now, fresh); err != nil {
		t.Fatal(err)
	}
	wait, _ := mustCheck(t, tr, "/team", now, false)
	if wait != 2*time.Hour {
		t.Fatalf("wait %v", wait)
	}
	if got := src.queries[len(src.queries)-1].since; !got.Equal(ts(t, "2026-11-22T12:00:00Z")) {
		t.Fatalf("since %v", got)
	}
}

// TestRebuildFoldsDeeperPaths: a source answering deeper paths for a
// template has them added to their direct child.
func TestRebuildFoldsDeeperPaths(t *testing.T) {
	now := ts(t, "2026-11-23T10:00:00Z")
	tr := newTestTracker(t, DefaultSettings(), now, Budget{UserPath: "/c", Period: Daily, Amount: 1, PerChild: true})
	tr.Charge("/c/stale", 5, now)
	err := tr.Rebuild(sourceFunc(func(string, bool, time.Time) (map[string]float64, error) {
		return map[string]float64{"/c/a/x": 0.5, "/c/a": 0.5, "/c": 9, "/d/a": 9, "/c/b": -1}, nil
	}), now)
	if err != nil {
		t.Fatal(err)
	}
	mustCheck(t, tr, "/c/a", now, false)
	mustCheck(t, tr, "/c/b", now, true)
	mustCheck(t, tr, "/c/stale", now, true) // the source is the truth
}

type sourceFunc func(string, bool, time.Time) (map[string]float64, error)

func (f sourceFunc) SpendSince(p string, c bool, s time.Time) (map[string]float64, error) {
	return f(p, c, s)
}
