package pgstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// breakdownColumns are the sum columns of the breakdown tables, in the
// order of audit.BreakdownRow.Sums: the counts, the token sums, the costs
// in catalog.Nanos, the error counts, then the duration histogram d0 to
// d23. The list is part of migration 4: it never changes.
var breakdownColumns = append([]string{"requests", "cache_hits", "priced", "input_tokens", "output_tokens",
	"total_tokens", "cached_input_tokens", "cache_write_input_tokens", "reasoning_tokens", "cost_nanos",
	"cost_avoided_nanos", "errors_4xx", "errors_5xx"}, histogramColumns(24)...)

// The breakdown tables keep every sum of a row.
var _ = [1]struct{}{}[len(breakdownColumns)-audit.NumBreakdownSums]

// histogramColumns names n histogram columns.
func histogramColumns(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "d" + strconv.Itoa(i)
	}
	return out
}

// breakdownColumnDefs declares the sum columns.
var breakdownColumnDefs = func() string {
	var b strings.Builder
	for _, c := range breakdownColumns {
		b.WriteString(c + " bigint NOT NULL,\n\t\t")
	}
	return b.String()
}()

// breakdownDims are the key columns of a breakdown row but its start.
var breakdownDims = []string{"user_path", "key_id", "provider", "model", "endpoint"}

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

// upsertBreakdownSQL inserts or adds to the rows of table %s.
var upsertBreakdownSQL = func() string {
	var params []string
	for i := range 6 + len(breakdownColumns) {
		t := "bigint[]"
		switch {
		case i == 0:
			t = "timestamptz[]"
		case i <= 5:
			t = "text[]"
		}
		params = append(params, "$"+strconv.Itoa(i+1)+"::"+t)
	}
	return `INSERT INTO %s AS t (start, ` + strings.Join(breakdownDims, ", ") + `, ` + strings.Join(breakdownColumns, ", ") + `)
		SELECT * FROM unnest(` + strings.Join(params, ", ") + `)
		ON CONFLICT (start, ` + strings.Join(breakdownDims, ", ") + `) DO UPDATE SET
			` + addedSums(breakdownColumns...)
}()

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
	dims := make([][]string, len(breakdownDims))
	for i := range dims {
		dims[i] = make([]string, n)
	}
	cols := make([][]int64, len(breakdownColumns))
	for i := range cols {
		cols[i] = make([]int64, n)
	}
	for i, k := range keys {
		r := rows[k]
		starts[i] = r.Start
		dims[0][i], dims[1][i], dims[2][i], dims[3][i], dims[4][i] = k.path, k.keyID, k.provider, k.model, k.endpoint
		for j, v := range r.Sums() {
			cols[j][i] = v
		}
	}
	args := []any{starts}
	for _, d := range dims {
		args = append(args, d)
	}
	for _, c := range cols {
		args = append(args, c)
	}
	_, err := tx.Exec(ctx, fmt.Sprintf(upsertBreakdownSQL, table), args...)
	return err
}

// byColumn is the column of a grouping's dimension.
func byColumn(by audit.BreakdownBy) string {
	switch by {
	case audit.ByKey:
		return "key_id"
	case audit.ByProvider:
		return "provider"
	case audit.ByModel:
		return "model"
	case audit.ByEndpoint:
		return "endpoint"
	}
	return "user_path"
}

// Breakdown returns the breakdown rows sel selects, summed per value of
// sel.By by the database when set.
func (a *Audit) Breakdown(sel audit.BreakdownSelect) ([]audit.BreakdownRow, error) {
	table := "mg_usage_breakdown_hours"
	switch sel.Granularity {
	case audit.Daily:
		table = "mg_usage_breakdown_days"
	case audit.Monthly:
		table = "mg_usage_breakdown_months"
	}
	var w where
	w.hourRange("start", sel.From, sel.To)
	f := sel.Filter
	if f.UserPath != "" && f.UserPath != "/" {
		w.add("(user_path = ? OR starts_with(user_path, ?))", cleanText(f.UserPath), cleanText(f.UserPath)+"/")
	}
	for _, c := range [...][2]string{{"key_id", f.KeyID}, {"provider", f.Provider}, {"model", f.Model}} {
		if c[1] != "" {
			w.add(c[0]+" = ?", cleanText(c[1]))
		}
	}
	var query string
	if sel.By == "" {
		query = `SELECT start, ` + strings.Join(breakdownDims, ", ") + `, ` + strings.Join(breakdownColumns, ", ") +
			` FROM ` + table + w.sql() + ` ORDER BY start, ` + strings.Join(breakdownDims, ", ")
	} else {
		sums := make([]string, len(breakdownColumns))
		for i, c := range breakdownColumns {
			sums[i] = "least(sum(" + c + "), 9223372036854775807)::bigint"
		}
		col := byColumn(sel.By)
		query = `SELECT ` + col + `, ` + strings.Join(sums, ", ") + ` FROM ` + table + w.sql() + ` GROUP BY ` + col
	}
	ctx, cancel := readCtx()
	defer cancel()
	rows, err := a.db.Pool.Query(ctx, query, w.args...)
	if err != nil {
		return nil, classify(fmt.Errorf("postgres: reading usage breakdown: %w", err))
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (audit.BreakdownRow, error) {
		var x audit.BreakdownRow
		sums := make([]int64, len(breakdownColumns))
		var dst []any
		if sel.By == "" {
			dst = []any{&x.Start, &x.UserPath, &x.KeyID, &x.Provider, &x.Model, &x.Endpoint}
		} else {
			dst = []any{[...]*string{&x.UserPath, &x.KeyID, &x.Provider, &x.Model, &x.Endpoint}[slices.Index(breakdownDims, byColumn(sel.By))]}
		}
		for i := range sums {
			dst = append(dst, &sums[i])
		}
		if err := r.Scan(dst...); err != nil {
			return x, err
		}
		x.Start = x.Start.UTC()
		if sel.By != "" {
			x.Start = time.Time{}
		}
		x.SetSums(sums)
		return x, nil
	})
	if err != nil {
		return nil, classify(fmt.Errorf("postgres: reading usage breakdown: %w", err))
	}
	return out, nil
}
