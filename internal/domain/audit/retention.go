package audit

import (
	"context"
	"time"
)

// Retention defaults.
const (
	// DefaultAuditRetentionDays is how long entries are kept by default.
	DefaultAuditRetentionDays = 30
	// DefaultUsageRetentionDays is how long usage records are kept by
	// default.
	DefaultUsageRetentionDays = 90
	// DefaultRetentionBatch is how many records one retention transaction
	// deletes by default: small, so the writer is never held up long.
	DefaultRetentionBatch = 1000
	// DefaultRetentionEvery is how often Run deletes by default.
	DefaultRetentionEvery = time.Hour
)

// Retention deletes audit entries and usage records older than their
// retention, in small transactions.
//
// The cutoff is now minus the retention, rounded down to the whole hour,
// so that every hour is either kept whole or deleted whole: list totals
// and statistics, which come from hourly aggregates, always match the
// entries that remain. Daily usage aggregates are kept (summaries over
// long windows outlive the raw records); hourly usage aggregates and
// sessions idle since before the cutoff go with the records.
type Retention struct {
	// Entries is the audit entry storage; nil skips entries.
	Entries EntryStorage
	// Usage is the usage storage; nil skips usage records.
	Usage UsageStorage
	// AuditDays is how many days entries are kept; 0 keeps them forever.
	AuditDays int
	// UsageDays is how many days usage records are kept; 0 keeps them
	// forever.
	UsageDays int
	// Batch is how many records one transaction deletes
	// (DefaultRetentionBatch when not positive).
	Batch int
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Cutoffs returns the instants before which entries and usage records are
// deleted now; zero when kept forever.
func (r *Retention) Cutoffs() (entries, usage time.Time) {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	t := now().UTC()
	if r.AuditDays > 0 {
		entries = t.Add(-time.Duration(r.AuditDays) * day).Truncate(time.Hour)
	}
	if r.UsageDays > 0 {
		usage = t.Add(-time.Duration(r.UsageDays) * day).Truncate(time.Hour)
	}
	return entries, usage
}

// RunOnce deletes everything past retention, one batch per transaction,
// until nothing is left to delete or ctx is done, and returns how many
// entries and usage records (and sessions) it deleted.
func (r *Retention) RunOnce(ctx context.Context) (entries, usage int, err error) {
	batch := r.Batch
	if batch <= 0 {
		batch = DefaultRetentionBatch
	}
	ec, uc := r.Cutoffs()
	if r.Entries != nil && !ec.IsZero() {
		if entries, err = drain(ctx, batch, func() (int, error) { return r.Entries.DeleteEntriesBefore(ec, batch) }); err != nil {
			return entries, 0, err
		}
	}
	if r.Usage != nil && !uc.IsZero() {
		usage, err = drain(ctx, batch, func() (int, error) { return r.Usage.DeleteUsageBefore(uc, batch) })
	}
	return entries, usage, err
}

// drain calls del until it deletes fewer than batch or ctx is done.
func drain(ctx context.Context, batch int, del func() (int, error)) (int, error) {
	total := 0
	for ctx.Err() == nil {
		n, err := del()
		total += n
		if err != nil || n < batch {
			return total, err
		}
	}
	return total, nil
}

// Run calls RunOnce at once and then every interval
// (DefaultRetentionEvery when not positive) until ctx is done, passing
// each failure to onError when it is not nil.
func (r *Retention) Run(ctx context.Context, every time.Duration, onError func(error)) {
	if every <= 0 {
		every = DefaultRetentionEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if _, _, err := r.RunOnce(ctx); err != nil && onError != nil {
			onError(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
