package caddymodule

import (
	"fmt"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/admin"
	"github.com/modelgate/modelgate/vmodels"
)

// provisionVirtualModels puts the configuration's virtual models and
// failover routes in force for the proxy. A target naming an unknown
// provider, or a looping or too deep chain, aborts the config load.
func (a *App) provisionVirtualModels() error {
	provs := map[string]string{}
	for _, p := range a.registry.Providers() {
		provs[p.Name()] = p.Type()
	}
	s, err := vmodels.New(vmodels.Options{Managed: a.effective.VirtualModels, ManagedFailover: a.effective.Failover, Providers: provs})
	if err != nil {
		return fmt.Errorf("modelgate: virtual_models: %w", err)
	}
	a.vmodels = s
	a.proxy.VirtualModels = s
	return nil
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
