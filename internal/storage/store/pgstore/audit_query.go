package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// readTimeout bounds one read of the audit storage.
const readTimeout = 30 * time.Second

// readCtx returns the context of one read.
func readCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), readTimeout)
}

// Entry returns the entry with that id, bodies included, or
// audit.ErrNotFound.
func (a *Audit) Entry(id audit.ID) (*audit.Entry, error) {
	ctx, cancel := readCtx()
	defer cancel()
	var head, bodies, reqBody []byte
	err := a.db.Pool.QueryRow(ctx, `SELECT head, bodies, request_body FROM mg_audit_entries WHERE id = $1`,
		id[:]).Scan(&head, &bodies, &reqBody)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, audit.ErrNotFound
	}
	if err != nil {
		return nil, classify(fmt.Errorf("postgres: reading audit entry: %w", err))
	}
	e, err := decodeHead(head)
	if err != nil {
		return nil, err
	}
	if err := restoreBodies(e, reqBody, bodies); err != nil {
		return nil, err
	}
	return e, nil
}

// where builds the WHERE clause of a list query.
type where struct {
	conds []string
	args  []any
}

// add adds a condition; each "?" in it becomes the next of vals.
func (w *where) add(cond string, vals ...any) {
	for _, v := range vals {
		w.args = append(w.args, v)
		cond = strings.Replace(cond, "?", "$"+strconv.Itoa(len(w.args)), 1)
	}
	w.conds = append(w.conds, cond)
}

// sql returns the clause, "" without conditions.
func (w *where) sql() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// idRange adds the id bounds of entries made in [from, to) to w.
func (w *where) idRange(from, to time.Time) {
	if !from.IsZero() {
		lo := audit.MinID(from)
		w.add("id >= ?", lo[:])
	}
	if !to.IsZero() {
		hi := audit.MinID(to)
		w.add("id < ?", hi[:])
	}
}

// ListEntries returns the entries matching q, newest first, without
// bodies, and how many match in all. Without filters and with bounds on
// whole hours (or open), the total is summed from the hour rows; else it
// counts the matching entries.
func (a *Audit) ListEntries(q audit.EntryQuery) (audit.EntryPage, error) {
	var w where
	w.idRange(q.From, q.To)
	filtered := false
	if q.SessionID != "" {
		w.add("session_id = ?", cleanText(q.SessionID))
		filtered = true
	}
	if q.Model != "" {
		w.add("(req_model = ? OR res_model = ?)", cleanText(q.Model), cleanText(q.Model))
		filtered = true
	}
	if q.UserPath != "" {
		w.add("user_path = ?", cleanText(q.UserPath))
		filtered = true
	}
	if q.UserPathUnder != "" {
		p := cleanText(q.UserPathUnder)
		w.add(`(user_path = ? OR user_path LIKE ?)`, p, likeEscaper.Replace(p)+"/%")
		filtered = true
	}
	if q.Provider != "" {
		w.add("(provider_name = ? OR provider_type = ?)", cleanText(q.Provider), cleanText(q.Provider))
		filtered = true
	}
	switch {
	case q.StatusCode != 0:
		w.add("status = ?", int32(min(max(0, q.StatusCode), 1<<30)))
		filtered = true
	case q.StatusClass != 0:
		w.add("status >= ? AND status < ?", int32(q.StatusClass*100), int32(q.StatusClass*100+100))
		filtered = true
	}
	if len(q.StatusAny) > 0 {
		var alts []string
		for _, st := range q.StatusAny {
			if st < 10 {
				alts = append(alts, fmt.Sprintf("(status >= %d AND status < %d)", st*100, st*100+100))
			} else {
				alts = append(alts, fmt.Sprintf("status = %d", st))
			}
		}
		w.add("(" + strings.Join(alts, " OR ") + ")")
		filtered = true
	}
	if q.ModelContains != "" {
		m := "%" + likeEscaper.Replace(cleanText(strings.ToLower(q.ModelContains))) + "%"
		w.add("(lower(req_model) LIKE ? OR lower(res_model) LIKE ?)", m, m)
		filtered = true
	}
	// The key id and the error code are lines of the search text, which
	// the trigram index serves; the head says which field holds them.
	if q.KeyID != "" {
		w.add(`search LIKE ?`, "%"+likeEscaper.Replace(cleanText(strings.ToLower(q.KeyID)))+"%")
		w.add(`head->>'auth_key_id' = ?`, cleanText(q.KeyID))
		filtered = true
	}
	if q.ErrorCode != "" {
		w.add(`search LIKE ?`, "%"+likeEscaper.Replace(cleanText(strings.ToLower(q.ErrorCode)))+"%")
		w.add(`head->'data'->>'error_code' = ?`, cleanText(q.ErrorCode))
		filtered = true
	}
	if q.Search != "" {
		// LIKE, unlike strpos, can use the trigram index.
		w.add(`search LIKE ?`, "%"+likeEscaper.Replace(cleanText(strings.ToLower(q.Search)))+"%")
		filtered = true
	}
	ctx, cancel := readCtx()
	defer cancel()
	var page audit.EntryPage
	limit, offset := max(0, q.Limit), max(0, q.Offset)
	rows, err := a.db.Pool.Query(ctx, `SELECT head FROM mg_audit_entries`+w.sql()+
		` ORDER BY id DESC LIMIT `+strconv.Itoa(limit)+` OFFSET `+strconv.Itoa(offset), w.args...)
	if err != nil {
		return page, classify(fmt.Errorf("postgres: listing audit entries: %w", err))
	}
	page.Entries = make([]*audit.Entry, 0, limit)
	for rows.Next() {
		var head []byte
		if err := rows.Scan(&head); err != nil {
			rows.Close()
			return page, classify(fmt.Errorf("postgres: listing audit entries: %w", err))
		}
		e, err := decodeHead(head)
		if err != nil {
			rows.Close()
			return page, err
		}
		page.Entries = append(page.Entries, e)
	}
	if err := rows.Err(); err != nil {
		return page, classify(fmt.Errorf("postgres: listing audit entries: %w", err))
	}
	if !filtered && hourAligned(q.From) && hourAligned(q.To) {
		var hw where
		hw.hourRange("hour", q.From, q.To)
		err = a.db.Pool.QueryRow(ctx, `SELECT least(coalesce(sum(requests), 0), 9223372036854775807)::bigint FROM mg_audit_hours`+hw.sql(), hw.args...).Scan(&page.Total)
	} else if got := len(page.Entries); got > 0 && got < limit || got == 0 && offset == 0 && limit > 0 {
		// A short page is the last one: the matches are those skipped and
		// those on it.
		page.Total = offset + got
	} else {
		err = a.db.Pool.QueryRow(ctx, `SELECT count(*) FROM mg_audit_entries`+w.sql(), w.args...).Scan(&page.Total)
	}
	if err != nil {
		return page, classify(fmt.Errorf("postgres: counting audit entries: %w", err))
	}
	return page, nil
}

// likeEscaper makes text match itself in a LIKE pattern (whose escape
// character is the backslash).
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// hourAligned reports whether t is an open bound or on a whole hour.
func hourAligned(t time.Time) bool {
	return t.IsZero() || t.Equal(t.Truncate(time.Hour))
}

// hourRange adds the bounds [from, to) of a time column to w; zero bounds
// are open.
func (w *where) hourRange(col string, from, to time.Time) {
	if !from.IsZero() {
		w.add(col+" >= ?", from)
	}
	if !to.IsZero() {
		w.add(col+" < ?", to)
	}
}

// AuditHours returns the hour rows whose hour lies in [from, to), in hour
// order; zero bounds are open.
func (a *Audit) AuditHours(from, to time.Time) ([]audit.AuditHour, error) {
	var w where
	w.hourRange("hour", from, to)
	ctx, cancel := readCtx()
	defer cancel()
	rows, err := a.db.Pool.Query(ctx, `SELECT hour, provider, requests, status_2xx, status_4xx, status_5xx,
		status_other, duration_ns, latency_count, latency_ns FROM mg_audit_hours`+w.sql()+` ORDER BY hour, provider`, w.args...)
	if err != nil {
		return nil, classify(fmt.Errorf("postgres: reading audit hours: %w", err))
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (audit.AuditHour, error) {
		var h audit.AuditHour
		err := r.Scan(&h.Hour, &h.Provider, &h.Requests, &h.Status2xx, &h.Status4xx, &h.Status5xx,
			&h.StatusOther, &h.DurationNs, &h.LatencyCount, &h.LatencyNs)
		h.Hour = h.Hour.UTC()
		return h, err
	})
	if err != nil {
		return nil, classify(fmt.Errorf("postgres: reading audit hours: %w", err))
	}
	return out, nil
}

// SessionEntryIDs returns the ids of the entries of one session of one
// user path, oldest first.
func (a *Audit) SessionEntryIDs(userPath, sessionID string) ([]audit.ID, error) {
	ctx, cancel := readCtx()
	defer cancel()
	rows, err := a.db.Pool.Query(ctx, `SELECT id FROM mg_audit_entries WHERE session_id = $1 AND user_path = $2 ORDER BY id`,
		cleanText(sessionID), cleanText(userPath))
	if err != nil {
		return nil, classify(fmt.Errorf("postgres: reading session entries: %w", err))
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (audit.ID, error) {
		var b []byte
		err := r.Scan(&b)
		if err == nil && len(b) != len(audit.ID{}) {
			err = errCorrupt
		}
		return audit.ID(b), err
	})
	if err != nil {
		return nil, classify(fmt.Errorf("postgres: reading session entries: %w", err))
	}
	return out, nil
}

// DeleteEntriesBefore deletes up to max of the oldest entries made before
// cutoff in one transaction and returns how many it deleted. Hour rows of
// hours that end at or before cutoff go in the same transaction. Entries
// another process is deleting at the same time are skipped.
func (a *Audit) DeleteEntriesBefore(cutoff time.Time, max int) (int, error) {
	ctx, cancel := readCtx()
	defer cancel()
	n := 0
	err := pgx.BeginFunc(ctx, a.db.Pool, func(tx pgx.Tx) error {
		if max > 0 {
			hi := audit.MinID(cutoff)
			tag, err := tx.Exec(ctx, `DELETE FROM mg_audit_entries WHERE id IN (
				SELECT id FROM mg_audit_entries WHERE id < $1 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)`, hi[:], max)
			if err != nil {
				return err
			}
			n = int(tag.RowsAffected())
		}
		_, err := tx.Exec(ctx, `DELETE FROM mg_audit_hours WHERE hour < $1`, cutoff.UTC().Truncate(time.Hour))
		return err
	})
	if err != nil {
		return 0, classify(fmt.Errorf("postgres: deleting audit entries: %w", err))
	}
	return n, nil
}
