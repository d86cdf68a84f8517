package caddymodule

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/surface/admin"
)

// provisionVirtualModels puts the configuration's virtual models and
// failover routes in force for the proxy. A target naming an unknown
// provider, or a looping or too deep chain, aborts the config load,
// naming the setting the row came from: VIRTUAL_MODELS when fromEnv (the
// rows of that variable) holds it, else virtual_models.
func (a *App) provisionVirtualModels(fromEnv vmodels.List) error {
	provs := map[string]string{}
	for _, p := range a.registry.Providers() {
		provs[p.Name()] = p.Type()
	}
	s, err := vmodels.New(vmodels.Options{Managed: a.effective.VirtualModels, ManagedFailover: a.effective.Failover, Providers: provs,
		Listings: a.registry})
	if err != nil {
		setting := "virtual_models"
		var re *vmodels.RowError
		if errors.As(err, &re) && slices.ContainsFunc(fromEnv, func(v vmodels.VirtualModel) bool { return v.Source == re.Source }) {
			setting = "VIRTUAL_MODELS"
		}
		return fmt.Errorf("modelgate: %s: %w", setting, err)
	}
	a.vmodels = s
	a.proxy.VirtualModels = s
	a.vmodelsWarned = map[string]bool{}
	a.warnUnlistedTargets()
	return nil
}

// warnUnlistedTargets logs, once each, the configuration's virtual-model
// targets that name a model their provider's known listing lacks: at
// provision for providers that serve only their allowlist, and again
// once the first upstream listings are in (watchUnlistedTargets). Such a
// row stays in force (a listing can change) but fails the requests it
// sends there.
func (a *App) warnUnlistedTargets() {
	for _, w := range a.vmodels.UnlistedManaged() {
		if !a.vmodelsWarned[w] {
			a.vmodelsWarned[w] = true
			a.logger.Warn(w)
		}
	}
}

// watchUnlistedTargets warns of the configuration's unlisted targets once
// the registry's first round of listings has finished, unless ctx ends
// first.
func (a *App) watchUnlistedTargets(ctx context.Context) {
	go func() {
		select {
		case <-a.registry.Ready():
			a.warnUnlistedTargets()
		case <-ctx.Done():
		}
	}()
}

// loadVirtualModels adds the stored virtual models and failover routes.
// A store that cannot be read leaves the configuration's rows in force
// and is logged; so is a stored row that no longer fits.
func (a *App) loadVirtualModels() {
	warnings, err := a.vmodels.Load(a.vmodelStorage())
	if err != nil {
		a.logger.Error("loading stored virtual models", zap.Error(err))
	}
	for _, w := range warnings {
		a.logger.Warn(w)
	}
	// With Redis, a session sticks to its target at every process.
	a.vmodels.SharePins(a.pinStore())
}

// withRouting adds the virtual-model service and the model inventory to
// the admin API's options.
func (a *App) withRouting(o admin.Options) admin.Options {
	o.VirtualModels = a.vmodels
	o.Models = a.proxy.Inventory
	return o
}
