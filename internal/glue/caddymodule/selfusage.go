package caddymodule

import (
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/selfusage"
)

// errNotStarted is the usage read of an app whose store is not open.
var errNotStarted = errors.New("modelgate: the store is not open yet")

// appUsage sums the caller's usage for GET /v1/usage through the app's
// usage reads, once Start has built them.
type appUsage struct{ a *App }

// Totals implements selfusage.TotalsSource.
func (u appUsage) Totals(userPath string, since time.Time) (audit.UsageAggregate, error) {
	select {
	case <-u.a.ready:
	default:
		return audit.UsageAggregate{}, errNotStarted
	}
	q := u.a.UsageQueries()
	if q == nil {
		return audit.UsageAggregate{}, errNotStarted
	}
	return q.Totals(userPath, since)
}

// selfUsageTotals is the usage GET /v1/usage reports when usage tracking
// is on.
func (a *App) selfUsageTotals() selfusage.Totals {
	log := a.logger.Named("selfusage")
	return selfusage.Totals{Source: appUsage{a}, OnError: func(err error) {
		log.Warn("reading the caller's usage failed", zap.Error(err))
	}}
}
