package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/pricing"
	"github.com/modelgate/modelgate/internal/storage/records"
)

var _ pricing.UsageStore = (*Audit)(nil)

// repriceChunk is how many records one repricing transaction reads.
const repriceChunk = 512

// RepriceUsage implements pricing.UsageStore: chunk by chunk, each in one
// transaction that locks its records, it rewrites the records reprice
// changed and moves their hour and day rows and sessions by the change
// of cost (and of the unpriced count).
func (a *Audit) RepriceUsage(ctx context.Context, from, to time.Time, reprice func(*audit.UsageRecord) bool) error {
	lo := audit.MinID(from)
	next := lo[:]
	hi := audit.MinID(to)
	for next != nil {
		err := pgx.BeginFunc(ctx, a.db.Pool, func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, `SELECT id, record::text FROM mg_usage_records WHERE id >= $1 AND id < $2
				ORDER BY id LIMIT $3 FOR UPDATE`, next, hi[:], repriceChunk)
			if err != nil {
				return err
			}
			type change struct{ old, curr audit.UsageRecord }
			var changes []change
			n := 0
			var last []byte
			for rows.Next() {
				var id, b []byte
				if err := rows.Scan(&id, &b); err != nil {
					rows.Close()
					return err
				}
				n, last = n+1, id
				r, err := records.DecodeUsageJSON(b)
				if err != nil {
					rows.Close()
					return fmt.Errorf("postgres: %w", err)
				}
				old := *r
				if reprice(r) {
					changes = append(changes, change{old, *r})
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			next = nil
			if n == repriceChunk {
				next = append(last, 0) // the smallest id after last
			}
			for i := range changes {
				if err := repriceOne(ctx, tx, &changes[i].old, &changes[i].curr); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return classify(fmt.Errorf("postgres: repricing usage: %w", err))
		}
	}
	return nil
}

// repriceBreakdown moves the hour, day and month breakdown rows of a
// repriced record by its change of cost and of the priced count.
func repriceBreakdown(ctx context.Context, tx pgx.Tx, old, curr *audit.UsageRecord) error {
	var b0, b1 audit.BreakdownRow
	b0.AddRecord(old)
	b1.AddRecord(curr)
	dCost, dPriced := int64(b1.Cost-b0.Cost), b1.Priced-b0.Priced
	if dCost == 0 && dPriced == 0 {
		return nil
	}
	t := old.ID.Time()
	for _, g := range [...]struct {
		gr    audit.Granularity
		table string
	}{{audit.Hourly, "mg_usage_breakdown_hours"}, {audit.Daily, "mg_usage_breakdown_days"}, {audit.Monthly, "mg_usage_breakdown_months"}} {
		if _, err := tx.Exec(ctx, `UPDATE `+g.table+` SET cost_nanos = cost_nanos + $7, priced = greatest(priced + $8, 0)
			WHERE start = $1 AND user_path = $2 AND key_id = $3 AND provider = $4 AND model = $5 AND endpoint = $6`,
			g.gr.Truncate(t), cleanText(old.UserPath), cleanText(old.AuthKeyID), cleanText(old.ProviderName),
			cleanText(old.Model), cleanText(old.Endpoint), dCost, dPriced); err != nil {
			return err
		}
	}
	return nil
}

// repriceOne rewrites one record and moves its rows by its change.
func repriceOne(ctx context.Context, tx pgx.Tx, old, curr *audit.UsageRecord) error {
	b, err := records.EncodeUsageJSON(curr)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE mg_usage_records SET record = $2::json WHERE id = $1`, curr.ID[:], string(b)); err != nil {
		return err
	}
	var before, after audit.UsageAggregate
	before.AddRecord(old)
	after.AddRecord(curr)
	dCost, dUnpriced := int64(after.Cost-before.Cost), after.Unpriced-before.Unpriced
	t := old.ID.Time()
	for _, g := range [...]audit.Granularity{audit.Hourly, audit.Daily} {
		if _, err := tx.Exec(ctx, `UPDATE `+aggTable(g)+` SET cost_nanos = cost_nanos + $5,
				unpriced = greatest(unpriced + $6, 0)
			WHERE start = $1 AND user_path = $2 AND provider = $3 AND model = $4`,
			g.Truncate(t), cleanText(old.UserPath), cleanText(old.ProviderName), cleanText(old.Model), dCost, dUnpriced); err != nil {
			return err
		}
	}
	if err := repriceBreakdown(ctx, tx, old, curr); err != nil {
		return err
	}
	if old.SessionID == "" {
		return nil
	}
	var s0, s1 audit.SessionTotals
	s0.AddRecord(old)
	s1.AddRecord(curr)
	_, err = tx.Exec(ctx, `UPDATE mg_usage_sessions SET cost_nanos = cost_nanos + $3 WHERE user_path = $1 AND session_id = $2`,
		cleanText(old.UserPath), cleanText(old.SessionID), int64(s1.Cost-s0.Cost))
	return err
}
