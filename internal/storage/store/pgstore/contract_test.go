package pgstore

import (
	"testing"

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
		db, _ := newTestDB(t)
		k := NewKeys(db)
		defer k.Close()
		storetest.KeysBackend(t, k, func() error { return k.Flush(t.Context()) })
	})
	t.Run("keys restart", func(t *testing.T) {
		open := restarts(t)
		var k *Keys
		defer func() { _ = k.Close() }()
		storetest.KeysServiceSurvivesRestart(t, func() keys.Backend {
			if k != nil {
				if err := k.Close(); err != nil {
					t.Fatal(err)
				}
			}
			k = NewKeys(open())
			return k
		})
	})
	t.Run("keys delete drops queued", func(t *testing.T) {
		db, _ := newTestDB(t)
		k := NewKeys(db)
		defer k.Close()
		storetest.KeysDeleteDropsQueued(t, k, func() error { return k.Flush(t.Context()) })
	})
	t.Run("rules", func(t *testing.T) {
		db, _ := newTestDB(t)
		storetest.RuleStore(t, NewRateLimitRules(db))
	})
	t.Run("rules unreadable", func(t *testing.T) {
		db, _ := newTestDB(t)
		storetest.RuleStoreSkipsUnreadable(t, NewRateLimitRules(db), func() string {
			if _, err := db.Pool.Exec(t.Context(), `INSERT INTO mg_rate_limit_rules (scope, period, subject, rule)
				VALUES ('junk', 'minute', '/x', '{"max_requests":"many"}')`); err != nil {
				t.Fatal(err)
			}
			return "junk minute /x"
		})
	})
	// PostgreSQL keeps no counters (they stay in the process, or Redis).
	t.Run("limits restart", func(t *testing.T) {
		open := restarts(t)
		storetest.LimitsEngineSurvivesRestart(t, func() (limits.RuleStore, limits.CounterStore) {
			return NewRateLimitRules(open()), nil
		})
	})
	t.Run("budgets", func(t *testing.T) {
		db, _ := newTestDB(t)
		storetest.BudgetsStorage(t, NewBudgets(db))
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
		db, _ := newTestDB(t)
		storetest.BudgetsClosed(t, NewBudgets(db), db.Destruct, store.ErrUnavailable)
	})
	t.Run("pricing", func(t *testing.T) {
		db, _ := newTestDB(t)
		storetest.PricingStorage(t, NewPricingOverrides(db))
	})
	t.Run("vmodels", func(t *testing.T) {
		db, _ := newTestDB(t)
		storetest.VirtualModelsStorage(t, NewVirtualModels(db))
	})
	t.Run("vmodels restart", func(t *testing.T) {
		open := restarts(t)
		storetest.VirtualModelsServiceSurvivesRestart(t, func() vmodels.Storage { return NewVirtualModels(open()) })
	})
	t.Run("batches", func(t *testing.T) {
		db, _ := newTestDB(t)
		storetest.BatchesStorage(t, NewBatches(db))
	})
	t.Run("batches empty content", func(t *testing.T) {
		db, _ := newTestDB(t)
		storetest.BatchesEmptyContentNotNil(t, NewBatches(db))
	})
	t.Run("batches delete", func(t *testing.T) {
		db, _ := newTestDB(t)
		storetest.BatchesDelete(t, NewBatches(db))
	})
	t.Run("batches files", func(t *testing.T) {
		db, _ := newTestDB(t)
		storetest.BatchesFiles(t, NewBatches(db))
	})
	t.Run("batches restart", func(t *testing.T) {
		open := restarts(t)
		storetest.BatchesSurviveRestart(t, func() batches.Storage { return NewBatches(open()) })
	})
	t.Run("responses", func(t *testing.T) {
		db, _ := newTestDB(t)
		storetest.ResponsesStorage(t, NewResponses(db))
	})
	t.Run("responses service", func(t *testing.T) {
		db, _ := newTestDB(t)
		storetest.ResponsesService(t, NewResponses(db))
	})
	t.Run("session limits", func(t *testing.T) {
		db, _ := newTestDB(t)
		storetest.SessionLimits(t, NewSessionLimits(db))
	})
}

// restarts returns a func that opens one database as a newly started
// process does: the first call creates (and migrates) it, each later call
// opens another pool on it. Pools are closed when t ends.
func restarts(t *testing.T) func() *DB {
	t.Helper()
	var dsn string
	return func() *DB {
		t.Helper()
		if dsn == "" {
			db, d := newTestDB(t)
			dsn = d
			return db
		}
		return openTestDB(t, dsn)
	}
}
