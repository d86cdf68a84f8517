package budgets

import (
	"errors"
	"testing"
	"time"
)

// readFailing is a Storage whose reads fail.
type readFailing struct{ *memStorage }

func (readFailing) Budgets() ([]Budget, error) { return nil, errStorage }

func TestReloadTakesInBudgetsWrittenElsewhere(t *testing.T) {
	c := &clock{now: ts(t, "2026-11-23T10:00:00Z")}
	st, src := newMemStorage(), &fakeSource{}
	one := newTestService(t, st, src, c, true)
	two := newTestService(t, st, src, c, true)
	src.add("/team/app", 0.8, c.Now())

	if _, err := one.Put(Key{"/team", Daily}, 1, false); err != nil {
		t.Fatal(err)
	}
	if err := two.Reload(); err != nil {
		t.Fatal(err)
	}
	// The new budget starts from the spend of the usage records.
	two.Charge("/team/app", 0.3, c.Now())
	mustServiceCheck(t, two, "/team/app", c.Now(), false)

	// A lowered amount elsewhere is enforced here, with the spend kept.
	if _, err := one.Put(Key{"/team", Daily}, 5, false); err != nil {
		t.Fatal(err)
	}
	if err := two.Reload(); err != nil {
		t.Fatal(err)
	}
	mustServiceCheck(t, two, "/team/app", c.Now(), true)
	if got := spentOf(t, two.Tracker(), Key{"/team", Daily}, "/team", c.Now()); got < 1.09 || got > 1.11 {
		t.Fatalf("spend %v after an amount change, want 1.1 kept", got)
	}

	// A reset elsewhere clears the spend here.
	c.set(c.Now().Add(time.Minute))
	if _, err := one.ResetOne(Key{"/team", Daily}); err != nil {
		t.Fatal(err)
	}
	if err := two.Reload(); err != nil {
		t.Fatal(err)
	}
	if got := spentOf(t, two.Tracker(), Key{"/team", Daily}, "/team", c.Now()); got != 0 {
		t.Fatalf("spend %v after a reset elsewhere, want 0", got)
	}

	// Settings elsewhere take effect here.
	set := Settings{DailyResetHour: 6, WeeklyResetWeekday: 0, MonthlyResetDay: 15}
	if err := one.PutSettings(set); err != nil {
		t.Fatal(err)
	}
	if err := two.Reload(); err != nil {
		t.Fatal(err)
	}
	if two.Settings() != set || two.Tracker().Settings() != set {
		t.Fatalf("settings %+v", two.Settings())
	}

	// A deletion elsewhere lifts the budget here.
	if err := one.Delete(Key{"/team", Daily}); err != nil {
		t.Fatal(err)
	}
	if err := two.Reload(); err != nil {
		t.Fatal(err)
	}
	if len(two.List()) != 0 {
		t.Fatalf("budgets %+v after a deletion elsewhere", two.List())
	}
}

func TestReloadKeepsConfigBudgetsAndSpendWhenNothingChanged(t *testing.T) {
	c := &clock{now: ts(t, "2026-11-23T10:00:00Z")}
	st := newMemStorage()
	s := newTestService(t, st, nil, c, true)
	if err := s.SetConfigBudgets([]Budget{{UserPath: "/cfg", Period: Daily, Amount: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(Key{"/team", Daily}, 1, false); err != nil {
		t.Fatal(err)
	}
	s.Charge("/team", 0.5, c.Now())
	s.Charge("/cfg", 0.25, c.Now())
	before := s.Tracker().snap.Load()
	for range 3 {
		if err := s.Reload(); err != nil {
			t.Fatal(err)
		}
	}
	if s.Tracker().snap.Load() != before {
		t.Fatal("a reload with nothing changed replaced the tracker's budgets")
	}
	if got := spentOf(t, s.Tracker(), Key{"/team", Daily}, "/team", c.Now()); got != 0.5 {
		t.Fatalf("spend %v", got)
	}
	if got := spentOf(t, s.Tracker(), Key{"/cfg", Daily}, "/cfg", c.Now()); got != 0.25 {
		t.Fatalf("config budget spend %v", got)
	}
}

func TestReloadFailureChangesNothing(t *testing.T) {
	c := &clock{now: ts(t, "2026-11-23T10:00:00Z")}
	st := newMemStorage()
	s := newTestService(t, st, nil, c, true)
	if _, err := s.Put(Key{"/team", Daily}, 1, false); err != nil {
		t.Fatal(err)
	}
	s.st = readFailing{st}
	if err := s.Reload(); !errors.Is(err, errStorage) {
		t.Fatalf("reload error %v", err)
	}
	if len(s.List()) != 1 {
		t.Fatal("a failed reload dropped a budget")
	}
	mem := newTestService(t, nil, nil, c, true)
	if err := mem.Reload(); err != nil {
		t.Fatal(err)
	}
}
