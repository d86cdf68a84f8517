package pgstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// breakdownKey identifies a BreakdownRow.
type breakdownKey struct {
	start                                  int64
	path, keyID, provider, model, endpoint string
}

// compare orders keys by period, then each text column.
func (k breakdownKey) compare(o breakdownKey) int {
	if c := cmp.Compare(k.start, o.start); c != 0 {
		return c
	}
	for _, p := range [...][2]string{{k.path, o.path}, {k.keyID, o.keyID}, {k.provider, o.provider},
		{k.model, o.model}, {k.endpoint, o.endpoint}} {
		if c := strings.Compare(p[0], p[1]); c != 0 {
			return c
		}
	}
	return 0
}

// addBreakdown adds r to its row of granularity g in m.
func addBreakdown(m map[breakdownKey]*audit.BreakdownRow, g audit.Granularity, r *audit.UsageRecord) {
	k := breakdownKey{g.Truncate(r.ID.Time()).Unix(), cleanText(r.UserPath), cleanText(r.AuthKeyID),
		cleanText(r.ProviderName), cleanText(r.Model), cleanText(r.Endpoint)}
	sum, ok := m[k]
	if !ok {
		sum = &audit.BreakdownRow{Start: time.Unix(k.start, 0).UTC(), UserPath: k.path, KeyID: k.keyID,
			Provider: k.provider, Model: k.model, Endpoint: k.endpoint}
		m[k] = sum
	}
	sum.AddRecord(r)
}

// breakdownSums is the SET of the breakdown upsert: the sums added
// element by element, saturating as addedSums does.
const breakdownSums = `sums = ARRAY(SELECT CASE WHEN x.a > 9223372036854775807 - x.b THEN 9223372036854775807 ELSE x.a + x.b END
			FROM unnest(t.sums, EXCLUDED.sums) WITH ORDINALITY AS x(a, b, o) ORDER BY x.o)`

// upsertBreakdown adds the rows' sums to their stored rows of table, in
// key order (so that concurrent writers never deadlock).
func upsertBreakdown(ctx context.Context, tx pgx.Tx, table string, rows map[breakdownKey]*audit.BreakdownRow) error {
	if len(rows) == 0 {
		return nil
	}
	keys := make([]breakdownKey, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, breakdownKey.compare)
	n := len(keys)
	starts := make([]time.Time, n)
	paths, keyIDs, provs, models, endpoints := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	sums := make([]string, n)
	for i, k := range keys {
		r := rows[k]
		starts[i], paths[i], keyIDs[i], provs[i], models[i], endpoints[i] = r.Start, k.path, k.keyID, k.provider, k.model, k.endpoint
		sums[i] = int64Array(r.Sums())
	}
	_, err := tx.Exec(ctx, `INSERT INTO `+table+` AS t (start, user_path, key_id, provider, model, endpoint, sums)
		SELECT u.s, u.p, u.k, u.pr, u.m, u.e, u.v::bigint[]
		FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
			AS u(s, p, k, pr, m, e, v)
		ON CONFLICT (start, user_path, key_id, provider, model, endpoint) DO UPDATE SET
			`+breakdownSums,
		starts, paths, keyIDs, provs, models, endpoints, sums)
	return err
}

// int64Array is the PostgreSQL array literal of v.
func int64Array(v []int64) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, x)
	}
	b.WriteByte('}')
	return b.String()
}

// BreakdownRows returns the breakdown rows of granularity g whose period
// starts in [from, to), in time order; zero bounds are open.
func (a *Audit) BreakdownRows(g audit.Granularity, from, to time.Time) ([]audit.BreakdownRow, error) {
	table := "mg_usage_breakdown_hours"
	if g == audit.Daily {
		table = "mg_usage_breakdown_days"
	}
	var w where
	w.hourRange("start", from, to)
	ctx, cancel := readCtx()
	defer cancel()
	rows, err := a.db.Pool.Query(ctx, `SELECT start, user_path, key_id, provider, model, endpoint, sums
		FROM `+table+w.sql()+` ORDER BY start, user_path, key_id, provider, model, endpoint`, w.args...)
	if err != nil {
		return nil, classify(fmt.Errorf("postgres: reading usage breakdown: %w", err))
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (audit.BreakdownRow, error) {
		var x audit.BreakdownRow
		var sums []int64
		if err := r.Scan(&x.Start, &x.UserPath, &x.KeyID, &x.Provider, &x.Model, &x.Endpoint, &sums); err != nil {
			return x, err
		}
		x.Start = x.Start.UTC()
		if !x.SetSums(sums) {
			return x, fmt.Errorf("a row of %d sums, not %d", len(sums), audit.NumBreakdownSums)
		}
		return x, nil
	})
	if err != nil {
		return nil, classify(fmt.Errorf("postgres: reading usage breakdown: %w", err))
	}
	return out, nil
}
