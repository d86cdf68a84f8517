package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/budgets"
)

// BudgetsStorage checks a budgets.Storage: an empty storage answers
// nothing without error; budgets replace by key and keep their times to
// the nanosecond; named periods and custom ones of the same length (a
// day, 30 days) stay apart when stored, reset and deleted; a zero amount
// on a custom period of minutes comes back; a delete takes the reset mark
// with it and leaves the other budgets; settings are absent until stored,
// every stored value (zero fields included) reads back, storing the same
// settings twice is fine; resets replace per key and an empty PutResets
// is fine.
func BudgetsStorage(t *testing.T, st budgets.Storage) {
	t.Helper()
	if l, err := st.Budgets(); err != nil || len(l) != 0 {
		t.Fatalf("%v %v", l, err)
	}
	if _, ok, err := st.Settings(); ok || err != nil {
		t.Fatalf("settings before any: %v %v", ok, err)
	}
	if r, err := st.Resets(); err != nil || len(r) != 0 {
		t.Fatalf("resets before any: %v %v", r, err)
	}
	custom, err := budgets.PeriodOfSeconds(86400)
	if err != nil {
		t.Fatal(err)
	}
	custom30, err := budgets.PeriodOfSeconds(2592000)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 23, 10, 0, 0, 123456789, time.UTC)
	daily := budgets.Key{UserPath: "/team", Period: budgets.Daily}
	customKey := budgets.Key{UserPath: "/team", Period: custom}
	monthly := budgets.Key{UserPath: "/team", Period: budgets.Monthly}
	custom30Key := budgets.Key{UserPath: "/team", Period: custom30}
	minutes := budgets.Key{UserPath: "/customers", Period: 600}
	root := budgets.Key{UserPath: "/", Period: budgets.Monthly}
	for _, b := range []budgets.Budget{
		{UserPath: "/team", Period: budgets.Daily, Amount: 1, CreatedAt: at, UpdatedAt: at},
		{UserPath: "/team", Period: custom, Amount: 0.1, PerChild: true, CreatedAt: at, UpdatedAt: at},
		{UserPath: "/team", Period: budgets.Daily, Amount: 2.5, CreatedAt: at, UpdatedAt: at.Add(time.Nanosecond)},
		{UserPath: "/team", Period: budgets.Monthly, Amount: 5, Source: budgets.SourceManual, CreatedAt: at, UpdatedAt: at},
		{UserPath: "/team", Period: custom30, Amount: 1, Source: budgets.SourceManual, CreatedAt: at, UpdatedAt: at},
		{UserPath: "/customers", Period: 600, Amount: 0, PerChild: true, Source: budgets.SourceManual, CreatedAt: at, UpdatedAt: at},
		{UserPath: "/", Period: budgets.Monthly, Amount: 100, Source: budgets.SourceManual, CreatedAt: at, UpdatedAt: at},
	} {
		if err := st.PutBudget(b); err != nil {
			t.Fatal(err)
		}
	}
	list, err := st.Budgets()
	if err != nil || len(list) != 6 {
		t.Fatalf("%+v %v", list, err)
	}
	got := map[budgets.Key]budgets.Budget{}
	for _, b := range list {
		got[b.Key()] = b
		if b.Source != budgets.SourceManual {
			t.Fatalf("source of %+v", b)
		}
	}
	if d := got[daily]; d.Amount != 2.5 || !d.UpdatedAt.Equal(at.Add(time.Nanosecond)) || !d.CreatedAt.Equal(at) || d.PerChild {
		t.Fatalf("daily %+v", d)
	}
	if c := got[customKey]; c.Amount != 0.1 || !c.PerChild {
		t.Fatalf("custom %+v", c)
	}
	if got[monthly].Amount != 5 || got[custom30Key].Amount != 1 || got[root].Amount != 100 {
		t.Fatalf("monthly, 30 days, root: %+v", got)
	}
	if m, ok := got[minutes]; !ok || m.Amount != 0 || !m.PerChild || !m.CreatedAt.Equal(at) {
		t.Fatalf("600 seconds %+v", m)
	}
	if err := st.PutResets(map[budgets.Key]time.Time{daily: at, customKey: at, custom30Key: at, {UserPath: "/cfg", Period: budgets.Hourly}: at}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutResets(map[budgets.Key]time.Time{customKey: at.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutResets(nil); err != nil {
		t.Fatal("no resets:", err)
	}
	if r, err := st.Resets(); err != nil || len(r) != 4 || !r[daily].Equal(at) || !r[custom30Key].Equal(at) {
		t.Fatalf("resets %v %v", r, err)
	} else if _, ok := r[monthly]; ok {
		t.Fatal("the reset of a 30-day budget marks the monthly one")
	}
	if err := st.DeleteBudget(daily); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteBudget(custom30Key); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteBudget(budgets.Key{UserPath: "/never", Period: budgets.Weekly}); err != nil {
		t.Fatal("deleting a missing budget:", err)
	}
	resets, err := st.Resets()
	if err != nil || len(resets) != 2 || !resets[customKey].Equal(at.Add(time.Second)) {
		t.Fatalf("resets %v %v", resets, err)
	}
	if _, ok := resets[daily]; ok {
		t.Fatal("the deleted budget's reset mark is still stored")
	}
	list, err = st.Budgets()
	if err != nil || len(list) != 4 {
		t.Fatalf("after delete: %+v %v", list, err)
	}
	for _, b := range list {
		if k := b.Key(); k == daily || k == custom30Key {
			t.Fatalf("deleted budget still stored: %+v", b)
		}
	}
	set := budgets.Settings{DailyResetHour: 23, WeeklyResetWeekday: 6, MonthlyResetDay: 28}
	for _, s := range []budgets.Settings{{DailyResetHour: 1}, {DailyResetHour: 6, WeeklyResetWeekday: 0, MonthlyResetDay: 31}, set, set} {
		if err := st.PutSettings(s); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := st.Settings(); err != nil || !ok || got != s {
			t.Fatalf("settings %+v %v %v, want %+v", got, ok, err, s)
		}
	}
}

// BudgetsSurviveRestart checks that what a budgets.Storage stored (a
// replaced budget, settings, resets) is what a restarted process reads.
// open returns the engine's storage as a newly started process sees it;
// each call ends the handle it returned before where the engine allows one
// at a time.
func BudgetsSurviveRestart(t *testing.T, open func() budgets.Storage) {
	t.Helper()
	st := open()
	at := time.Date(2026, 11, 23, 10, 0, 0, 123, time.UTC)
	team := budgets.Key{UserPath: "/team", Period: budgets.Daily}
	cfg := budgets.Key{UserPath: "/cfg", Period: budgets.Hourly}
	for _, b := range []budgets.Budget{
		{UserPath: "/team", Period: budgets.Daily, Amount: 1.25, Source: budgets.SourceManual, CreatedAt: at, UpdatedAt: at.Add(time.Hour)},
		{UserPath: "/customers", Period: 600, Amount: 0, PerChild: true, Source: budgets.SourceManual, CreatedAt: at, UpdatedAt: at},
		{UserPath: "/team", Period: budgets.Daily, Amount: 2.5, Source: budgets.SourceManual, CreatedAt: at, UpdatedAt: at.Add(2 * time.Hour)},
	} {
		if err := st.PutBudget(b); err != nil {
			t.Fatal(err)
		}
	}
	set := budgets.Settings{DailyResetHour: 6, WeeklyResetWeekday: 0, MonthlyResetDay: 31}
	if err := st.PutSettings(set); err != nil {
		t.Fatal(err)
	}
	if err := st.PutResets(map[budgets.Key]time.Time{team: at, cfg: at}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutResets(map[budgets.Key]time.Time{cfg: at.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}

	st = open()
	list, err := st.Budgets()
	if err != nil || len(list) != 2 {
		t.Fatalf("budgets after restart %+v %v", list, err)
	}
	got := map[budgets.Key]budgets.Budget{}
	for _, b := range list {
		got[b.Key()] = b
	}
	if b := got[team]; b.Amount != 2.5 || !b.UpdatedAt.Equal(at.Add(2*time.Hour)) || !b.CreatedAt.Equal(at) || b.Source != budgets.SourceManual {
		t.Fatalf("team after restart %+v", b)
	}
	if b := got[budgets.Key{UserPath: "/customers", Period: 600}]; !b.PerChild || b.Amount != 0 {
		t.Fatalf("customers after restart %+v", b)
	}
	if s, ok, err := st.Settings(); err != nil || !ok || s != set {
		t.Fatalf("settings after restart %+v %v %v", s, ok, err)
	}
	resets, err := st.Resets()
	if err != nil || len(resets) != 2 || !resets[team].Equal(at) || !resets[cfg].Equal(at.Add(time.Minute)) {
		t.Fatalf("resets after restart %v %v", resets, err)
	}
}

// BudgetsServiceSurvivesRestart runs a budgets service over the storage
// open returns (see BudgetsSurviveRestart) across a restart: manual
// budgets, settings and the reset of a configuration budget come back;
// configuration budgets are never stored.
func BudgetsServiceSurvivesRestart(t *testing.T, open func() budgets.Storage) {
	t.Helper()
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	cfg := budgets.Key{UserPath: "/cfg", Period: budgets.Daily}
	svc, err := budgets.New(budgets.Options{Storage: open(), Now: clock, QuotaTemplates: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.SetConfigBudgets([]budgets.Budget{{UserPath: "/cfg", Period: budgets.Daily, Amount: 3}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Put(budgets.Key{UserPath: "/customers", Period: budgets.Weekly}, 7, true); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ResetOne(cfg); err != nil {
		t.Fatal(err)
	}
	set := budgets.Settings{DailyResetHour: 1, WeeklyResetWeekday: 3, MonthlyResetDay: 15}
	if err := svc.PutSettings(set); err != nil {
		t.Fatal(err)
	}

	svc, err = budgets.New(budgets.Options{Storage: open(), Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Settings() != set {
		t.Fatalf("settings %+v", svc.Settings())
	}
	l := svc.List()
	if len(l) != 1 || l[0].UserPath != "/customers" || !l[0].PerChild || l[0].Amount != 7 {
		t.Fatalf("list %+v", l)
	}
	if err := svc.SetConfigBudgets([]budgets.Budget{{UserPath: "/cfg", Period: budgets.Daily, Amount: 3}}); err != nil {
		t.Fatal(err)
	}
	e, err := svc.Tracker().Entry(cfg, now)
	if err != nil || !e.LastResetAt.Equal(now) {
		t.Fatalf("config budget reset lost: %+v %v", e, err)
	}
}

// BudgetsClosed checks that a budgets.Storage whose engine close has
// ended answers reads and writes with an error matching want (the
// engine's own: store.ErrClosed for the embedded store,
// store.ErrUnavailable for a networked one).
func BudgetsClosed(t *testing.T, st budgets.Storage, close func() error, want error) {
	t.Helper()
	if err := close(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Budgets(); !errors.Is(err, want) {
		t.Fatalf("Budgets when closed: %v, want %v", err, want)
	}
	if err := st.PutBudget(budgets.Budget{UserPath: "/x", Period: budgets.Daily}); !errors.Is(err, want) {
		t.Fatalf("PutBudget when closed: %v, want %v", err, want)
	}
}
