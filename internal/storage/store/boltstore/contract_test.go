package boltstore

import (
	"testing"

	"github.com/modelgate/modelgate/internal/testkit/storetest"
)

// TestContracts runs the storage contracts every implementation shares.
func TestContracts(t *testing.T) {
	t.Run("keys", func(t *testing.T) {
		st, _ := tempStore(t)
		storetest.KeysBackend(t, NewKeys(st), func() error { return st.Flush(t.Context()) })
	})
	t.Run("rules", func(t *testing.T) {
		st, _ := tempStore(t)
		storetest.RuleStore(t, NewRateLimits(st))
	})
	t.Run("budgets", func(t *testing.T) {
		st, _ := tempStore(t)
		storetest.BudgetsStorage(t, NewBudgets(st))
	})
	t.Run("vmodels", func(t *testing.T) {
		st, _ := tempStore(t)
		storetest.VirtualModelsStorage(t, NewVirtualModels(st))
	})
	t.Run("batches", func(t *testing.T) {
		st, _ := tempStore(t)
		storetest.BatchesStorage(t, NewBatches(st))
	})
}
