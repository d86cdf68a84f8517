package caddymodule

import (
	"errors"

	"github.com/caddyserver/caddy/v2"

	"github.com/modelgate/modelgate/internal/domain/batches"
	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/keys"
	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/storage/store"
	"github.com/modelgate/modelgate/internal/storage/store/boltstore"
	"github.com/modelgate/modelgate/internal/storage/store/pgstore"
)

// The shared state (keys, rate-limit rules, budgets, virtual models,
// batches) lives in PostgreSQL when the configuration names one (a.pg set
// by openBackends), else in the embedded store. The helpers below pick the
// implementation; local state (counters, cache) stays in the embedded
// store either way.

// keysPoolKey names the shared key service in keyServices: the DSN on
// PostgreSQL (apps on one database share it), the store path otherwise.
func (a *App) keysPoolKey() string {
	if a.pg != nil {
		return a.effective.Postgres
	}
	return a.storePath
}

// newKeyService opens the managed-key service over the configured
// storage. On PostgreSQL the pool holds a pgKeyService, which closes the
// backend's writer after the service.
func (a *App) newKeyService(st *store.Store) (caddy.Destructor, error) {
	opts := keys.Options{Logger: a.logger.Named("keys")}
	if a.pg == nil {
		return keys.Open(boltstore.NewKeys(st), opts)
	}
	b := pgstore.NewKeys(a.pg)
	svc, err := keys.Open(b, opts)
	if err != nil {
		_ = b.Close()
		return nil, err
	}
	return pgKeyService{svc: svc, backend: b}, nil
}

// keyServiceOf returns the service a keyServices value holds.
func keyServiceOf(v any) *keys.Service {
	if p, ok := v.(pgKeyService); ok {
		return p.svc
	}
	return v.(*keys.Service)
}

// pgKeyService is a key service over PostgreSQL with its backend. Its
// last holder's Destruct queues the pending last-used times (Service.Close)
// and then writes them (the backend's Close), before the pool closes.
type pgKeyService struct {
	svc     *keys.Service
	backend *pgstore.Keys
}

// Destruct implements caddy.Destructor.
func (p pgKeyService) Destruct() error { return errors.Join(p.svc.Close(), p.backend.Close()) }

// pgRuleStore is the rate-limit rule store on PostgreSQL; the caller
// uses it only when a.pg is set.
func (a *App) pgRuleStore() limits.RuleStore { return pgstore.NewRateLimitRules(a.pg) }

// budgetStorage is where manual budgets, settings and resets are kept.
func (a *App) budgetStorage(st *store.Store) budgets.Storage {
	if a.pg != nil {
		return pgstore.NewBudgets(a.pg)
	}
	return boltstore.NewBudgets(st)
}

// vmodelStorage is where virtual models and failover routes written
// through the admin API are kept.
func (a *App) vmodelStorage() vmodels.Storage {
	if a.pg != nil {
		return pgstore.NewVirtualModels(a.pg)
	}
	return boltstore.NewVirtualModels(a.store)
}

// batchStorage is where batch files, batches and results are kept.
func (a *App) batchStorage(st *store.Store) batches.Storage {
	if a.pg != nil {
		return pgstore.NewBatches(a.pg)
	}
	return boltstore.NewBatches(st)
}
