package boltstore

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// openBudgetsStore opens a store file in dir.
func openBudgetsStore(t *testing.T, dir string) *store.Store {
	t.Helper()
	s, err := store.Open(store.Options{Path: filepath.Join(dir, "budgets.db"), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestBudgetsStorageRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s := openBudgetsStore(t, dir)
	st := NewBudgets(s)

	// An empty store answers nothing, without error.
	if l, err := st.Budgets(); err != nil || len(l) != 0 {
		t.Fatalf("%v %v", l, err)
	}
	if _, ok, err := st.Settings(); ok || err != nil {
		t.Fatalf("settings %v %v", ok, err)
	}
	if r, err := st.Resets(); err != nil || len(r) != 0 {
		t.Fatalf("%v %v", r, err)
	}

	created := time.Date(2026, 11, 23, 10, 0, 0, 123, time.UTC)
	for _, b := range []budgets.Budget{
		{UserPath: "/", Period: budgets.Monthly, Amount: 100, Source: budgets.SourceManual, CreatedAt: created, UpdatedAt: created},
		{UserPath: "/team", Period: budgets.Daily, Amount: 1.25, Source: budgets.SourceManual, CreatedAt: created, UpdatedAt: created.Add(time.Hour)},
		{UserPath: "/customers", Period: 600, Amount: 0, PerChild: true, Source: budgets.SourceManual, CreatedAt: created, UpdatedAt: created},
		{UserPath: "/team", Period: budgets.Daily, Amount: 2.5, Source: budgets.SourceManual, CreatedAt: created, UpdatedAt: created.Add(2 * time.Hour)},
	} {
		if err := st.PutBudget(b); err != nil {
			t.Fatal(err)
		}
	}
	set := budgets.Settings{DailyResetHour: 6, WeeklyResetWeekday: 0, MonthlyResetDay: 31}
	if err := st.PutSettings(set); err != nil {
		t.Fatal(err)
	}
	r1 := created.Add(3 * time.Hour)
	if err := st.PutResets(map[budgets.Key]time.Time{{UserPath: "/team", Period: budgets.Daily}: r1, {UserPath: "/cfg", Period: budgets.Hourly}: r1}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutResets(map[budgets.Key]time.Time{{UserPath: "/cfg", Period: budgets.Hourly}: r1.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openBudgetsStore(t, dir)
	defer s.Close()
	st = NewBudgets(s)
	list, err := st.Budgets()
	if err != nil {
		t.Fatal(err)
	}
	got := map[budgets.Key]budgets.Budget{}
	for _, b := range list {
		got[b.Key()] = b
	}
	if len(list) != 3 || got[budgets.Key{UserPath: "/team", Period: budgets.Daily}].Amount != 2.5 ||
		!got[budgets.Key{UserPath: "/team", Period: budgets.Daily}].UpdatedAt.Equal(created.Add(2*time.Hour)) ||
		!got[budgets.Key{UserPath: "/customers", Period: 600}].PerChild || !got[budgets.Key{UserPath: "/", Period: budgets.Monthly}].CreatedAt.Equal(created) {
		t.Fatalf("budgets %+v", list)
	}
	for _, b := range list {
		if b.Source != budgets.SourceManual {
			t.Fatalf("source %+v", b)
		}
	}
	if s2, ok, err := st.Settings(); err != nil || !ok || s2 != set {
		t.Fatalf("settings %+v %v %v", s2, ok, err)
	}
	resets, err := st.Resets()
	if err != nil || len(resets) != 2 || !resets[budgets.Key{UserPath: "/cfg", Period: budgets.Hourly}].Equal(r1.Add(time.Minute)) {
		t.Fatalf("resets %v %v", resets, err)
	}

	if err := st.DeleteBudget(budgets.Key{UserPath: "/team", Period: budgets.Daily}); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteBudget(budgets.Key{UserPath: "/never", Period: budgets.Daily}); err != nil {
		t.Fatal(err)
	}
	list, _ = st.Budgets()
	resets, _ = st.Resets()
	if len(list) != 2 || len(resets) != 1 {
		t.Fatalf("after delete: %+v %v", list, resets)
	}

	// A closed store reports it.
	s.Close()
	if _, err := st.Budgets(); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("closed: %v", err)
	}
	if err := st.PutBudget(budgets.Budget{UserPath: "/x", Period: budgets.Daily}); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("closed: %v", err)
	}
}

// TestBudgetsServiceOverBolt: a budgets service over the bbolt storage
// keeps manual budgets, settings and resets across a restart; config
// budgets are never written.
func TestBudgetsServiceOverBolt(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s := openBudgetsStore(t, dir)
	svc, err := budgets.New(budgets.Options{Storage: NewBudgets(s), Now: clock, QuotaTemplates: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.SetConfigBudgets([]budgets.Budget{{UserPath: "/cfg", Period: budgets.Daily, Amount: 3}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Put(budgets.Key{UserPath: "/customers", Period: budgets.Weekly}, 7, true); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ResetOne(budgets.Key{UserPath: "/cfg", Period: budgets.Daily}); err != nil {
		t.Fatal(err)
	}
	set := budgets.Settings{DailyResetHour: 1, WeeklyResetWeekday: 3, MonthlyResetDay: 15}
	if err := svc.PutSettings(set); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = openBudgetsStore(t, dir)
	defer s.Close()
	svc, err = budgets.New(budgets.Options{Storage: NewBudgets(s), Now: clock})
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
	e, err := svc.Tracker().Entry(budgets.Key{UserPath: "/cfg", Period: budgets.Daily}, now)
	if err != nil || !e.LastResetAt.Equal(now) {
		t.Fatalf("config budget reset lost: %+v %v", e, err)
	}
}

// TestBudgetsStorageNamedAndCustomApart: a monthly budget and a custom
// budget of 2592000 seconds on the same path are stored, reset and
// deleted apart.
func TestBudgetsStorageNamedAndCustomApart(t *testing.T) {
	st := NewBudgets(openBudgetsStore(t, t.TempDir()))
	custom, err := budgets.PeriodOfSeconds(2592000)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	for _, b := range []budgets.Budget{
		{UserPath: "/team", Period: budgets.Monthly, Amount: 5, Source: budgets.SourceManual, CreatedAt: at, UpdatedAt: at},
		{UserPath: "/team", Period: custom, Amount: 1, Source: budgets.SourceManual, CreatedAt: at, UpdatedAt: at},
	} {
		if err := st.PutBudget(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.PutResets(map[budgets.Key]time.Time{{UserPath: "/team", Period: custom}: at}); err != nil {
		t.Fatal(err)
	}
	list, err := st.Budgets()
	if err != nil || len(list) != 2 {
		t.Fatalf("%+v %v", list, err)
	}
	got := map[budgets.Key]float64{}
	for _, b := range list {
		got[b.Key()] = b.Amount
	}
	if got[budgets.Key{UserPath: "/team", Period: budgets.Monthly}] != 5 || got[budgets.Key{UserPath: "/team", Period: custom}] != 1 {
		t.Fatalf("budgets %+v", got)
	}
	r, err := st.Resets()
	if _, monthly := r[budgets.Key{UserPath: "/team", Period: budgets.Monthly}]; err != nil || len(r) != 1 || monthly {
		t.Fatalf("resets %+v %v", r, err)
	}
	if err := st.DeleteBudget(budgets.Key{UserPath: "/team", Period: custom}); err != nil {
		t.Fatal(err)
	}
	if list, err := st.Budgets(); err != nil || len(list) != 1 || list[0].Period != budgets.Monthly {
		t.Fatalf("after delete %+v %v", list, err)
	}
}
