package caddymodule

import (
	"errors"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/modelgate/modelgate/internal/storage/store/pgstore"
)

// Backends of the storage metrics (the backend label).
const (
	backendBolt     = "bolt"
	backendPostgres = "postgres"
)

// storeCommits is modelgate_store_commit_seconds: how long each committed
// transaction of a storage writer took, by backend. One per process, like
// the stores it observes, which outlive a config.
var storeCommits = prometheus.NewHistogramVec(prometheus.HistogramOpts{
	Name: "modelgate_store_commit_seconds",
	Help: "Time in seconds of each committed write transaction of the storage writers: backend bolt (the embedded store) " +
		"or postgres (audit entries and usage records kept in PostgreSQL).",
	Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14), // 0.5 ms to about 4 s
}, []string{"backend"})

// commitObservers are the children of storeCommits, resolved once.
var (
	boltCommits     = storeCommits.WithLabelValues(backendBolt)
	postgresCommits = storeCommits.WithLabelValues(backendPostgres)
)

// observeBoltCommit is the embedded store's store.Options.OnCommit.
func observeBoltCommit(d time.Duration, _ int) { boltCommits.Observe(d.Seconds()) }

// observePostgresCommit is the PostgreSQL audit writer's
// pgstore.AuditOptions.OnCommit.
func observePostgresCommit(d time.Duration, _ int) { postgresCommits.Observe(d.Seconds()) }

// registerStoreMetrics registers modelgate_store_commit_seconds and
// modelgate_store_queue_depth, which reads the app's writers when scraped.
func (a *App) registerStoreMetrics(ctx caddy.Context) error {
	reg := ctx.GetMetricsRegistry()
	if reg == nil {
		return nil
	}
	if err := reg.Register(storeCommits); err != nil && !errors.As(err, new(prometheus.AlreadyRegisteredError)) {
		return err
	}
	return reg.Register(&queueCollector{app: a, desc: prometheus.NewDesc("modelgate_store_queue_depth",
		"Writes waiting for a storage writer: backend bolt (every record of the embedded store) or postgres "+
			"(audit entries and usage records kept in PostgreSQL, when configured).",
		[]string{"backend"}, nil)})
}

// queueCollector reads modelgate_store_queue_depth{backend} when scraped:
// the embedded store's writes accepted and neither committed nor failed
// yet, and the records the PostgreSQL audit writer holds, when there is
// one. Nothing is reported before the app started.
type queueCollector struct {
	app  *App
	desc *prometheus.Desc
}

// Describe implements prometheus.Collector.
func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector.
func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	p := c.app.auditLoaded()
	if p == nil {
		return
	}
	if p.store != nil {
		s := p.store.Stats()
		queued := int64(s.Enqueued) - int64(s.Committed) - int64(s.Failed)
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(max(queued, 0)), backendBolt)
	}
	if pa, ok := p.storage.(*pgstore.Audit); ok {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(pa.Stats().Queued), backendPostgres)
	}
}
