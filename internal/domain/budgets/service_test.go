package budgets

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"
)

// newTestService returns a service over st and src on clock c.
func newTestService(t *testing.T, st Storage, src SpendSource, c *clock, entitled bool) *Service {
	t.Helper()
	s, err := New(Options{Storage: st, Source: src, QuotaTemplates: entitled, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestServiceRestartKeepsSpend: spend is charged in memory, the records
// reach the usage store, and a new service over the same storage and
// source (a restart) refuses as the old one did, counting from the last
// reset.
func TestServiceRestartKeepsSpend(t *testing.T) {
	c := &clock{now: ts(t, "2026-11-23T10:00:00Z")}
	st, src := newMemStorage(), &fakeSource{}
	s := newTestService(t, st, src, c, true)
	if _, err := s.Put(Key{"/team", Daily}, 1, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(Key{"customers", Daily}, 1, true); err != nil {
		t.Fatal(err)
	}
	charge := func(path string, cost float64) {
		s.Charge(path, cost, c.Now())
		src.add(path, cost, c.Now())
	}
	charge("/team/app", 0.7)
	charge("/customers/a", 1)
	c.set(c.Now().Add(time.Minute))
	if _, err := s.ResetOne(Key{"/team", Daily}); err != nil {
		t.Fatal(err)
	}
	reset := c.Now()
	charge("/team", 0.6)
	c.set(c.Now().Add(time.Minute))
	mustServiceCheck(t, s, "/team", c.Now(), true)
	mustServiceCheck(t, s, "/customers/a", c.Now(), false)

	s2 := newTestService(t, st, src, c, true)
	mustServiceCheck(t, s2, "/team", c.Now(), true)
	mustServiceCheck(t, s2, "/customers/a", c.Now(), false)
	mustServiceCheck(t, s2, "/customers/b", c.Now(), true)
	s2.Charge("/team", 0.4, c.Now())
	mustServiceCheck(t, s2, "/team", c.Now(), false) // 0.6 + 0.4 since the reset
	e, err := s2.Tracker().Entry(Key{"/team", Daily}, c.Now())
	if err != nil {
		t.Fatal(err)
	}
	if !e.LastResetAt.Equal(reset) || e.Spent != 1 || e.Source != SourceManual {
		t.Fatalf("entry after restart %+v", e)
	}
}

func mustServiceCheck(t *testing.T, s *Service, path string, now time.Time, want bool) {
	t.Helper()
	if ok, _, which := s.Check(path, now); ok != want {
		t.Fatalf("Check(%s) = %v, want %v (%+v)", path, ok, want, which)
	}
}

func TestServicePut(t *testing.T) {
	c := &clock{now: ts(t, "2026-11-23T10:00:00Z")}
	st := newMemStorage()
	s := newTestService(t, st, nil, c, false)
	for _, tc := range []struct {
		k      Key
		amount float64
		child  bool
		want   error
	}{
		{Key{"/t", Daily}, -1, false, ErrInvalidBudget},
		{Key{"/t", Daily}, math.NaN(), false, ErrInvalidBudget},
		{Key{"/t", Daily}, math.Inf(1), false, ErrInvalidBudget},
		{Key{"/a//b", Daily}, 1, false, ErrInvalidBudget},
		{Key{"/a b", Daily}, 1, false, ErrInvalidBudget},
		{Key{"/t", 0}, 1, false, ErrInvalidBudget},
		{Key{"/t", MaxCustomSeconds + 1}, 1, false, ErrInvalidBudget},
		{Key{"/t", Daily}, 1, true, ErrTemplatesNotEntitled},
	} {
		if _, err := s.Put(tc.k, tc.amount, tc.child); !errors.Is(err, tc.want) {
			t.Errorf("Put(%v, %v, %v) = %v, want %v", tc.k, tc.amount, tc.child, err, tc.want)
		}
	}
	if len(s.List()) != 0 || len(st.budgets) != 0 {
		t.Fatal("a refused Put changed something")
	}

	e, err := s.Put(Key{"team/", Daily}, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	if e.UserPath != "/team" || e.Amount != 2 || !e.CreatedAt.Equal(c.Now()) || !e.UpdatedAt.Equal(c.Now()) || e.Source != SourceManual {
		t.Fatalf("entry %+v", e)
	}
	created := c.Now()
	s.Charge("/team", 1.5, c.Now())
	c.set(c.Now().Add(time.Hour))
	e, err = s.Put(Key{"/team", Daily}, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if e.Spent != 1.5 || e.Remaining != 0 || e.UsageRatio != 1.5 || !e.CreatedAt.Equal(created) || !e.UpdatedAt.Equal(c.Now()) {
		t.Fatalf("edited entry %+v", e)
	}
	if b := st.budgets[Key{"/team", Daily}]; b.Amount != 1 || !b.CreatedAt.Equal(created) {
		t.Fatalf("stored %+v", b)
	}
	mustServiceCheck(t, s, "/team/x", c.Now(), false)

	// A storage failure changes nothing.
	st.fail = true
	if _, err := s.Put(Key{"/team", Daily}, 100, false); !errors.Is(err, errStorage) {
		t.Fatalf("err %v", err)
	}
	if _, err := s.Put(Key{"/other", Hourly}, 100, false); !errors.Is(err, errStorage) {
		t.Fatalf("err %v", err)
	}
	if l := s.List(); len(l) != 1 || l[0].Amount != 1 {
		t.Fatalf("list %+v", l)
	}
}

func TestServiceConfigBudgets(t *testing.T) {
	c := &clock{now: ts(t, "2026-11-23T10:00:00Z")}
	st := newMemStorage()
	s := newTestService(t, st, nil, c, false)
	if _, err := s.Put(Key{"/team", Daily}, 50, false); err != nil {
		t.Fatal(err)
	}
	cfg := []Budget{
		{UserPath: "/team", Period: Daily, Amount: 1, Origin: "SET_BUDGET_TEAM"},
		{UserPath: "/x", Period: 600, Amount: 2, Origin: "budgets.user_paths[0] (line 3)"},
	}
	if err := s.SetConfigBudgets(cfg); err != nil {
		t.Fatal(err)
	}
	l := s.List()
	if len(l) != 2 || l[0].UserPath != "/team" || l[0].Source != SourceConfig || l[0].Amount != 1 || l[1].Period != "" || l[1].PeriodSeconds != 600 {
		t.Fatalf("list %+v", l)
	}
	created := l[0].CreatedAt
	for _, err := range []error{
		func() error { _, err := s.Put(Key{"/team", Daily}, 3, false); return err }(),
		s.Delete(Key{"/team", Daily}),
	} {
		if !errors.Is(err, ErrReadOnly) {
			t.Fatalf("write to a config budget: %v", err)
		}
	}
	if _, err := s.ResetOne(Key{"/team", Daily}); err != nil {
		t.Fatalf("reset of a config budget: %v", err)
	}
	if _, ok := st.resets[Key{"/team", Daily}]; !ok {
		t.Fatal("config budget reset not stored")
	}
	if len(st.budgets) != 1 || st.budgets[Key{"/team", Daily}].Amount != 50 {
		t.Fatalf("config budgets must never be stored: %+v", st.budgets)
	}

	// A reload keeps created_at; an amount change moves updated_at.
	c.set(c.Now().Add(time.Hour))
	cfg[1].Amount = 3
	if err := s.SetConfigBudgets(cfg); err != nil {
		t.Fatal(err)
	}
	l = s.List()
	if !l[0].CreatedAt.Equal(created) || !l[0].UpdatedAt.Equal(created) || !l[1].UpdatedAt.Equal(c.Now()) {
		t.Fatalf("reload %+v", l)
	}
	// Dropping the config budget brings the manual one back.
	if err := s.SetConfigBudgets(nil); err != nil {
		t.Fatal(err)
	}
	if l := s.List(); len(l) != 1 || l[0].Amount != 50 || l[0].Source != SourceManual {
		t.Fatalf("list %+v", l)
	}

	err := s.SetConfigBudgets([]Budget{{UserPath: "/c", Period: Daily, Amount: 1, PerChild: true, Origin: "SET_BUDGET_C"}})
	if !errors.Is(err, ErrTemplatesNotEntitled) || !contains(err.Error(), "SET_BUDGET_C") {
		t.Fatalf("not entitled: %v", err)
	}
	err = s.SetConfigBudgets([]Budget{
		{UserPath: "/c", Period: Daily, Amount: 1, Origin: "A"},
		{UserPath: "/c/", Period: Daily, Amount: 2, Origin: "B"},
	})
	if !errors.Is(err, ErrInvalidBudget) || !contains(err.Error(), "B: ") || !contains(err.Error(), "defined by A") {
		t.Fatalf("duplicate: %v", err)
	}
	err = s.SetConfigBudgets([]Budget{{UserPath: "/c", Period: Daily, Amount: -1, Origin: "SET_BUDGET_C"}})
	if !errors.Is(err, ErrInvalidBudget) || !contains(err.Error(), "SET_BUDGET_C: ") {
		t.Fatalf("negative: %v", err)
	}
	s.SetQuotaTemplates(true)
	if err := s.SetConfigBudgets([]Budget{{UserPath: "/c", Period: Daily, Amount: 1, PerChild: true}}); err != nil {
		t.Fatal(err)
	}
}

func TestServiceDeleteAndReset(t *testing.T) {
	c := &clock{now: ts(t, "2026-11-23T10:00:00Z")}
	st := newMemStorage()
	s := newTestService(t, st, nil, c, true)
	for _, k := range []Key{{"/a", Daily}, {"/b", Hourly}, {"/c", Weekly}} {
		if _, err := s.Put(k, 1, k.UserPath == "/c"); err != nil {
			t.Fatal(err)
		}
		s.Charge(k.UserPath+"/x", 2, c.Now())
	}
	for _, p := range []string{"/a", "/b", "/c/x"} {
		mustServiceCheck(t, s, p, c.Now(), false)
	}
	if err := s.Delete(Key{"/nope", Daily}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete unknown: %v", err)
	}
	if _, err := s.ResetOne(Key{"/nope", Daily}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("reset unknown: %v", err)
	}
	if _, err := s.ResetOne(Key{"/a", 0}); !errors.Is(err, ErrInvalidBudget) {
		t.Fatalf("reset bad key: %v", err)
	}
	e, err := s.ResetOne(Key{"/a", Daily})
	if err != nil {
		t.Fatal(err)
	}
	if e.Spent != 0 || e.HasUsage || !e.LastResetAt.Equal(c.Now()) {
		t.Fatalf("reset entry %+v", e)
	}
	mustServiceCheck(t, s, "/a", c.Now(), true)
	mustServiceCheck(t, s, "/b", c.Now(), false)

	if err := s.Delete(Key{"/b", Hourly}); err != nil {
		t.Fatal(err)
	}
	mustServiceCheck(t, s, "/b", c.Now(), true)
	if _, ok := st.budgets[Key{"/b", Hourly}]; ok {
		t.Fatal("deleted budget still stored")
	}

	st.fail = true
	if err := s.ResetAll(); !errors.Is(err, errStorage) {
		t.Fatalf("reset all: %v", err)
	}
	mustServiceCheck(t, s, "/c/x", c.Now(), false)
	st.fail = false
	c.set(c.Now().Add(time.Second))
	if err := s.ResetAll(); err != nil {
		t.Fatal(err)
	}
	mustServiceCheck(t, s, "/c/x", c.Now(), true)
	if len(st.resets) != 2 || !st.resets[Key{"/c", Weekly}].Equal(c.Now()) {
		t.Fatalf("resets %v", st.resets)
	}
}

// TestServiceSettings: new anchors are validated, stored and move the
// current period at once, with the spend of the new period read from the
// usage records.
func TestServiceSettings(t *testing.T) {
	c := &clock{now: ts(t, "2026-11-23T10:00:00Z")}
	st, src := newMemStorage(), &fakeSource{}
	src.add("/team", 0.75, ts(t, "2026-11-22T20:00:00Z"))
	src.add("/team", 0.125, ts(t, "2026-11-23T09:00:00Z"))
	s := newTestService(t, st, src, c, false)
	if _, err := s.Put(Key{"/team", Daily}, 0.8, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(Key{"/team", Hourly}, 0.8, false); err != nil {
		t.Fatal(err)
	}
	s.Charge("/team", 0.5, c.Now()) // not yet in the usage store
	if s.Settings() != DefaultSettings() {
		t.Fatal("default settings")
	}
	if err := s.PutSettings(Settings{DailyResetHour: 24, MonthlyResetDay: 1}); !errors.Is(err, ErrInvalidSettings) {
		t.Fatalf("invalid: %v", err)
	}
	set := Settings{DailyResetHour: 12, WeeklyResetWeekday: 0, MonthlyResetDay: 31}
	if err := s.PutSettings(set); err != nil {
		t.Fatal(err)
	}
	if s.Settings() != set || *st.settings != set {
		t.Fatal("settings not kept")
	}
	d, _ := s.Tracker().Entry(Key{"/team", Daily}, c.Now())
	h, _ := s.Tracker().Entry(Key{"/team", Hourly}, c.Now())
	if !d.PeriodStart.Equal(ts(t, "2026-11-22T12:00:00Z")) || d.Spent != 0.875 || d.PeriodLabel != "2026-11-22" {
		t.Fatalf("daily after the change %+v", d)
	}
	if h.Spent != 0.5 { // the hour did not move: its spend is kept
		t.Fatalf("hourly after the change %+v", h)
	}
	s2 := newTestService(t, st, src, c, false)
	if s2.Settings() != set {
		t.Fatal("settings not loaded")
	}
}

// TestServiceViews: the admin list, a template's children and a caller's
// budgets carry every budget-entry field.
func TestServiceViews(t *testing.T) {
	c := &clock{now: ts(t, "2026-11-23T06:00:00Z")}
	s := newTestService(t, nil, nil, c, true)
	for _, b := range []struct {
		k     Key
		amt   float64
		child bool
	}{{Key{"/", Monthly}, 100, false}, {Key{"/customers", Daily}, 4, true}, {Key{"/customers/a", Hourly}, 0, false}, {Key{"/other", 600}, 1, false}} {
		if _, err := s.Put(b.k, b.amt, b.child); err != nil {
			t.Fatal(err)
		}
	}
	s.Charge("/customers/a/app", 1, c.Now())
	s.Charge("/customers/b", 3, c.Now())

	l := s.List()
	if len(l) != 4 {
		t.Fatalf("list %+v", l)
	}
	root, tmpl, zero := l[0], l[1], l[2]
	if root.Spent != 4 || root.Remaining != 96 || root.UsageRatio != 0.04 || !root.HasUsage || root.PeriodLabel != "2026-11" ||
		root.Period != "monthly" || root.PeriodSeconds != 2592000 || root.EffectiveSubject != "/" || root.Scope != "user_path" || root.Subject != "/" {
		t.Fatalf("root %+v", root)
	}
	if tmpl.Spent != 0 || !tmpl.HasUsage || tmpl.Remaining != 4 || tmpl.UsageRatio != 0 || !tmpl.PerChild || tmpl.PeriodRatio != 0.25 {
		t.Fatalf("template %+v", tmpl)
	}
	if zero.UsageRatio != 1 || zero.Remaining != 0 || zero.Spent != 1 {
		t.Fatalf("zero amount %+v", zero)
	}

	kids, err := s.Children(Key{"/customers", Daily})
	if err != nil || len(kids) != 2 || kids[0].EffectiveSubject != "/customers/a" || kids[0].Spent != 1 || kids[1].Spent != 3 || kids[1].Remaining != 1 {
		t.Fatalf("children %+v %v", kids, err)
	}
	if k, err := s.Children(Key{"/", Monthly}); err != nil || k != nil {
		t.Fatalf("children of a plain budget %v %v", k, err)
	}
	if _, err := s.Children(Key{"/nope", Monthly}); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}

	mine := s.For("/customers/b/app")
	if len(mine) != 2 || mine[1].EffectiveSubject != "/customers/b" || mine[1].Spent != 3 || mine[1].UserPath != "/customers" {
		t.Fatalf("for /customers/b/app %+v", mine)
	}
	if got := s.For("/customers"); len(got) != 1 { // the template does not cover its own path
		t.Fatalf("for /customers %+v", got)
	}
	if got := s.For("/customers/a"); len(got) != 3 || got[2].Amount != 0 {
		t.Fatalf("for /customers/a %+v", got)
	}

	raw, err := json.Marshal(root)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"amount", "created_at", "effective_subject", "has_usage", "last_reset_at", "per_child", "period_end",
		"period_label", "period_ratio", "period_seconds", "period_start", "remaining", "scope", "source", "spent", "subject",
		"updated_at", "usage_ratio", "user_path"} {
		if _, ok := m[f]; !ok {
			t.Errorf("entry JSON lacks %s: %s", f, raw)
		}
	}
	if m["last_reset_at"] != "" || m["period_start"] != "2026-11-01T00:00:00Z" || m["created_at"] != "2026-11-23T06:00:00Z" {
		t.Fatalf("entry JSON %s", raw)
	}
	if _, err := s.ResetOne(Key{"/", Monthly}); err != nil {
		t.Fatal(err)
	}
	raw, _ = json.Marshal(s.List()[0])
	if !contains(string(raw), `"last_reset_at":"2026-11-23T06:00:00Z"`) {
		t.Fatalf("reset entry JSON %s", raw)
	}
}

// TestExceededError: 429 rate_limit_error, code budget_exceeded,
// Retry-After rounded up to whole seconds.
func TestExceededError(t *testing.T) {
	b := &Budget{UserPath: "/customers", Period: Daily, Amount: 5, PerChild: true}
	e := ExceededError(b, "/customers/a/app", 1500*time.Millisecond)
	if e.StatusCode != 429 || e.Type != "rate_limit_error" || e.Code == nil || *e.Code != "budget_exceeded" || e.RetryAfter != 2 {
		t.Fatalf("%+v", e)
	}
	if !contains(e.Message, "/customers/a") || !contains(e.Message, "daily") {
		t.Fatalf("message %q", e.Message)
	}
	if RetryAfterSeconds(0) != 1 || RetryAfterSeconds(time.Hour) != 3600 {
		t.Fatal("RetryAfterSeconds")
	}
}

// TestServiceMonthlyAndCustom30Days: a monthly budget and a custom
// 2592000-second budget on the same path are two budgets with their own
// amount, spend, reset and deletion.
func TestServiceMonthlyAndCustom30Days(t *testing.T) {
	c := &clock{now: ts(t, "2026-11-23T10:00:00Z")}
	st := newMemStorage()
	s := newTestService(t, st, nil, c, false)
	custom, err := PeriodOfSeconds(30 * 86400)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(Key{"/team", Monthly}, 5, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(Key{"/team", custom}, 1, false); err != nil {
		t.Fatal(err)
	}
	if l := s.List(); len(l) != 2 || len(st.budgets) != 2 {
		t.Fatalf("list %+v", l)
	}
	s.Charge("/team", 1, c.Now())
	mustServiceCheck(t, s, "/team", c.Now(), false) // the custom budget is spent
	if _, err := s.ResetOne(Key{"/team", custom}); err != nil {
		t.Fatal(err)
	}
	mustServiceCheck(t, s, "/team", c.Now(), true)
	m, err := s.Tracker().Entry(Key{"/team", Monthly}, c.Now())
	if err != nil || m.Spent != 1 || m.Period != "monthly" || m.PeriodSeconds != 2592000 {
		t.Fatalf("monthly entry %+v %v", m, err)
	}
	if err := s.Delete(Key{"/team", custom}); err != nil {
		t.Fatal(err)
	}
	if l := s.List(); len(l) != 1 || l[0].Period != "monthly" || l[0].Amount != 5 {
		t.Fatalf("after delete %+v", l)
	}
}

// TestEntryShowsMoneyRounded: spend adds up in whole billionths of a
// dollar (catalog.Nanos), so 0.35 + 0.7 is exactly 1.05, not
// float64's 1.0499999999999998, and the entry's JSON shows it.
func TestEntryShowsMoneyRounded(t *testing.T) {
	c := &clock{now: ts(t, "2026-11-23T10:00:00Z")}
	s := newTestService(t, newMemStorage(), &fakeSource{}, c, false)
	if _, err := s.Put(Key{"/team", Daily}, 2.1, false); err != nil {
		t.Fatal(err)
	}
	s.Charge("/team/a", 0.35, c.Now())
	s.Charge("/team/b", 0.7, c.Now())
	e := s.List()[0]
	if x, y := 0.35, 0.7; x+y == 1.05 {
		t.Fatal("the test needs a spend with float noise")
	}
	if float64(e.Spent) != 1.05 {
		t.Fatalf("spent %v, want exactly 1.05", e.Spent)
	}
	raw, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if m["spent"] != 1.05 || m["remaining"] != 1.05 || m["amount"] != 2.1 {
		t.Fatalf("entry JSON %s", raw)
	}
	for _, v := range s.For("/team/a") {
		if raw, _ := json.Marshal(v); !contains(string(raw), `"spent":1.05,`) {
			t.Fatalf("caller entry JSON %s", raw)
		}
	}
}
