package caddymodule

import (
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/audit"
	"github.com/modelgate/modelgate/selfusage"
	"github.com/modelgate/modelgate/store/boltstore"
)

// auditReads are the reads of the audit and usage record an app serves:
// built in Start over the app's store, nil where the switch is off.
type auditReads struct {
	queries *audit.Queries
	usage   *audit.UsageQueries
	hub     *audit.Hub
}

// openAuditReads builds the reads over the open store: audit-log reads
// when audit logging is on, usage reads when usage tracking is on, and
// the live hub when either records.
func (a *App) openAuditReads() {
	st := boltstore.NewAudit(a.store)
	if a.effective.Logging.On() {
		a.reads.queries = audit.NewQueries(st, nil)
	}
	if a.effective.Usage.On() {
		a.reads.usage = audit.NewUsageQueries(st, nil)
	}
	if a.reads.queries != nil || a.reads.usage != nil {
		a.reads.hub = audit.NewHub(audit.DefaultLiveBuffer)
	}
}

// AuditQueries returns the audit-log reads, or nil when audit logging is
// off or before Start.
func (a *App) AuditQueries() *audit.Queries { return a.reads.queries }

// UsageQueries returns the usage reads, or nil when usage tracking is off
// or before Start.
func (a *App) UsageQueries() *audit.UsageQueries { return a.reads.usage }

// LiveHub returns the hub of the live log stream, or nil when neither
// audit logging nor usage tracking is on, or before Start.
func (a *App) LiveHub() *audit.Hub { return a.reads.hub }

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
	if u.a.reads.usage == nil {
		return audit.UsageAggregate{}, errNotStarted
	}
	return u.a.reads.usage.Totals(userPath, since)
}

// selfUsageTotals is the usage GET /v1/usage reports when usage tracking
// is on.
func (a *App) selfUsageTotals() selfusage.Totals {
	log := a.logger.Named("selfusage")
	return selfusage.Totals{Source: appUsage{a}, OnError: func(err error) {
		log.Warn("reading the caller's usage failed", zap.Error(err))
	}}
}
