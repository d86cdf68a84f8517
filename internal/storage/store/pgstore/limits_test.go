package pgstore

import (
	"sync"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/limits"
)

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
