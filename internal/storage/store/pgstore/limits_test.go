package pgstore

import (
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/limits"
)

// TestRateLimitRules: rules round-trip in their JSON form, a replace is
// atomic, deleting a missing rule is fine, and an unreadable row is
// skipped with a reason naming it.
func TestRateLimitRules(t *testing.T) {
	db, _ := newTestDB(t)
	rs := NewRateLimitRules(db)
	if rules, skipped, err := rs.LoadRules(); err != nil || len(rules) != 0 || len(skipped) != 0 {
		t.Fatalf("empty store: %v %v %v", rules, skipped, err)
	}
	a := limits.Rule{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodHour, MaxRequests: 10, MaxTokens: 99, Source: limits.SourceManual}
	b := limits.Rule{Scope: limits.ScopeModel, Subject: "gpt", PeriodSeconds: 30, MaxRequests: 1, Source: limits.SourceManual}
	if err := rs.ReplaceRule(&a, nil); err != nil {
		t.Fatal(err)
	}
	ak := a.Key()
	if err := rs.ReplaceRule(&b, &ak); err != nil {
		t.Fatal(err)
	}
	if err := rs.ReplaceRule(nil, &limits.Key{Scope: limits.ScopeProvider, Subject: "none", Period: limits.PeriodDay}); err != nil {
		t.Fatal("deleting a missing rule:", err)
	}
	if _, err := db.Pool.Exec(t.Context(), `INSERT INTO mg_rate_limit_rules (scope, period, subject, rule)
		VALUES ('junk', 'minute', '/x', '{"max_requests":"many"}')`); err != nil {
		t.Fatal(err)
	}
	rules, skipped, err := rs.LoadRules()
	if err != nil || !reflect.DeepEqual(rules, []limits.Rule{b}) {
		t.Fatalf("rules %+v, %v; want only %+v", rules, err, b)
	}
	if len(skipped) != 1 || !strings.Contains(skipped[0].Error(), `junk minute /x`) {
		t.Fatalf("skipped %v", skipped)
	}
	// Replacing a rule with itself updates it in place.
	b.MaxRequests = 5
	bk := b.Key()
	if err := rs.ReplaceRule(&b, &bk); err != nil {
		t.Fatal(err)
	}
	if rules, _, _ := rs.LoadRules(); len(rules) != 1 || rules[0].MaxRequests != 5 {
		t.Fatalf("after an in-place replace: %+v", rules)
	}
}

// TestRateLimitRulesConcurrent: two processes upserting the same rules
// at once never fail and leave one row per rule.
func TestRateLimitRulesConcurrent(t *testing.T) {
	db, dsn := newTestDB(t)
	stores := []RateLimitRules{NewRateLimitRules(db), NewRateLimitRules(openTestDB(t, dsn))}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for _, rs := range stores {
		for g := 0; g < 3; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 10; i++ {
					r := limits.Rule{Scope: limits.ScopeUserPath, Subject: "/shared", Period: limits.PeriodMinute, MaxRequests: int64(i + 1), Source: limits.SourceManual}
					if err := rs.ReplaceRule(&r, nil); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if rules, _, err := stores[1].LoadRules(); err != nil || len(rules) != 1 {
		t.Fatalf("%+v %v", rules, err)
	}
}

// TestEngineOnPostgres: the rate-limit engine keeps its manual rules in
// PostgreSQL (counters stay local); a restarted engine, or another
// process's, loads them.
func TestEngineOnPostgres(t *testing.T) {
	db, dsn := newTestDB(t)
	open := func(db *DB) *limits.Engine {
		e, err := limits.New(limits.Options{Rules: NewRateLimitRules(db), QuotaTemplates: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.SetConfigRules(nil); err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := open(db)
	hourly := limits.Rule{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodHour, MaxRequests: 5}
	tmpl := limits.Rule{Scope: limits.ScopeUserPath, Subject: "/customers", PeriodSeconds: 600, MaxRequests: 2, PerChild: true}
	for _, r := range []limits.Rule{hourly, tmpl} {
		if err := e.Upsert(r, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e2 := open(openTestDB(t, dsn))
	defer e2.Close()
	if got := e2.Rules(); len(got) != 2 {
		t.Fatalf("rules after restart: %+v", got)
	}
}
