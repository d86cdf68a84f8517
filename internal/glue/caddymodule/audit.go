package caddymodule

import (
	"context"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/platform/config"
	"github.com/modelgate/modelgate/internal/storage/store"
	"github.com/modelgate/modelgate/internal/storage/store/boltstore"
	"github.com/modelgate/modelgate/internal/storage/store/pgstore"
)

// responseSessionsCapacity is how many Responses answers the gateway
// remembers for previous_response_id session lookups.
const responseSessionsCapacity = 65536

// auditFlushTimeout bounds the flush of queued audit records on Stop.
const auditFlushTimeout = 10 * time.Second

// Auditing is what the audit stage needs from the app: the recorder and
// the settings that shape each entry. A nil *Auditing means neither audit
// logging nor usage tracking is on.
type Auditing struct {
	// Recorder hands entries and usage records to storage and live
	// viewers without waiting.
	Recorder *audit.Recorder
	// Redactor redacts secret headers and any header carrying a provider
	// key.
	Redactor *audit.Redactor
	// Sessions remembers the session of each Responses answer so that a
	// request continuing it joins that session.
	Sessions *audit.ResponseSessions
	// Entries reports whether audit entries are recorded.
	Entries bool
	// Usage reports whether usage records are kept.
	Usage bool
	// Bodies reports whether request and response bodies are recorded.
	Bodies bool
	// Headers reports whether request and response headers are recorded.
	Headers bool
	// RedactSecrets reports whether credentials in recorded bodies are
	// masked (Redactor.MaskSecrets) before they are stored.
	RedactSecrets bool
	// TraceContent puts the request's messages and the answer on the
	// request's trace span, masked (tracing.capture_content).
	TraceContent bool
	// MaxBodyBytes caps a recorded body; a longer one is marked too big.
	MaxBodyBytes int
	// ReadBodyBytes is the longest model request body the audit stage
	// reads whole (the gateway's request body cap, at least MaxBodyBytes):
	// a body too big to record still gives its session id, and later
	// stages take it from there instead of reading it again.
	ReadBodyBytes int
	// Features says which gateway features are on, for each entry.
	Features audit.WorkflowFeatures
}

// AuditStore is where audit entries and usage records are kept: the bbolt
// store, or PostgreSQL when the gateway is configured with one.
type AuditStore interface {
	audit.Storage
	// Flush waits until every record queued before the call is committed,
	// or ctx ends.
	Flush(ctx context.Context) error
}

// auditParts is the audit machinery of one started app.
type auditParts struct {
	auditing *Auditing
	// store is the embedded store, whose drops (records it refuses for
	// good) the drop counter reports.
	store     *store.Store
	storage   AuditStore
	hub       *audit.Hub
	queries   *audit.Queries
	usageQ    *audit.UsageQueries
	retention context.CancelFunc
	done      chan struct{}
}

// providerKeys returns the API keys of ps, for a redactor.
func providerKeys(ps config.Providers) []string {
	keys := make([]string, 0, len(ps))
	for _, p := range ps {
		keys = append(keys, p.APIKey)
	}
	return keys
}

// newAuditing returns the audit settings of cfg with recorder rec, or nil
// when both audit logging and usage tracking are off.
func newAuditing(cfg config.Config, rec *audit.Recorder) *Auditing {
	if !cfg.Logging.On() && !cfg.Usage.On() {
		return nil
	}
	return &Auditing{
		Recorder:      rec,
		Redactor:      audit.NewRedactor(providerKeys(cfg.Providers), cfg.MasterKey),
		Sessions:      audit.NewResponseSessions(responseSessionsCapacity),
		Entries:       cfg.Logging.On(),
		Usage:         cfg.Usage.On(),
		Bodies:        cfg.Logging.BodiesOn(),
		Headers:       cfg.Logging.HeadersOn(),
		RedactSecrets: cfg.Logging.RedactSecretsOn(),
		TraceContent:  cfg.Tracing.CaptureContentOn(),
		MaxBodyBytes:  int(min(cfg.Logging.BodyLimit(), 1<<30)),
		ReadBodyBytes: int(min(max(cfg.Logging.BodyLimit(), cfg.Server.MaxRequestBodyBytes), 1<<30)),
		Features: audit.WorkflowFeatures{
			Audit:  cfg.Logging.On(),
			Usage:  cfg.Usage.On(),
			Budget: cfg.BudgetsEnforced(),
			Cache:  cfg.Cache.On(),
			// Failover routes from configuration; routes written later
			// through the admin API show from the next start.
			Failover: len(cfg.Failover) > 0,
		},
	}
}

// startAudit builds the recorder and starts the hourly retention pass.
// Records are kept in PostgreSQL when pg is not nil, else in st. With
// audit logging and usage tracking both off it builds nothing.
func startAudit(cfg config.Config, st *store.Store, pg *pgstore.DB, logger *zap.Logger) *auditParts {
	if !cfg.Logging.On() && !cfg.Usage.On() {
		return &auditParts{store: st}
	}
	p := &auditParts{store: st, storage: newAuditStore(st, pg, logger)}
	var entries audit.EntryStorage
	var usage audit.UsageStorage
	if cfg.Logging.On() {
		entries = p.storage
		p.queries = audit.NewQueries(p.storage, nil)
		if cfg.Admin.LiveLogsOn() {
			p.hub = audit.NewHub(audit.DefaultLiveBuffer)
		}
	}
	if cfg.Usage.On() {
		usage = p.storage
		p.usageQ = audit.NewUsageQueries(p.storage, nil)
	}
	p.auditing = newAuditing(cfg, audit.NewRecorder(entries, usage, p.hub))
	ret := &audit.Retention{Entries: entries, Usage: usage,
		AuditDays: cfg.Logging.Days(), UsageDays: cfg.Usage.Days()}
	ctx, cancel := context.WithCancel(context.Background())
	p.retention, p.done = cancel, make(chan struct{})
	go func() {
		defer close(p.done)
		ret.Run(ctx, audit.DefaultRetentionEvery, func(err error) {
			logger.Warn("audit retention pass failed", zap.Error(err))
		})
	}()
	return p
}

// newAuditStore returns the audit storage: PostgreSQL when pg is not nil
// (with its own batched writer, stopped by auditParts.stop, and st as the
// spool of what cannot reach PostgreSQL), else the bbolt store st.
func newAuditStore(st *store.Store, pg *pgstore.DB, logger *zap.Logger) AuditStore {
	if pg != nil {
		opts := pgstore.AuditOptions{Logger: logger, OnCommit: observePostgresCommit}
		if st != nil {
			opts.Spool = boltstore.NewAuditSpool(st)
		}
		return pgstore.NewAudit(pg, opts)
	}
	return boltstore.NewAudit(st)
}

// usageSource returns the usage records and aggregates to read (budget
// spend is rebuilt from them): PostgreSQL's when pg is not nil, else those
// of st. It only reads, so it starts no writer.
func usageSource(st *store.Store, pg *pgstore.DB) audit.UsageStorage {
	if pg != nil {
		return pgstore.NewAudit(pg, pgstore.AuditOptions{})
	}
	return boltstore.NewAudit(st)
}

// stop ends the retention loop and flushes every queued record; a storage
// with its own writer (PostgreSQL) is closed, refusing later records.
func (p *auditParts) stop() error {
	if p == nil || p.storage == nil {
		return nil
	}
	p.retention()
	<-p.done
	ctx, cancel := context.WithTimeout(context.Background(), auditFlushTimeout)
	defer cancel()
	if c, ok := p.storage.(interface{ Close(context.Context) error }); ok {
		return c.Close(ctx)
	}
	return p.storage.Flush(ctx)
}

// registerAuditMetrics registers modelgate_audit_dropped_total (see
// droppedCollector).
func (a *App) registerAuditMetrics(ctx caddy.Context) error {
	reg := ctx.GetMetricsRegistry()
	if reg == nil {
		return nil
	}
	return reg.Register(&droppedCollector{app: a, desc: prometheus.NewDesc("modelgate_audit_dropped_total",
		"Audit entries, usage records and other stored records dropped: refused by a full write queue "+
			"(reason queue_full) or given up because the storage refuses them for good (key_too_large, "+
			"value_too_large, encoding, data_exception, limit_exceeded, ...).",
		[]string{"kind", "reason"}, nil)})
}

// droppedCollector reads modelgate_audit_dropped_total{kind,reason} when
// scraped: the entries and usage records the recorder could not queue
// (reason queue_full, always present for both kinds), plus the records
// given up because the storage refuses them, from the embedded store (any
// kind) and from the PostgreSQL audit writer when there is one.
type droppedCollector struct {
	app  *App
	desc *prometheus.Desc
}

// Describe implements prometheus.Collector.
func (c *droppedCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector.
func (c *droppedCollector) Collect(ch chan<- prometheus.Metric) {
	type row struct{ kind, reason string }
	counts := map[row]uint64{{"entry", "queue_full"}: 0, {"usage", "queue_full"}: 0}
	if rec := c.app.AuditRecorder(); rec != nil {
		e, u := rec.Dropped()
		counts[row{"entry", "queue_full"}] += e
		counts[row{"usage", "queue_full"}] += u
	}
	add := func(ds []store.Drop) {
		for _, d := range ds {
			counts[row{d.Kind, d.Reason}] += d.Count
		}
	}
	if p := c.app.auditLoaded(); p != nil {
		if p.store != nil {
			add(p.store.Drops())
		}
		if s, ok := p.storage.(interface{ Drops() []store.Drop }); ok {
			add(s.Drops())
		}
	}
	for r, n := range counts {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(n), r.kind, r.reason)
	}
}

// auditLoaded returns the started audit machinery, or nil.
func (a *App) auditLoaded() *auditParts {
	if a.audit == nil {
		return nil
	}
	return a.audit.Load()
}

// Auditing returns what the audit stage needs, or nil before Start and
// when audit logging and usage tracking are both off.
func (a *App) Auditing() *Auditing {
	p := a.auditLoaded()
	if p == nil {
		return nil
	}
	return p.auditing
}

// AuditRecorder returns the recorder of audit entries and usage records,
// or nil when both are off or before Start.
func (a *App) AuditRecorder() *audit.Recorder {
	if au := a.Auditing(); au != nil {
		return au.Recorder
	}
	return nil
}

// AuditQueries returns the audit log reads, or nil when audit logging is
// off or before Start.
func (a *App) AuditQueries() *audit.Queries {
	p := a.auditLoaded()
	if p == nil {
		return nil
	}
	return p.queries
}

// UsageQueries returns the usage reads, or nil when usage tracking is off
// or before Start.
func (a *App) UsageQueries() *audit.UsageQueries {
	p := a.auditLoaded()
	if p == nil {
		return nil
	}
	return p.usageQ
}

// LiveHub returns the live log stream's event hub, or nil when audit
// logging or the live log stream is off, or before Start.
func (a *App) LiveHub() *audit.Hub {
	p := a.auditLoaded()
	if p == nil {
		return nil
	}
	return p.hub
}

// AuditStorage returns the audit storage (for flushing in tests and
// tools), or nil when both audit logging and usage tracking are off or
// before Start.
func (a *App) AuditStorage() AuditStore {
	p := a.auditLoaded()
	if p == nil || p.storage == nil {
		return nil
	}
	return p.storage
}
