package caddymodule

import (
	"errors"

	"github.com/caddyserver/caddy/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// usageRejected counts the answers whose upstream usage had a fault
// (catalog.CheckUsage), by provider instance and reason: "negative" (a
// negative count, taken as 0) or "too_large" (a count above
// catalog.MaxTokenCount, the usage refused as unknown). It is one per process,
// so that the count survives a reload and the batches service, which
// outlives a config, counts into it too.
var usageRejected = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "modelgate_usage_rejected_total",
	Help: "Answers whose upstream-reported usage was not taken as reported: reason=negative (a negative count taken as 0) " +
		"or too_large (a count above one billion; the usage refused as unknown).",
}, []string{"provider", "reason"})

// countUsageRejected counts one faulty usage report of provider.
func countUsageRejected(provider string, fault catalog.UsageFault) {
	usageRejected.WithLabelValues(provider, string(fault)).Inc()
}

// registerUsageMetrics registers modelgate_usage_rejected_total in the
// config's metrics registry.
func registerUsageMetrics(ctx caddy.Context) error {
	reg := ctx.GetMetricsRegistry()
	if reg == nil {
		return nil
	}
	if err := reg.Register(usageRejected); err != nil && !errors.As(err, new(prometheus.AlreadyRegisteredError)) {
		return err
	}
	return nil
}
