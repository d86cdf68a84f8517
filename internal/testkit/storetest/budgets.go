package storetest

import (
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/budgets"
)

// BudgetsStorage checks a budgets.Storage: budgets replace by key and
// keep their times to the nanosecond, a named period and a custom one of
// the same length stay apart, a delete takes the reset mark with it,
// settings are absent until stored, resets replace per key.
func BudgetsStorage(t *testing.T, st budgets.Storage) {
	t.Helper()
	if l, err := st.Budgets(); err != nil || len(l) != 0 {
		t.Fatalf("%v %v", l, err)
	}
	if _, ok, err := st.Settings(); ok || err != nil {
		t.Fatalf("settings before any: %v %v", ok, err)
	}
	custom, err := budgets.PeriodOfSeconds(86400)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 23, 10, 0, 0, 123456789, time.UTC)
	daily := budgets.Key{UserPath: "/team", Period: budgets.Daily}
	customKey := budgets.Key{UserPath: "/team", Period: custom}
	for _, b := range []budgets.Budget{
		{UserPath: "/team", Period: budgets.Daily, Amount: 1, CreatedAt: at, UpdatedAt: at},
		{UserPath: "/team", Period: custom, Amount: 0.1, PerChild: true, CreatedAt: at, UpdatedAt: at},
		{UserPath: "/team", Period: budgets.Daily, Amount: 2.5, CreatedAt: at, UpdatedAt: at.Add(time.Nanosecond)},
	} {
		if err := st.PutBudget(b); err != nil {
			t.Fatal(err)
		}
	}
	list, err := st.Budgets()
	if err != nil || len(list) != 2 {
		t.Fatalf("%+v %v", list, err)
	}
	got := map[budgets.Key]budgets.Budget{}
	for _, b := range list {
		got[b.Key()] = b
	}
	if d := got[daily]; d.Amount != 2.5 || !d.UpdatedAt.Equal(at.Add(time.Nanosecond)) || !d.CreatedAt.Equal(at) || d.Source != budgets.SourceManual {
		t.Fatalf("daily %+v", d)
	}
	if c := got[customKey]; c.Amount != 0.1 || !c.PerChild {
		t.Fatalf("custom %+v", c)
	}
	if err := st.PutResets(map[budgets.Key]time.Time{daily: at, customKey: at, {UserPath: "/cfg", Period: budgets.Hourly}: at}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutResets(map[budgets.Key]time.Time{customKey: at.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteBudget(daily); err != nil {
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
	set := budgets.Settings{DailyResetHour: 23, WeeklyResetWeekday: 6, MonthlyResetDay: 28}
	for _, s := range []budgets.Settings{{DailyResetHour: 1}, set} {
		if err := st.PutSettings(s); err != nil {
			t.Fatal(err)
		}
	}
	if s, ok, err := st.Settings(); err != nil || !ok || s != set {
		t.Fatalf("settings %+v %v %v", s, ok, err)
	}
}
