package storetest

import (
	"testing"

	"github.com/modelgate/modelgate/internal/domain/limits"
)

// RuleStore checks a limits.RuleStore: a put and a delete in one replace,
// a replace in place, a delete of a missing rule, keys normalized (a
// custom period and a named one of the same length stay apart).
func RuleStore(t *testing.T, rs limits.RuleStore) {
	t.Helper()
	if rules, skipped, err := rs.LoadRules(); err != nil || len(rules) != 0 || len(skipped) != 0 {
		t.Fatalf("empty store: %v %v %v", rules, skipped, err)
	}
	hour := limits.Rule{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodHour, MaxRequests: 10, Source: limits.SourceManual}
	custom := limits.Rule{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodCustom, PeriodSeconds: 3600, MaxRequests: 2, Source: limits.SourceManual}
	model := limits.Rule{Scope: limits.ScopeModel, Subject: "gpt-4o", Period: limits.PeriodConcurrent, MaxRequests: 3, Source: limits.SourceManual}
	for _, r := range []limits.Rule{hour, custom, model} {
		if err := rs.ReplaceRule(&r, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Rename model's rule to another subject, and change hour in place.
	moved := model
	moved.Subject = "gpt-4o-mini"
	mk := model.Key()
	if err := rs.ReplaceRule(&moved, &mk); err != nil {
		t.Fatal(err)
	}
	hour.MaxRequests = 11
	hk := hour.Key()
	if err := rs.ReplaceRule(&hour, &hk); err != nil {
		t.Fatal(err)
	}
	if err := rs.ReplaceRule(nil, &limits.Key{Scope: limits.ScopeProvider, Subject: "none", Period: limits.PeriodDay}); err != nil {
		t.Fatal("deleting a missing rule:", err)
	}
	rules, skipped, err := rs.LoadRules()
	if err != nil || len(skipped) != 0 {
		t.Fatal(err, skipped)
	}
	got := map[limits.Key]limits.Rule{}
	for _, r := range rules {
		got[r.Key()] = r
	}
	if len(rules) != 3 || got[hour.Key()].MaxRequests != 11 || got[custom.Key()].MaxRequests != 2 ||
		got[moved.Key()].MaxRequests != 3 {
		t.Fatalf("rules %+v", rules)
	}
	if _, old := got[model.Key()]; old {
		t.Fatal("the renamed rule is still stored under its old key")
	}
	ck := custom.Key()
	if err := rs.ReplaceRule(nil, &ck); err != nil {
		t.Fatal(err)
	}
	if rules, _, _ := rs.LoadRules(); len(rules) != 2 {
		t.Fatalf("after delete: %+v", rules)
	}
}
