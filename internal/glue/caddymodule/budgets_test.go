package caddymodule

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/platform/config"
)

// TestSeededBudgets: SET_BUDGET_* wins over YAML for the same budget, a
// malformed variable is named, and a template needs the entitlement.
func TestSeededBudgets(t *testing.T) {
	one, two := 1.0, 2.0
	a := &App{}
	a.effective.Budgets.UserPaths = []budgets.ConfigEntry{{UserPath: "/team", Daily: &one, Monthly: &two}}
	list, err := a.seededBudgets([]string{"SET_BUDGET_TEAM=daily=5", "OTHER=x"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[budgets.Key]float64{}
	for _, b := range list {
		got[b.Key()] = b.Amount
	}
	if len(got) != 2 || got[budgets.Key{UserPath: "/team", Period: budgets.Daily}] != 5 || got[budgets.Key{UserPath: "/team", Period: budgets.Monthly}] != 2 {
		t.Fatalf("merged %v", got)
	}
	if _, err := a.seededBudgets([]string{"SET_BUDGET_OPS=daily=lots"}); err == nil || !strings.Contains(err.Error(), "SET_BUDGET_OPS") {
		t.Fatalf("malformed: %v", err)
	}
	tmpl := []string{"SET_BUDGET_CUSTOMERS=daily=1,per_child=true"}
	if _, err := a.seededBudgets(tmpl); !errors.Is(err, budgets.ErrTemplatesNotEntitled) {
		t.Fatalf("not entitled: %v", err)
	}
	a.effective.Entitlements = []string{config.EntitlementQuotaTemplates}
	if _, err := a.seededBudgets(tmpl); err != nil {
		t.Fatal(err)
	}
}

// TestBudgetRef: GET /v1/usage has no budgets until a service is handed
// over, then the caller's.
func TestBudgetRef(t *testing.T) {
	var r budgetRef
	if r.Budgets(context.Background(), "/team") != nil {
		t.Fatal("budgets before Start")
	}
	s, err := budgets.New(budgets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(budgets.Key{UserPath: "/team", Period: budgets.Daily}, 1, false); err != nil {
		t.Fatal(err)
	}
	r.svc.Store(s)
	got := r.Budgets(context.Background(), "/team/app")
	if len(got) != 1 || got[0].(budgets.Entry).UserPath != "/team" || len(r.Budgets(context.Background(), "/other")) != 0 {
		t.Fatalf("budgets %v", got)
	}
}
