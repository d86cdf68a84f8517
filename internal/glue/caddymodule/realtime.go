package caddymodule

import "time"

// Admits implements proxy.BudgetChecker: true unless budgets are on and a
// spent one covers userPath.
func (b *budgetRef) Admits(userPath string) bool {
	s := b.svc.Load()
	if s == nil {
		return true
	}
	ok, _, _ := s.Check(userPath, time.Now())
	return ok
}
