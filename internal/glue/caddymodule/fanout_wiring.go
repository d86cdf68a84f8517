package caddymodule

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/surface/admin"
)

// startFanout joins the other gateway processes over Redis, when it is
// configured: live log events always; admin changes and their reloads
// only with PostgreSQL, the storage the processes then share.
func (a *App) startFanout() {
	if a.redis == nil {
		return
	}
	reloaders := map[string]func() error{}
	if a.pg != nil {
		if ks := a.keySvc; ks != nil {
			reloaders[admin.ChangedKeys] = ks.Reload
		}
		if vs := a.vmodels; vs != nil {
			log := a.logger
			reloaders[admin.ChangedVirtualModels] = func() error {
				warnings, err := vs.Reload()
				for _, w := range warnings {
					log.Warn(w)
				}
				return err
			}
		}
		if bs := a.budgetSvc; bs != nil {
			reloaders[admin.ChangedBudgets] = bs.Reload
		}
		if ps := a.pricing; ps != nil {
			reloaders[admin.ChangedPricing] = ps.Reload
		}
		if g := a.sessionGuard; g != nil {
			reloaders[admin.ChangedSessionLimits] = g.Reload
		}
		if eng := a.limits; eng != nil {
			reloaders[admin.ChangedRateLimits] = eng.Reload
		}
	}
	f := newFanout(a.redis, a.LiveHub(), reloaders, a.logger.Named("fanout"))
	f.start()
	a.fanout = f
	a.registerFanoutMetrics(f)
}

// stopFanout leaves the other processes.
func (a *App) stopFanout() {
	a.fanout.stop()
	a.fanout = nil
}

// changeNotifier is what the admin API tells about its writes: the
// fan-out when there is one, else no one.
func (a *App) changeNotifier() admin.ChangeNotifier {
	if a.fanout == nil {
		return nil
	}
	return a.fanout
}

// registerFanoutMetrics registers modelgate_live_fanout_dropped_total.
func (a *App) registerFanoutMetrics(f *fanout) {
	reg := a.caddyCtx.GetMetricsRegistry()
	if reg == nil {
		return
	}
	c := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "modelgate_live_fanout_dropped_total",
		Help: "Live log events not shown to the other gateway processes because the send queue was full or Redis failed.",
	}, func() float64 { return float64(f.LiveDropped()) })
	if err := reg.Register(c); err != nil && !errors.As(err, new(prometheus.AlreadyRegisteredError)) {
		a.logger.Warn("registering the live fan-out metric", zap.Error(err))
	}
}
