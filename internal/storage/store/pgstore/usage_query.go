package pgstore

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/storage/records"
)

// aggTable returns the table of a granularity's rows.
func aggTable(g audit.Granularity) string {
	if g == audit.Daily {
		return "mg_usage_days"
	}
	return "mg_usage_hours"
}

// UsageAggregates returns the rows of granularity g whose period starts in
// [from, to), in time order; zero bounds are open.
func (a *Audit) UsageAggregates(g audit.Granularity, from, to time.Time) ([]audit.UsageAggregate, error) {
	ctx, cancel := readCtx()
	defer cancel()
	return usageAggregates(ctx, a.db.Pool, g, from, to)
}

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// usageAggregates is UsageAggregates through q.
func usageAggregates(ctx context.Context, q querier, g audit.Granularity, from, to time.Time) ([]audit.UsageAggregate, error) {
	var w where
	w.hourRange("start", from, to)
	rows, err := q.Query(ctx, `SELECT start, user_path, provider, model, requests, cache_hits, unpriced,
		input_tokens, output_tokens, total_tokens, cached_input_tokens, cache_write_input_tokens, reasoning_tokens, cost_nanos
		FROM `+aggTable(g)+w.sql()+` ORDER BY start, user_path, provider, model`, w.args...)
	if err != nil {
		return nil, classify(fmt.Errorf("postgres: reading usage aggregates: %w", err))
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (audit.UsageAggregate, error) {
		var x audit.UsageAggregate
		u := &x.Tokens
		err := r.Scan(&x.Start, &x.UserPath, &x.Provider, &x.Model, &x.Requests, &x.CacheHits, &x.Unpriced,
			&u.InputTokens, &u.OutputTokens, &u.TotalTokens, &u.CachedInputTokens, &u.CacheWriteInputTokens,
			&u.ReasoningTokens, (*int64)(&x.Cost))
		x.Start = x.Start.UTC()
		return x, err
	})
	if err != nil {
		return nil, classify(fmt.Errorf("postgres: reading usage aggregates: %w", err))
	}
	return out, nil
}

// UsageRecords calls fn for every record made in [from, to), oldest first,
// until fn returns false. Zero bounds are open.
func (a *Audit) UsageRecords(from, to time.Time, fn func(*audit.UsageRecord) bool) error {
	ctx, cancel := readCtx()
	defer cancel()
	return usageRecords(ctx, a.db.Pool, from, to, fn)
}

// usageRecords is UsageRecords through q.
func usageRecords(ctx context.Context, q querier, from, to time.Time, fn func(*audit.UsageRecord) bool) error {
	var w where
	w.idRange(from, to)
	rows, err := q.Query(ctx, `SELECT record FROM mg_usage_records`+w.sql()+` ORDER BY id`, w.args...)
	if err != nil {
		return classify(fmt.Errorf("postgres: reading usage records: %w", err))
	}
	defer rows.Close()
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return classify(fmt.Errorf("postgres: reading usage records: %w", err))
		}
		r, err := records.DecodeUsageJSON(b)
		if err != nil {
			return classify(fmt.Errorf("postgres: %w", err))
		}
		if !fn(r) {
			return nil
		}
	}
	if err := rows.Err(); err != nil {
		return classify(fmt.Errorf("postgres: reading usage records: %w", err))
	}
	return nil
}

// sessionCursor is the position after the last session of a page: its
// latest activity and key.
type sessionCursor struct {
	LastSeen int64  `json:"t"` // Unix microseconds
	UserPath string `json:"p"`
	Session  string `json:"s"`
}

// cursorEncoding encodes session cursors.
var cursorEncoding = base64.RawURLEncoding

// decodeCursor parses a cursor issued by Sessions.
func decodeCursor(s string) (sessionCursor, error) {
	var c sessionCursor
	b, err := cursorEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &c) != nil || c.LastSeen <= 0 {
		return c, audit.ErrBadCursor
	}
	return c, nil
}

// Sessions returns sessions whose last activity lies in [q.From, q.To),
// most recent first (then by user path and session id, descending),
// continuing after q.Cursor, and the next page's cursor ("" after the last
// page). With q.UserPath set, only sessions of that path and the paths
// below it count; with q.Model, only sessions that used that model.
func (a *Audit) Sessions(q audit.SessionQuery) ([]audit.SessionTotals, string, error) {
	var w where
	if q.Cursor != "" {
		c, err := decodeCursor(q.Cursor)
		if err != nil {
			return nil, "", err
		}
		w.add("(last_seen, user_path, session_id) < (?, ?, ?)", time.UnixMicro(c.LastSeen).UTC(), c.UserPath, c.Session)
	}
	w.hourRange("last_seen", q.From, q.To)
	if q.UserPath != "" && q.UserPath != "/" {
		p := cleanText(q.UserPath)
		w.add("(user_path = ? OR starts_with(user_path, ?))", p, p+"/")
	}
	if q.Model != "" {
		w.add("? = ANY(models)", cleanText(q.Model))
	}
	limit := max(0, q.Limit)
	ctx, cancel := readCtx()
	defer cancel()
	rows, err := a.db.Pool.Query(ctx, `SELECT user_path, session_id, first_seen, last_seen, requests, cache_hits,
		input_tokens, output_tokens, total_tokens, cached_input_tokens, cache_write_input_tokens, reasoning_tokens,
		cost_nanos, models FROM mg_usage_sessions`+w.sql()+` ORDER BY last_seen DESC, user_path DESC, session_id DESC
		LIMIT `+fmt.Sprint(limit+1), w.args...)
	if err != nil {
		return nil, "", classify(fmt.Errorf("postgres: reading sessions: %w", err))
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (audit.SessionTotals, error) {
		var s audit.SessionTotals
		u := &s.Usage
		err := r.Scan(&s.UserPath, &s.SessionID, &s.FirstSeen, &s.LastSeen, &s.Requests, &s.CacheHits,
			&u.InputTokens, &u.OutputTokens, &u.TotalTokens, &u.CachedInputTokens, &u.CacheWriteInputTokens,
			&u.ReasoningTokens, (*int64)(&s.Cost), &s.Models)
		s.FirstSeen, s.LastSeen = s.FirstSeen.UTC(), s.LastSeen.UTC()
		if s.Models == nil {
			s.Models = []string{}
		}
		return s, err
	})
	if err != nil {
		return nil, "", classify(fmt.Errorf("postgres: reading sessions: %w", err))
	}
	if len(out) <= limit {
		return out, "", nil
	}
	out = out[:limit]
	if limit == 0 {
		return out, "", nil
	}
	last := &out[limit-1]
	b, _ := json.Marshal(sessionCursor{LastSeen: last.LastSeen.UnixMicro(), UserPath: last.UserPath, Session: last.SessionID})
	return out, cursorEncoding.EncodeToString(b), nil
}

// DeleteUsageBefore deletes up to max of the oldest usage records made
// before cutoff, and up to max sessions whose last activity is before
// cutoff, in one transaction, and returns how many records and sessions it
// deleted. Hour rows of hours that end at or before cutoff go with them;
// day rows are kept, so summaries outlive the records.
func (a *Audit) DeleteUsageBefore(cutoff time.Time, max int) (int, error) {
	if max <= 0 {
		return 0, nil
	}
	ctx, cancel := readCtx()
	defer cancel()
	n := 0
	err := pgx.BeginFunc(ctx, a.db.Pool, func(tx pgx.Tx) error {
		hi := audit.MinID(cutoff)
		tag, err := tx.Exec(ctx, `DELETE FROM mg_usage_records WHERE id IN (
			SELECT id FROM mg_usage_records WHERE id < $1 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)`, hi[:], max)
		if err != nil {
			return err
		}
		n = int(tag.RowsAffected())
		if _, err := tx.Exec(ctx, `DELETE FROM mg_usage_hours WHERE start < $1`, cutoff.UTC().Truncate(time.Hour)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM mg_usage_breakdown_hours WHERE start < $1`, cutoff.UTC().Truncate(time.Hour)); err != nil {
			return err
		}
		tag, err = tx.Exec(ctx, `DELETE FROM mg_usage_sessions WHERE (user_path, session_id) IN (
			SELECT user_path, session_id FROM mg_usage_sessions WHERE last_seen < $1
			ORDER BY last_seen LIMIT $2 FOR UPDATE SKIP LOCKED)`, cutoff, max)
		if err != nil {
			return err
		}
		n += int(tag.RowsAffected())
		return nil
	})
	if err != nil {
		return 0, classify(fmt.Errorf("postgres: deleting usage records: %w", err))
	}
	return n, nil
}
