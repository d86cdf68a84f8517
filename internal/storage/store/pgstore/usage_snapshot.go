package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// snapshotReader reads the usage records and aggregates inside one
// REPEATABLE READ transaction: every read sees the same snapshot.
type snapshotReader struct {
	ctx context.Context
	tx  pgx.Tx
}

// UsageAggregates implements audit.UsageReader.
func (r snapshotReader) UsageAggregates(g audit.Granularity, from, to time.Time) ([]audit.UsageAggregate, error) {
	return usageAggregates(r.ctx, r.tx, g, from, to)
}

// UsageRecords implements audit.UsageReader.
func (r snapshotReader) UsageRecords(from, to time.Time, fn func(*audit.UsageRecord) bool) error {
	return usageRecords(r.ctx, r.tx, from, to, fn)
}

// UsageSnapshot runs fn with a reader whose reads all see one snapshot of
// the usage records and aggregates (the records and the aggregates they
// add to are written in one transaction, so the sums agree with the
// records), and returns that snapshot's text form (pg_snapshot): the
// records it holds are those CountedIn names with it.
func (a *Audit) UsageSnapshot(fn func(r audit.UsageReader) error) (string, error) {
	ctx, cancel := readCtx()
	defer cancel()
	tx, err := a.db.Pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return "", classify(fmt.Errorf("postgres: reading usage: %w", err))
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	var snap string
	// The first statement takes the transaction's snapshot.
	if err := tx.QueryRow(ctx, `SELECT pg_current_snapshot()::text`).Scan(&snap); err != nil {
		return "", classify(fmt.Errorf("postgres: reading usage: %w", err))
	}
	if err := fn(snapshotReader{ctx: ctx, tx: tx}); err != nil {
		return "", err
	}
	return snap, nil
}

// CountedIn returns those of ids whose usage record the snapshot (a
// UsageSnapshot answer) holds, in one query. Records written before their
// transaction was noted (xact NULL) count as held.
func (a *Audit) CountedIn(ids [][16]byte, snapshot string) ([][16]byte, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	ctx, cancel := readCtx()
	defer cancel()
	bs := make([][]byte, len(ids))
	for i := range ids {
		bs[i] = ids[i][:]
	}
	rows, err := a.db.Pool.Query(ctx, `SELECT id FROM mg_usage_records WHERE id = ANY($1)
		AND (xact IS NULL OR pg_visible_in_snapshot(xact, $2::pg_snapshot))`, bs, snapshot)
	if err != nil {
		return nil, classify(fmt.Errorf("postgres: reading usage records: %w", err))
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([16]byte, error) {
		var b []byte
		var id [16]byte
		if err := r.Scan(&b); err != nil {
			return id, err
		}
		if len(b) != len(id) {
			return id, fmt.Errorf("usage record id of %d bytes", len(b))
		}
		copy(id[:], b)
		return id, nil
	})
	if err != nil {
		return nil, classify(fmt.Errorf("postgres: reading usage records: %w", err))
	}
	return out, nil
}
