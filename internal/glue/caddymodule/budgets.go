package caddymodule

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/budgets"
)

// budgetServices shares one budgets service per store path across config
// loads, like limiters: old and new config charge the same spend, so a
// reload neither resets nor doubles any budget.
var budgetServices = caddy.NewUsagePool()

// budgetSweepEvery is how often template children without spend in their
// current period are forgotten.
const budgetSweepEvery = 10 * time.Minute

// sharedBudgets makes a budgets service a caddy.Destructor; the last
// holder stops its sweeper.
type sharedBudgets struct {
	svc  *budgets.Service
	stop chan struct{}
	once *sync.Once
}

// Destruct stops the periodic sweep.
func (s sharedBudgets) Destruct() error {
	s.once.Do(func() { close(s.stop) })
	return nil
}

// sweep forgets idle template children every budgetSweepEvery, and
// probes the shared spend store every budgets.ProbeEvery (a Redis that
// restarted empty is rebuilt from the usage records without waiting for
// a request), until stop is closed.
func (s sharedBudgets) sweep() {
	t := time.NewTicker(budgetSweepEvery)
	defer t.Stop()
	probe := time.NewTicker(budgets.ProbeEvery)
	defer probe.Stop()
	for {
		select {
		case <-s.stop:
			return
		case now := <-t.C:
			s.svc.Tracker().Sweep(now)
		case <-probe.C:
			s.svc.Probe()
		}
	}
}

// The usage queries tell which requests a rebuilt budget window counts.
var _ budgets.SnapshotSource = (*audit.UsageQueries)(nil)

// seededBudgets reads the budgets of the YAML budgets.user_paths list and
// the SET_BUDGET_* variables of environ (a variable wins over YAML for the
// same budget). A malformed entry or variable, and a per_child budget
// without the quota_templates entitlement, is an error naming where it was
// defined: startup aborts.
func (a *App) seededBudgets(environ []string) ([]budgets.Budget, error) {
	fromYAML, err := budgets.FromConfig(a.effective.Budgets.UserPaths)
	if err != nil {
		return nil, err
	}
	fromEnv, err := budgets.FromEnv(environ)
	if err != nil {
		return nil, err
	}
	list := budgets.Merge(fromEnv, fromYAML)
	if err := budgets.CheckEntitlement(list, quotaTemplates(a.effective)); err != nil {
		return nil, err
	}
	return list, nil
}

// provisionBudgets reads the seeded budgets so that malformed ones abort
// startup before anything opens, and hands GET /v1/usage its budgets.
func (a *App) provisionBudgets() error {
	a.budgetRef = new(budgetRef)
	a.selfUsage.Budgets = a.budgetRef
	list, err := a.seededBudgets(os.Environ())
	if err != nil {
		return fmt.Errorf("modelgate: %w", err)
	}
	a.budgetSeed = list
	return nil
}

// openBudgets takes (or creates) the shared budgets service of the store
// (manual budgets, settings and reset marks stored there; spend rebuilt
// from the persisted usage aggregates), installs this config's seeded
// budgets and, when budgets are on and usage tracking is too, enforces
// them. Caller holds the store.
func (a *App) openBudgets() error {
	eff := a.effective
	st := a.store
	val, _, err := budgetServices.LoadOrNew(a.budgetsKey(), func() (caddy.Destructor, error) {
		svc, err := budgets.New(budgets.Options{
			Storage:        a.budgetStorage(st),
			Source:         audit.NewUsageQueries(usageSource(st, a.pg), nil),
			Spend:          a.spendStore(),
			QuotaTemplates: quotaTemplates(eff),
			Logger:         a.logger.Named("budgets"),
		})
		if err != nil {
			return nil, err
		}
		sb := sharedBudgets{svc: svc, stop: make(chan struct{}), once: new(sync.Once)}
		go sb.sweep()
		return sb, nil
	})
	if err != nil {
		return fmt.Errorf("modelgate: loading budgets: %w", err)
	}
	svc := val.(sharedBudgets).svc
	a.budgetsHeld = true
	svc.SetQuotaTemplates(quotaTemplates(eff))
	if err := svc.SetConfigBudgets(a.budgetSeed); err != nil {
		_ = a.releaseBudgets()
		return fmt.Errorf("modelgate: %w", err)
	}
	a.budgetSvc = svc
	switch {
	case eff.BudgetsEnforced():
		a.budgetsOn = true
		a.budgetRef.svc.Store(svc)
	case eff.Budgets.On():
		a.logger.Warn("budgets are switched off because usage tracking is off (usage.enabled / USAGE_ENABLED): spend comes from usage records")
	}
	return nil
}

// releaseBudgets drops this instance's hold on the shared budgets
// service. Call it before the store is released.
func (a *App) releaseBudgets() error {
	if !a.budgetsHeld {
		return nil
	}
	a.budgetsHeld = false
	if _, err := budgetServices.Delete(a.budgetsKey()); err != nil {
		return fmt.Errorf("modelgate: closing budgets: %w", err)
	}
	return nil
}

// BudgetService returns the shared budgets service (also when budgets are
// not enforced: they can still be managed), or nil before Start.
func (a *App) BudgetService() *budgets.Service { return a.budgetSvc }

// Budgets returns the budgets service that enforces spend caps, or nil
// when budgets are off (budgets.enabled, or usage tracking off) or the
// app has not started.
func (a *App) Budgets() *budgets.Service {
	if !a.budgetsOn {
		return nil
	}
	return a.budgetSvc
}

// budgetRef hands the budgets service that Start opens to GET /v1/usage,
// which is built in Provision: until then, and while budgets are off, the
// caller has no budgets.
type budgetRef struct {
	svc atomic.Pointer[budgets.Service]
}

// Budgets implements selfusage.BudgetProvider: the budgets covering the
// caller's user path, a template showing the caller's child and its spend.
func (b *budgetRef) Budgets(_ context.Context, userPath string) []any {
	s := b.svc.Load()
	if s == nil {
		return nil
	}
	es := s.For(userPath)
	out := make([]any, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// adminBudgets is the service /admin/budgets manages: nil (503) when
// budget management is switched off.
func (a *App) adminBudgets() *budgets.Service {
	if !a.effective.Budgets.On() {
		return nil
	}
	return a.budgetSvc
}

// budgetsKey names the budgets service of this config in the
// budgetServices pool: one per store, PostgreSQL database and Redis
// server, so that switching either on, off or elsewhere builds a new one.
func (a *App) budgetsKey() string {
	return a.storePath + "\x00postgres=" + a.effective.Postgres + "\x00redis=" + a.effective.Redis
}
