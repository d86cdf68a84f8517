package budgets

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// decodeYAML decodes doc strictly, as the config file is, into the
// budgets section's list.
func decodeYAML(t *testing.T, doc string) ([]ConfigEntry, error) {
	t.Helper()
	var v struct {
		UserPaths []ConfigEntry `yaml:"user_paths"`
	}
	dec := yaml.NewDecoder(bytes.NewReader([]byte(doc)))
	dec.KnownFields(true)
	err := dec.Decode(&v)
	return v.UserPaths, err
}

func TestConfigEntryYAML(t *testing.T) {
	entries, err := decodeYAML(t, `user_paths:
  - {user_path: /team, daily: 10, monthly: 200}
  - user_path: /customers
    period: daily
    amount: 5
    per_child: true
  - {user_path: /x, period_seconds: 600, amount: 1}
  - {user_path: /y, period: 900, amount: 0}
`)
	if err != nil {
		t.Fatal(err)
	}
	if entries[0].Line != 2 || entries[1].Line != 3 || entries[2].Line != 7 {
		t.Fatalf("lines %d %d %d", entries[0].Line, entries[1].Line, entries[2].Line)
	}
	list, err := FromConfig(entries)
	if err != nil {
		t.Fatal(err)
	}
	want := []Budget{
		{UserPath: "/team", Period: Daily, Amount: 10},
		{UserPath: "/team", Period: Monthly, Amount: 200},
		{UserPath: "/customers", Period: Daily, Amount: 5, PerChild: true},
		{UserPath: "/x", Period: 600, Amount: 1},
		{UserPath: "/y", Period: 900, Amount: 0},
	}
	if len(list) != len(want) {
		t.Fatalf("budgets %+v", list)
	}
	for i, b := range list {
		if b.UserPath != want[i].UserPath || b.Period != want[i].Period || b.Amount != want[i].Amount ||
			b.PerChild != want[i].PerChild || b.Source != SourceConfig {
			t.Errorf("[%d] = %+v, want %+v", i, b, want[i])
		}
	}
	if list[2].Origin != "budgets.user_paths[1] (line 3)" {
		t.Errorf("origin %q", list[2].Origin)
	}
	if err := CheckEntitlement(list, false); !errors.Is(err, ErrTemplatesNotEntitled) || !strings.Contains(err.Error(), "budgets.user_paths[1] (line 3)") {
		t.Errorf("entitlement: %v", err)
	}
	if err := CheckEntitlement(list, true); err != nil {
		t.Error(err)
	}
	// An empty entry decodes (validation comes later) and a missing list
	// is fine.
	if e, err := decodeYAML(t, "user_paths: [{}]"); err != nil || len(e) != 1 {
		t.Fatalf("%v %v", e, err)
	}
}

func TestConfigEntryYAMLErrors(t *testing.T) {
	for doc, want := range map[string]string{
		"user_paths:\n  - {user_path: /a, daily: 1, dayly: 2}": "line 2: field dayly not found in type budgets.ConfigEntry",
		"user_paths:\n  - /a":                                                    "line 2: a budgets.user_paths entry must be a mapping",
		"user_paths:\n  - {user_path: /a, daily: ten}":                           "line 2",
		"base: &b {daily: 1, oops: 2}\nuser_paths:\n  - {<<: *b, user_path: /a}": "field oops not found",
	} {
		_, err := decodeYAML(t, doc)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", doc, err, want)
		}
	}
}

func TestFromConfigErrors(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		entry ConfigEntry
		want  string
	}{
		{ConfigEntry{Daily: f(1), Line: 4}, "budgets.user_paths[0] (line 4): invalid budget: user_path: missing"},
		{ConfigEntry{UserPath: "/a"}, "(/a): invalid budget: no budget"},
		{ConfigEntry{UserPath: "/a", Daily: f(-1)}, "daily: the amount must be a finite number of at least 0"},
		{ConfigEntry{UserPath: "/a", Amount: f(1)}, "amount: needs period"},
		{ConfigEntry{UserPath: "/a", Period: "daily"}, "amount: missing"},
		{ConfigEntry{UserPath: "/a", Period: "yearly", Amount: f(1)}, "period: invalid budget: period \"yearly\""},
		{ConfigEntry{UserPath: "/a", PeriodSeconds: -5, Amount: f(1)}, "period_seconds: invalid budget"},
		{ConfigEntry{UserPath: "/a", Period: "daily", PeriodSeconds: 60, Amount: f(1)}, "set either period or period_seconds"},
		{ConfigEntry{UserPath: "/a", Daily: f(1), Period: "daily", Amount: f(2)}, "amount: the daily budget is also set by daily"},
		{ConfigEntry{UserPath: "/a", Daily: f(1), Period: "daily", Amount: f(2)}, "also set by daily"},
		{ConfigEntry{UserPath: "/a//b", Daily: f(1)}, "user_path: user path has an empty segment"},
	} {
		_, err := FromConfig([]ConfigEntry{tc.entry})
		if err == nil || !errors.Is(err, ErrInvalidBudget) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.entry, err, tc.want)
		}
		if tc.entry.Validate() == nil {
			t.Errorf("%+v: Validate accepted", tc.entry)
		}
	}
	_, err := FromConfig([]ConfigEntry{{UserPath: "/a", Daily: f(1)}, {UserPath: "a/", Period: "daily", Amount: f(2), Line: 9}})
	if err == nil || !strings.Contains(err.Error(), "budgets.user_paths[1] (line 9): invalid budget: /a daily is also defined by budgets.user_paths[0]") {
		t.Fatalf("duplicate: %v", err)
	}
}

func TestFromEnv(t *testing.T) {
	list, err := FromEnv([]string{
		"PATH=/usr/bin",
		"SET_BUDGET_TEAM=daily=10,monthly=200",
		"SET_BUDGET_CUSTOMERS=daily=5 per_child=true",
		"SET_BUDGET_=hourly=1",
		`SET_BUDGET_TEAM__ALPHA_ONE=[{"period_seconds":600,"amount":1},{"period":"weekly","amount":0}]`,
		"SET_BUDGET_BLANK=  ",
		"SET_RATE_LIMIT_TEAM=rpm=5",
		"SET_BUDGETS_X=daily=1",
	})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		path   string
		p      Period
		amount float64
		child  bool
		origin string
	}
	want := []row{
		{"/", Hourly, 1, false, "SET_BUDGET_"},
		{"/customers", Daily, 5, true, "SET_BUDGET_CUSTOMERS"},
		{"/team", Daily, 10, false, "SET_BUDGET_TEAM"},
		{"/team", Monthly, 200, false, "SET_BUDGET_TEAM"},
		{"/team/alpha_one", 600, 1, false, "SET_BUDGET_TEAM__ALPHA_ONE"},
		{"/team/alpha_one", Weekly, 0, false, "SET_BUDGET_TEAM__ALPHA_ONE"},
	}
	if len(list) != len(want) {
		t.Fatalf("budgets %+v", list)
	}
	for i, b := range list {
		got := row{b.UserPath, b.Period, b.Amount, b.PerChild, b.Origin}
		if got != want[i] || b.Source != SourceConfig {
			t.Errorf("[%d] = %+v, want %+v", i, got, want[i])
		}
	}
	if err := CheckEntitlement(list, false); err == nil || !strings.HasPrefix(err.Error(), "SET_BUDGET_CUSTOMERS: /customers daily: per_child") {
		t.Fatalf("entitlement: %v", err)
	}
}

func TestFromEnvErrors(t *testing.T) {
	for kv, want := range map[string]string{
		"SET_BUDGET_TEAM=daily=-1":                                    "SET_BUDGET_TEAM: invalid budget: daily: the amount must be",
		"SET_BUDGET_TEAM=daily=ten":                                   `SET_BUDGET_TEAM: invalid budget: daily: "ten" is not a number`,
		"SET_BUDGET_TEAM=daily=inf":                                   "finite",
		"SET_BUDGET_TEAM=daily=NaN":                                   "finite",
		"SET_BUDGET_TEAM=yearly=5":                                    `unknown name "yearly"`,
		"SET_BUDGET_TEAM=daily":                                       `"daily" is not name=value`,
		"SET_BUDGET_TEAM=daily=1,daily=2":                             "daily is set twice",
		"SET_BUDGET_TEAM=daily=1,per_child=maybe":                     "per_child",
		"SET_BUDGET_TEAM=per_child=true":                              "no budget",
		"SET_BUDGET_TEAM____X=daily=1":                                "SET_BUDGET_TEAM____X: invalid budget: empty user-path segment",
		`SET_BUDGET_TEAM=[{"period":"daily"}]`:                        "SET_BUDGET_TEAM: [0]: invalid budget: amount: missing",
		`SET_BUDGET_TEAM=[{"period":"daily","amount":1,"x":1}]`:       `unknown field "x"`,
		`SET_BUDGET_TEAM=[{"user_path":"/a","daily":1}]`:              "user_path: not allowed",
		`SET_BUDGET_TEAM=[]`:                                          "sets no budget",
		`SET_BUDGET_TEAM=[{"daily":1}] x`:                             "after the array",
		`SET_BUDGET_TEAM={"daily":1}`:                                 "must be an array",
		`SET_BUDGET_TEAM=[{"daily":1},{"period":"daily","amount":2}]`: "/team daily is also set by SET_BUDGET_TEAM",
	} {
		_, err := FromEnv([]string{kv})
		if err == nil || !errors.Is(err, ErrInvalidBudget) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", kv, err, want)
		}
	}
	_, err := FromEnv([]string{"SET_BUDGET_TEAM=daily=1", "SET_BUDGET_team=daily=2"})
	if err == nil || !strings.Contains(err.Error(), "SET_BUDGET_team: invalid budget: /team daily is also set by SET_BUDGET_TEAM") {
		t.Fatalf("duplicate across variables: %v", err)
	}
}

func TestMerge(t *testing.T) {
	env := []Budget{{UserPath: "/team", Period: Daily, Amount: 1, Origin: "SET_BUDGET_TEAM"}}
	yml := []Budget{{UserPath: "/team", Period: Daily, Amount: 9}, {UserPath: "/team", Period: Monthly, Amount: 20}}
	got := Merge(env, yml)
	if len(got) != 2 || got[0].Amount != 1 || got[1].Period != Monthly {
		t.Fatalf("%+v", got)
	}
}
