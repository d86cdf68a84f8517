package pgstore

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/storage/records"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// writeBatch writes batch in one transaction: the entries and usage
// records, then one upsert per aggregate row they add to, summed in
// memory first. Records already stored (a batch retried after a commit
// whose answer was lost) are skipped, with their aggregates, so a retry
// never counts a record twice.
func (a *Audit) writeBatch(ctx context.Context, batch []queued) error {
	var entries []*audit.Entry
	var usage []*audit.UsageRecord
	for _, q := range batch {
		if q.e != nil {
			entries = append(entries, q.e)
		} else {
			usage = append(usage, q.u)
		}
	}
	tx, err := a.db.Pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background()) //nolint:errcheck // a no-op after Commit
	if len(entries) > 0 {
		if err := insertEntries(ctx, tx, entries); err != nil {
			return err
		}
	}
	if len(usage) > 0 {
		if err := insertUsage(ctx, tx, usage); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

// insertEntries inserts entries that are not stored yet and adds those to
// their hour rows.
func insertEntries(ctx context.Context, tx pgx.Tx, entries []*audit.Entry) error {
	n := len(entries)
	var (
		ids, bodies                           = make([][]byte, n), make([][]byte, n)
		ts                                    = make([]time.Time, n)
		paths, sessions, reqModels, resModels = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		provNames, provTypes, searches, heads = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		statuses                              = make([]int32, n)
	)
	var sc bodyScratch
	for i, e := range entries {
		head, b, err := encodeEntry(e, &sc)
		if err != nil {
			return err
		}
		ids[i], ts[i], heads[i], bodies[i] = e.ID[:], e.ID.Time(), string(head), b
		paths[i], sessions[i] = cleanText(e.UserPath), cleanText(e.SessionID)
		reqModels[i], resModels[i] = cleanText(e.RequestedModel), cleanText(e.ResolvedModel)
		provNames[i], provTypes[i] = cleanText(e.ProviderName), cleanText(e.Provider)
		statuses[i] = int32(min(max(0, e.StatusCode), 1<<30))
		searches[i] = searchText(e)
	}
	rows, err := tx.Query(ctx, `INSERT INTO mg_audit_entries (id, ts, user_path, session_id, req_model, res_model,
			provider_name, provider_type, status, search, head, bodies)
		SELECT u.id, u.ts, u.p, u.s, u.rq, u.rs, u.pn, u.pt, u.st, u.se, u.h::json, u.b
		FROM unnest($1::bytea[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
			$8::text[], $9::int[], $10::text[], $11::text[], $12::bytea[])
			AS u(id, ts, p, s, rq, rs, pn, pt, st, se, h, b)
		ON CONFLICT (id) DO NOTHING
		RETURNING id`,
		ids, ts, paths, sessions, reqModels, resModels, provNames, provTypes, statuses, searches, heads, bodies)
	if err != nil {
		return err
	}
	inserted, err := collectIDs(rows)
	if err != nil {
		return err
	}
	hours := map[auditHourKey]*audit.AuditHour{}
	for _, e := range entries {
		if !inserted[e.ID] {
			continue
		}
		delete(inserted, e.ID) // a record twice in one batch adds once
		h := audit.AuditHourOf(e)
		k := auditHourKey{h.Hour.UnixMilli(), cleanText(h.Provider)}
		if sum, ok := hours[k]; ok {
			sum.Add(h)
		} else {
			h.Provider = k.provider
			hours[k] = &h
		}
	}
	return upsertAuditHours(ctx, tx, hours)
}

// collectIDs reads the ids RETURNING gave.
func collectIDs(rows pgx.Rows) (map[audit.ID]bool, error) {
	out := map[audit.ID]bool{}
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			rows.Close()
			return nil, err
		}
		out[audit.ID(b)] = true
	}
	return out, rows.Err()
}

// auditHourKey identifies an AuditHour row.
type auditHourKey struct {
	hour     int64
	provider string
}

// upsertAuditHours adds the sums to their rows, in key order (so that
// concurrent writers lock rows in one order and never deadlock).
func upsertAuditHours(ctx context.Context, tx pgx.Tx, hours map[auditHourKey]*audit.AuditHour) error {
	if len(hours) == 0 {
		return nil
	}
	keys := make([]auditHourKey, 0, len(hours))
	for k := range hours {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y auditHourKey) int {
		if x.hour != y.hour {
			return cmp.Compare(x.hour, y.hour)
		}
		return strings.Compare(x.provider, y.provider)
	})
	n := len(keys)
	hs, provs := make([]time.Time, n), make([]string, n)
	cols := make([][]int64, 8)
	for i := range cols {
		cols[i] = make([]int64, n)
	}
	for i, k := range keys {
		h := hours[k]
		hs[i], provs[i] = h.Hour, h.Provider
		for j, v := range [...]int64{h.Requests, h.Status2xx, h.Status4xx, h.Status5xx, h.StatusOther,
			h.DurationNs, h.LatencyCount, h.LatencyNs} {
			cols[j][i] = v
		}
	}
	_, err := tx.Exec(ctx, `INSERT INTO mg_audit_hours AS t (hour, provider, requests, status_2xx, status_4xx,
			status_5xx, status_other, duration_ns, latency_count, latency_ns)
		SELECT * FROM unnest($1::timestamptz[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[],
			$6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[])
		ON CONFLICT (hour, provider) DO UPDATE SET
			`+auditHourSums,
		hs, provs, cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], cols[6], cols[7])
	return err
}

// insertUsage inserts usage records that are not stored yet and adds
// those to their hour and day rows and their sessions.
func insertUsage(ctx context.Context, tx pgx.Tx, recs []*audit.UsageRecord) error {
	n := len(recs)
	ids, ts, paths, bodies := make([][]byte, n), make([]time.Time, n), make([]string, n), make([]string, n)
	for i, r := range recs {
		b, err := records.EncodeUsageJSON(r)
		if err != nil {
			return store.Unstorable("encoding", fmt.Errorf("postgres: %w", err))
		}
		ids[i], ts[i], paths[i], bodies[i] = r.ID[:], r.ID.Time(), cleanText(r.UserPath), string(b)
	}
	rows, err := tx.Query(ctx, `INSERT INTO mg_usage_records (id, ts, user_path, record)
		SELECT u.id, u.ts, u.p, u.r::json FROM unnest($1::bytea[], $2::timestamptz[], $3::text[], $4::text[]) AS u(id, ts, p, r)
		ON CONFLICT (id) DO NOTHING
		RETURNING id`, ids, ts, paths, bodies)
	if err != nil {
		return err
	}
	inserted, err := collectIDs(rows)
	if err != nil {
		return err
	}
	hours, days := map[usageAggKey]*audit.UsageAggregate{}, map[usageAggKey]*audit.UsageAggregate{}
	sessions := map[sessionKey]*audit.SessionTotals{}
	bdHours, bdDays, bdMonths := map[breakdownKey]*audit.BreakdownRow{}, map[breakdownKey]*audit.BreakdownRow{}, map[breakdownKey]*audit.BreakdownRow{}
	for _, r := range recs {
		if !inserted[r.ID] {
			continue
		}
		delete(inserted, r.ID) // a record twice in one batch adds once
		for _, g := range [...]struct {
			gr audit.Granularity
			m  map[usageAggKey]*audit.UsageAggregate
		}{{audit.Hourly, hours}, {audit.Daily, days}} {
			k := usageAggKey{g.gr.Truncate(r.ID.Time()).Unix(), cleanText(r.UserPath), cleanText(r.ProviderName), cleanText(r.Model)}
			sum, ok := g.m[k]
			if !ok {
				sum = &audit.UsageAggregate{Start: time.Unix(k.start, 0).UTC(), UserPath: k.path, Provider: k.provider, Model: k.model}
				g.m[k] = sum
			}
			sum.AddRecord(r)
		}
		for _, g := range [...]struct {
			gr audit.Granularity
			m  map[breakdownKey]*audit.BreakdownRow
		}{{audit.Hourly, bdHours}, {audit.Daily, bdDays}, {audit.Monthly, bdMonths}} {
			addBreakdown(g.m, g.gr, r)
		}
		if r.SessionID != "" {
			k := sessionKey{cleanText(r.UserPath), cleanText(r.SessionID)}
			s, ok := sessions[k]
			if !ok {
				s = new(audit.SessionTotals)
				sessions[k] = s
			}
			s.AddRecord(r)
		}
	}
	for _, t := range [...]struct {
		table string
		rows  map[usageAggKey]*audit.UsageAggregate
	}{{"mg_usage_hours", hours}, {"mg_usage_days", days}} {
		if err := upsertUsageAggs(ctx, tx, t.table, t.rows); err != nil {
			return err
		}
	}
	for _, t := range [...]struct {
		table string
		rows  map[breakdownKey]*audit.BreakdownRow
	}{{"mg_usage_breakdown_hours", bdHours}, {"mg_usage_breakdown_days", bdDays}, {"mg_usage_breakdown_months", bdMonths}} {
		if err := upsertBreakdown(ctx, tx, t.table, t.rows); err != nil {
			return err
		}
	}
	return upsertSessions(ctx, tx, sessions)
}

// The SET lists of the aggregate upserts: each row's sums added to the
// stored ones, saturating (addedSums).
var (
	auditHourSums = addedSums("requests", "status_2xx", "status_4xx", "status_5xx", "status_other",
		"duration_ns", "latency_count", "latency_ns")
	usageAggSums = addedSums("requests", "cache_hits", "unpriced", "input_tokens", "output_tokens",
		"total_tokens", "cached_input_tokens", "cache_write_input_tokens", "reasoning_tokens", "cost_nanos")
	sessionSums = addedSums("requests", "cache_hits", "input_tokens", "output_tokens", "total_tokens",
		"cached_input_tokens", "cache_write_input_tokens", "reasoning_tokens", "cost_nanos")
)

// usageAggKey identifies a UsageAggregate row.
type usageAggKey struct {
	start                 int64
	path, provider, model string
}

// sessionKey identifies a session.
type sessionKey struct{ path, id string }

// upsertUsageAggs adds the sums to their rows of table, in key order.
func upsertUsageAggs(ctx context.Context, tx pgx.Tx, table string, rows map[usageAggKey]*audit.UsageAggregate) error {
	if len(rows) == 0 {
		return nil
	}
	keys := make([]usageAggKey, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y usageAggKey) int {
		if x.start != y.start {
			return cmp.Compare(x.start, y.start)
		}
		if c := strings.Compare(x.path, y.path); c != 0 {
			return c
		}
		if c := strings.Compare(x.provider, y.provider); c != 0 {
			return c
		}
		return strings.Compare(x.model, y.model)
	})
	n := len(keys)
	starts, paths, provs, models, costs := make([]time.Time, n), make([]string, n), make([]string, n), make([]string, n), make([]int64, n)
	cols := make([][]int64, 9)
	for i := range cols {
		cols[i] = make([]int64, n)
	}
	for i, k := range keys {
		r := rows[k]
		starts[i], paths[i], provs[i], models[i], costs[i] = r.Start, k.path, k.provider, k.model, int64(r.Cost)
		u := &r.Tokens
		for j, v := range [...]int64{r.Requests, r.CacheHits, r.Unpriced, u.InputTokens, u.OutputTokens,
			u.TotalTokens, u.CachedInputTokens, u.CacheWriteInputTokens, u.ReasoningTokens} {
			cols[j][i] = v
		}
	}
	_, err := tx.Exec(ctx, `INSERT INTO `+table+` AS t (start, user_path, provider, model, requests, cache_hits,
			unpriced, input_tokens, output_tokens, total_tokens, cached_input_tokens, cache_write_input_tokens,
			reasoning_tokens, cost_nanos)
		SELECT * FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[],
			$7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[],
			$14::bigint[])
		ON CONFLICT (start, user_path, provider, model) DO UPDATE SET
			`+usageAggSums,
		starts, paths, provs, models, cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], cols[6], cols[7], cols[8], costs)
	return err
}

// upsertSessions adds each session's batch totals to its row, in key
// order. Models keep their order of first use, at most
// audit.MaxSessionModels.
func upsertSessions(ctx context.Context, tx pgx.Tx, sessions map[sessionKey]*audit.SessionTotals) error {
	if len(sessions) == 0 {
		return nil
	}
	keys := make([]sessionKey, 0, len(sessions))
	for k := range sessions {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y sessionKey) int {
		if c := strings.Compare(x.path, y.path); c != 0 {
			return c
		}
		return strings.Compare(x.id, y.id)
	})
	n := len(keys)
	paths, sids, models := make([]string, n), make([]string, n), make([]string, n)
	firsts, lasts, costs := make([]time.Time, n), make([]time.Time, n), make([]int64, n)
	cols := make([][]int64, 8)
	for i := range cols {
		cols[i] = make([]int64, n)
	}
	for i, k := range keys {
		s := sessions[k]
		ms := make([]string, len(s.Models))
		for j, m := range s.Models {
			ms[j] = cleanText(m)
		}
		mj, err := json.Marshal(ms)
		if err != nil {
			return err
		}
		paths[i], sids[i], models[i] = k.path, k.id, string(mj)
		firsts[i], lasts[i], costs[i] = s.FirstSeen, s.LastSeen, int64(s.Cost)
		u := &s.Usage
		for j, v := range [...]int64{s.Requests, s.CacheHits, u.InputTokens, u.OutputTokens,
			u.TotalTokens, u.CachedInputTokens, u.CacheWriteInputTokens, u.ReasoningTokens} {
			cols[j][i] = v
		}
	}
	_, err := tx.Exec(ctx, `INSERT INTO mg_usage_sessions AS t (user_path, session_id, first_seen, last_seen,
			requests, cache_hits, input_tokens, output_tokens, total_tokens, cached_input_tokens,
			cache_write_input_tokens, reasoning_tokens, cost_nanos, models)
		SELECT u.p, u.s, u.f, u.l, u.r, u.ch, u.i, u.o, u.t, u.ci, u.cw, u.rt, u.c,
			ARRAY(SELECT json_array_elements_text(u.m::json))
		FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::bigint[], $6::bigint[],
			$7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[],
			$14::text[]) AS u(p, s, f, l, r, ch, i, o, t, ci, cw, rt, c, m)
		ON CONFLICT (user_path, session_id) DO UPDATE SET
			first_seen = least(t.first_seen, EXCLUDED.first_seen),
			last_seen = greatest(t.last_seen, EXCLUDED.last_seen),
			`+sessionSums+`,
			models = ARRAY(SELECT x.m FROM unnest(t.models || EXCLUDED.models) WITH ORDINALITY AS x(m, o)
				GROUP BY x.m ORDER BY min(x.o) LIMIT `+fmt.Sprint(audit.MaxSessionModels)+`)`,
		paths, sids, firsts, lasts, cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], cols[6], cols[7], costs, models)
	return err
}
