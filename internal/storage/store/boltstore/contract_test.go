package boltstore

import (
	"path/filepath"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/batches"
	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/keys"
	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/storage/store"
	"github.com/modelgate/modelgate/internal/testkit/storetest"
)

// TestContracts runs the storage contracts every implementation shares.
func TestContracts(t *testing.T) {
	t.Run("keys", func(t *testing.T) {
		st, _ := tempStore(t)
		storetest.KeysBackend(t, NewKeys(st), func() error { return st.Flush(t.Context()) })
	})
	t.Run("keys restart", func(t *testing.T) {
		open := restarts(t)
		storetest.KeysServiceSurvivesRestart(t, func() keys.Backend { return NewKeys(open()) })
	})
	t.Run("keys delete drops queued", func(t *testing.T) {
		t.Skip("differs from pgstore: a PutLater queued in the store's writer lands after a later Delete of the entry, " +
			"so the deleted entry comes back (keys.Open deletes such orphan last-used entries)")
		st, _ := tempStore(t)
		storetest.KeysDeleteDropsQueued(t, NewKeys(st), func() error { return st.Flush(t.Context()) })
	})
	t.Run("rules", func(t *testing.T) {
		st, _ := tempStore(t)
		storetest.RuleStore(t, NewRateLimits(st))
	})
	t.Run("rules unreadable", func(t *testing.T) {
		st, _ := tempStore(t)
		storetest.RuleStoreSkipsUnreadable(t, NewRateLimits(st), func() string {
			if err := st.Update(func(tx *bbolt.Tx) error {
				return tx.Bucket([]byte(BucketRateLimitRules)).Put([]byte("junk"), []byte("{not json"))
			}); err != nil {
				t.Fatal(err)
			}
			return `"junk"`
		})
	})
	t.Run("counters", func(t *testing.T) {
		st, _ := tempStore(t)
		storetest.CounterStore(t, NewRateLimits(st))
	})
	t.Run("limits restart", func(t *testing.T) {
		open := restarts(t)
		storetest.LimitsEngineSurvivesRestart(t, func() (limits.RuleStore, limits.CounterStore) {
			rl := NewRateLimits(open())
			return rl, rl
		})
	})
	t.Run("budgets", func(t *testing.T) {
		st, _ := tempStore(t)
		storetest.BudgetsStorage(t, NewBudgets(st))
	})
	t.Run("budgets restart", func(t *testing.T) {
		open := restarts(t)
		storetest.BudgetsSurviveRestart(t, func() budgets.Storage { return NewBudgets(open()) })
	})
	t.Run("budgets service restart", func(t *testing.T) {
		open := restarts(t)
		storetest.BudgetsServiceSurvivesRestart(t, func() budgets.Storage { return NewBudgets(open()) })
	})
	t.Run("budgets closed", func(t *testing.T) {
		st, _ := tempStore(t)
		storetest.BudgetsClosed(t, NewBudgets(st), st.Close, store.ErrClosed)
	})
	t.Run("pricing", func(t *testing.T) {
		st, _ := tempStore(t)
		storetest.PricingStorage(t, NewPricingOverrides(st))
	})
	t.Run("vmodels", func(t *testing.T) {
		st, _ := tempStore(t)
		storetest.VirtualModelsStorage(t, NewVirtualModels(st))
	})
	t.Run("vmodels restart", func(t *testing.T) {
		open := restarts(t)
		storetest.VirtualModelsServiceSurvivesRestart(t, func() vmodels.Storage { return NewVirtualModels(open()) })
	})
	t.Run("batches", func(t *testing.T) {
		st, _ := tempStore(t)
		storetest.BatchesStorage(t, NewBatches(st))
	})
	t.Run("batches empty content", func(t *testing.T) {
		t.Skip("differs from pgstore: FileContent of a file stored empty answers nil (no error), pgstore an empty slice")
		st, _ := tempStore(t)
		storetest.BatchesEmptyContentNotNil(t, NewBatches(st))
	})
	t.Run("batches delete", func(t *testing.T) {
		st, _ := tempStore(t)
		storetest.BatchesDelete(t, NewBatches(st))
	})
	t.Run("batches files", func(t *testing.T) {
		st, _ := tempStore(t)
		storetest.BatchesFiles(t, NewBatches(st))
	})
	t.Run("batches restart", func(t *testing.T) {
		open := restarts(t)
		storetest.BatchesSurviveRestart(t, func() batches.Storage { return NewBatches(open()) })
	})
	t.Run("responses", func(t *testing.T) {
		st, _ := tempStore(t)
		storetest.ResponsesStorage(t, NewResponses(st))
	})
	t.Run("responses service", func(t *testing.T) {
		st, _ := tempStore(t)
		storetest.ResponsesService(t, NewResponses(st))
	})
	t.Run("session limits", func(t *testing.T) {
		st, _ := tempStore(t)
		storetest.SessionLimits(t, NewSessionLimits(st))
	})
}

// restarts returns a func that opens one store file as a restarted
// process does: each call closes the store it opened before (committing
// what is queued) and opens the file again. The last store is closed when
// t ends.
func restarts(t *testing.T) func() *store.Store {
	t.Helper()
	var st *store.Store
	path := filepath.Join(t.TempDir(), "mg.db")
	return func() *store.Store {
		t.Helper()
		if st != nil {
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
		}
		s := openStore(t, path)
		t.Cleanup(func() { s.Close() })
		st = s
		return s
	}
}
