package caddymodule

import (
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/pricing"
	"github.com/modelgate/modelgate/internal/storage/store/boltstore"
	"github.com/modelgate/modelgate/internal/storage/store/pgstore"
	"github.com/modelgate/modelgate/internal/surface/admin"
)

// provisionPricing checks the configuration's price overrides; a bad row
// aborts the config load. They are put in force at Start (loadPricing),
// so that a config that is provisioned but never started changes no
// price.
func (a *App) provisionPricing() error {
	rows := make([]pricing.Override, len(a.effective.PricingOverrides))
	for i, o := range a.effective.PricingOverrides {
		rows[i] = pricing.Override{Provider: o.Provider, Model: o.Model, Pricing: o.Pricing}
	}
	s, err := pricing.New(rows, time.Now())
	if err != nil {
		return fmt.Errorf("modelgate: %w", err)
	}
	log := a.logger
	s.Warn = func(msg string) { log.Warn(msg) }
	a.pricing = s
	return nil
}

// pricingStorage is where overrides written through the admin API are
// kept.
func (a *App) pricingStorage() pricing.Storage {
	if a.pg != nil {
		return pgstore.NewPricingOverrides(a.pg)
	}
	return boltstore.NewPricingOverrides(a.store)
}

// loadPricing puts the configuration's and the stored overrides in force
// and, with usage tracking on, opens the recalculator over the usage
// records. A store that cannot be read leaves the configuration's rows in
// force and is logged.
func (a *App) loadPricing() {
	if err := a.pricing.Load(a.pricingStorage()); err != nil {
		a.logger.Error("loading stored price overrides", zap.Error(err))
	}
	p := a.auditLoaded()
	if p == nil || !a.effective.Usage.On() {
		return
	}
	us, ok := p.storage.(pricing.UsageStore)
	if !ok {
		return
	}
	a.recalc = pricing.NewRecalculator(us, func() pricing.SpendAdjustment {
		if bs := a.budgetSvc; bs != nil {
			return bs.Adjust()
		}
		return nil
	})
}

// stopPricing stops the running recalculations and takes this app's
// overrides out of force (unless a newer config's replaced them).
func (a *App) stopPricing() {
	if a.recalc != nil {
		a.recalc.Close()
		a.recalc = nil
	}
	if a.pricing != nil {
		a.pricing.Close()
	}
}

// withPricing adds the override service and the recalculator to the
// admin API's options.
func (a *App) withPricing(o admin.Options) admin.Options {
	o.Pricing = a.pricing
	o.Recalc = a.recalc
	return o
}
