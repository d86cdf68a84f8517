package pgstore

import (
	"testing"

	"github.com/modelgate/modelgate/internal/testkit/storetest"
)

// TestContracts runs the storage contracts every implementation shares.
func TestContracts(t *testing.T) {
	t.Run("keys", func(t *testing.T) {
		db, _ := newTestDB(t)
		k := NewKeys(db)
		defer k.Close()
		storetest.KeysBackend(t, k, func() error { return k.Flush(t.Context()) })
	})
	t.Run("rules", func(t *testing.T) {
		db, _ := newTestDB(t)
		storetest.RuleStore(t, NewRateLimitRules(db))
	})
	t.Run("budgets", func(t *testing.T) {
		db, _ := newTestDB(t)
		storetest.BudgetsStorage(t, NewBudgets(db))
	})
	t.Run("vmodels", func(t *testing.T) {
		db, _ := newTestDB(t)
		storetest.VirtualModelsStorage(t, NewVirtualModels(db))
	})
	t.Run("batches", func(t *testing.T) {
		db, _ := newTestDB(t)
		storetest.BatchesStorage(t, NewBatches(db))
	})
}
