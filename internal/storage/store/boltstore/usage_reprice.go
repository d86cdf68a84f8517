package boltstore

import (
	"context"
	"time"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/pricing"
)

var _ pricing.UsageStore = (*Audit)(nil)

// repriceChunk is how many records one repricing transaction reads, so
// that the writer is never held up for long.
const repriceChunk = 512

// RepriceUsage implements pricing.UsageStore: chunk by chunk, each in one
// transaction, it rewrites the records reprice changed and moves their
// hour and day rows and sessions by the change of cost (and of the
// unpriced count).
func (a *Audit) RepriceUsage(ctx context.Context, from, to time.Time, reprice func(*audit.UsageRecord) bool) error {
	lo := audit.MinID(from)
	next := lo[:]
	var hi audit.ID
	if !to.IsZero() {
		hi = audit.MinID(to)
	}
	for next != nil {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := a.s.Update(func(tx *bbolt.Tx) error {
			b := tx.Bucket(bucketUsage)
			if b == nil {
				next = nil
				return nil
			}
			c := b.Cursor()
			k, v := c.Seek(next)
			type change struct {
				key       []byte
				old, curr audit.UsageRecord
			}
			var changes []change
			for n := 0; ; n++ {
				if k == nil || (!to.IsZero() && string(k) >= string(hi[:])) {
					next = nil
					break
				}
				if n == repriceChunk {
					next = append([]byte(nil), k...)
					break
				}
				r, err := decodeUsage(k, v)
				if err != nil {
					return err
				}
				old := *r
				if reprice(r) {
					changes = append(changes, change{append([]byte(nil), k...), old, *r})
				}
				k, v = c.Next()
			}
			for i := range changes {
				ch := &changes[i]
				rec, err := appendUsage(nil, &ch.curr)
				if err != nil {
					return err
				}
				if err := b.Put(ch.key, rec); err != nil {
					return err
				}
				if err := moveUsageAggs(tx, &ch.old, &ch.curr); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// moveUsageAggs moves the hour and day rows and the session of a record
// whose cost changed from old to curr.
func moveUsageAggs(tx *bbolt.Tx, old, curr *audit.UsageRecord) error {
	var before, after audit.UsageAggregate
	before.AddRecord(old)
	after.AddRecord(curr)
	dCost, dUnpriced := after.Cost-before.Cost, after.Unpriced-before.Unpriced
	t := old.ID.Time()
	for _, g := range [...]audit.Granularity{audit.Hourly, audit.Daily} {
		bk := tx.Bucket(aggBucket(g))
		if bk == nil {
			continue
		}
		key := appendUsageAggKey(nil, g.Truncate(t), old)
		v := bk.Get(key)
		if v == nil {
			continue // pruned by retention
		}
		var row audit.UsageAggregate
		if err := decodeUsageAggSums(v, &row); err != nil {
			return err
		}
		row.Cost += dCost
		row.Unpriced = max(row.Unpriced+dUnpriced, 0)
		if err := bk.Put(key, encodeUsageAgg(&row)); err != nil {
			return err
		}
	}
	if err := moveBreakdown(tx, old, curr); err != nil {
		return err
	}
	if old.SessionID == "" {
		return nil
	}
	sb := tx.Bucket(bucketSessions)
	if sb == nil {
		return nil
	}
	key := sessionKey(old.UserPath, old.SessionID)
	v := sb.Get(key)
	if v == nil {
		return nil
	}
	var s audit.SessionTotals
	if err := decodeSessionSums(v, &s); err != nil {
		return err
	}
	var sb0, sb1 audit.SessionTotals
	sb0.AddRecord(old)
	sb1.AddRecord(curr)
	s.Cost += sb1.Cost - sb0.Cost
	return sb.Put(key, appendSession(nil, &s))
}

// moveBreakdown moves the hour, day and month breakdown rows of a record
// whose cost changed from old to curr by the change of cost and of the
// priced count.
func moveBreakdown(tx *bbolt.Tx, old, curr *audit.UsageRecord) error {
	var b0, b1 audit.BreakdownRow
	b0.AddRecord(old)
	b1.AddRecord(curr)
	dCost, dPriced := b1.Cost-b0.Cost, b1.Priced-b0.Priced
	if dCost == 0 && dPriced == 0 {
		return nil
	}
	t := old.ID.Time()
	for _, g := range [...]struct {
		gr     audit.Granularity
		bucket []byte
	}{{audit.Hourly, bucketBreakdownHours}, {audit.Daily, bucketBreakdownDays}, {audit.Monthly, bucketBreakdownMonths}} {
		bk := tx.Bucket(g.bucket)
		if bk == nil {
			continue
		}
		key := breakdownKey(g.gr.Truncate(t), old)
		v := bk.Get(key)
		if v == nil {
			continue // pruned by retention, or recorded before the breakdown
		}
		var row audit.BreakdownRow
		if err := decodeBreakdownSums(v, &row); err != nil {
			return err
		}
		row.Cost += dCost
		row.Priced = max(row.Priced+dPriced, 0)
		if err := bk.Put(key, encodeBreakdownSums(&row)); err != nil {
			return err
		}
	}
	return nil
}
