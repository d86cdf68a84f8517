package audit

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/request/userpath"
)

// Session list limits.
const (
	// DefaultSessionsLimit is the page size of a session list that names
	// none.
	DefaultSessionsLimit = 50
	// MaxSessionsLimit is the largest page size; larger limits are
	// clamped.
	MaxSessionsLimit = 200
)

// UsageQueries answers the usage reads over UsageStorage. Summaries and
// period lists read only the daily aggregates; spend reads daily and
// hourly aggregates and the raw records of at most one partial hour. With
// nil storage (usage tracking off) every read answers zeroed or empty,
// never an error.
type UsageQueries struct {
	st     UsageStorage
	now    func() time.Time
	settle settler
}

// NewUsageQueries returns the usage reads over st (nil: usage tracking
// off), with now as the clock (nil: time.Now).
func NewUsageQueries(st UsageStorage, now func() time.Time) *UsageQueries {
	if now == nil {
		now = time.Now
	}
	return &UsageQueries{st: st, now: now}
}

// UsageSummary totals the usage of a window.
type UsageSummary struct {
	// TotalRequests counts requests, response-cache hits included.
	TotalRequests int64 `json:"total_requests"`
	// TotalInputTokens sums input tokens.
	TotalInputTokens int64 `json:"total_input_tokens"`
	// TotalOutputTokens sums output tokens.
	TotalOutputTokens int64 `json:"total_output_tokens"`
	// TotalTokens sums all tokens.
	TotalTokens int64 `json:"total_tokens"`
	// CachedInputTokens sums input tokens read from a provider cache.
	CachedInputTokens int64 `json:"cached_input_tokens"`
	// CacheWriteInputTokens sums input tokens written to a provider cache.
	CacheWriteInputTokens int64 `json:"cache_write_input_tokens"`
	// TotalCost sums the spend: priced requests that reached a provider.
	TotalCost catalog.Amount `json:"total_cost"`
	// StartDate is the window's first day, YYYY-MM-DD.
	StartDate string `json:"start_date"`
	// EndDate is the window's last day, YYYY-MM-DD.
	EndDate string `json:"end_date"`
}

// dailyRows returns the daily aggregates of w that f keeps. Without a key
// filter they are the usage aggregates, which go back to the first
// record; a key filter needs the breakdown rows, which carry keys (and
// start with the version that added them).
func (uq *UsageQueries) dailyRows(w Window, f UsageFilter) ([]UsageAggregate, error) {
	if uq.st == nil {
		return nil, nil
	}
	uq.settle.settle(uq.st)
	if f.KeyID != "" {
		bs, err := uq.st.Breakdown(BreakdownSelect{Granularity: Daily, From: w.Start, To: w.End, Filter: f})
		rows := make([]UsageAggregate, len(bs))
		for i := range bs {
			b := &bs[i]
			rows[i] = UsageAggregate{Start: b.Start, UserPath: b.UserPath, Provider: b.Provider, Model: b.Model,
				Requests: b.Requests, CacheHits: b.CacheHits, Tokens: b.Tokens, Cost: b.Cost,
				Unpriced: max(0, b.Requests-b.CacheHits-b.Priced)}
		}
		return rows, err
	}
	rows, err := uq.st.UsageAggregates(Daily, w.Start, w.End)
	if err != nil || f.IsZero() {
		return rows, err
	}
	return slices.DeleteFunc(rows, func(r UsageAggregate) bool { return !f.Keeps(r.UserPath, "", r.Provider, r.Model) }), nil
}

// Summary totals the usage of w that f keeps.
func (uq *UsageQueries) Summary(w Window, f UsageFilter) (UsageSummary, error) {
	s := UsageSummary{StartDate: w.StartDate(), EndDate: w.EndDate()}
	rows, err := uq.dailyRows(w, f)
	if err != nil {
		return s, err
	}
	var t UsageAggregate
	for _, r := range rows {
		t.Add(r)
	}
	s.TotalRequests, s.TotalCost = t.Requests, t.Cost.Amount()
	s.TotalInputTokens, s.TotalOutputTokens, s.TotalTokens = t.Tokens.InputTokens, t.Tokens.OutputTokens, t.Tokens.TotalTokens
	s.CachedInputTokens, s.CacheWriteInputTokens = t.Tokens.CachedInputTokens, t.Tokens.CacheWriteInputTokens
	return s, nil
}

// Interval groups usage periods.
type Interval string

// Usage period intervals and the form of their dates.
const (
	// IntervalDaily dates are YYYY-MM-DD.
	IntervalDaily Interval = "daily"
	// IntervalWeekly dates are ISO weeks, YYYY-Www (weeks start on
	// Monday; the year is the ISO week's year).
	IntervalWeekly Interval = "weekly"
	// IntervalMonthly dates are YYYY-MM.
	IntervalMonthly Interval = "monthly"
	// IntervalYearly dates are YYYY.
	IntervalYearly Interval = "yearly"
)

// ParseInterval reads the interval parameter: daily (the default), weekly,
// monthly or yearly; anything else is a 400 error.
func ParseInterval(v url.Values) (Interval, error) {
	switch i := Interval(v.Get("interval")); i {
	case "":
		return IntervalDaily, nil
	case IntervalDaily, IntervalWeekly, IntervalMonthly, IntervalYearly:
		return i, nil
	}
	return "", badParam("interval", "interval must be daily, weekly, monthly or yearly")
}

// label returns the date of the period of interval i holding day t, and
// the period's start (for ordering).
func (i Interval) label(t time.Time) (string, time.Time) {
	switch i {
	case IntervalWeekly:
		y, wk := t.ISOWeek()
		monday := t.AddDate(0, 0, -((int(t.Weekday()) + 6) % 7))
		return fmt.Sprintf("%04d-W%02d", y, wk), monday
	case IntervalMonthly:
		return t.Format("2006-01"), time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	case IntervalYearly:
		return t.Format("2006"), time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return t.Format(time.DateOnly), t
}

// UsagePeriod is the usage of one period.
type UsagePeriod struct {
	// Date names the period: YYYY-MM-DD, YYYY-Www, YYYY-MM or YYYY.
	Date string `json:"date"`
	// Requests counts requests, response-cache hits included.
	Requests int64 `json:"requests"`
	// InputTokens sums input tokens.
	InputTokens int64 `json:"input_tokens"`
	// OutputTokens sums output tokens.
	OutputTokens int64 `json:"output_tokens"`
	// TotalTokens sums all tokens.
	TotalTokens int64 `json:"total_tokens"`
	// Cost sums the spend.
	Cost catalog.Amount `json:"cost"`
}

// Periods returns the usage of w that f keeps per period of interval i,
// newest first, only periods with usage. A period cut by the window counts
// only its days inside it.
func (uq *UsageQueries) Periods(w Window, i Interval, f UsageFilter) ([]UsagePeriod, error) {
	rows, err := uq.dailyRows(w, f)
	if err != nil {
		return []UsagePeriod{}, err
	}
	type acc struct {
		start time.Time
		p     UsagePeriod
		cost  catalog.Nanos
	}
	by := map[string]*acc{}
	for _, r := range rows {
		lbl, start := i.label(r.Start)
		a := by[lbl]
		if a == nil {
			a = &acc{start: start, p: UsagePeriod{Date: lbl}}
			by[lbl] = a
		}
		a.p.Requests = catalog.SaturatingAdd(a.p.Requests, r.Requests)
		a.p.InputTokens = catalog.SaturatingAdd(a.p.InputTokens, r.Tokens.InputTokens)
		a.p.OutputTokens = catalog.SaturatingAdd(a.p.OutputTokens, r.Tokens.OutputTokens)
		a.p.TotalTokens = catalog.SaturatingAdd(a.p.TotalTokens, r.Tokens.TotalTokens)
		a.cost = a.cost.Add(r.Cost)
	}
	accs := make([]*acc, 0, len(by))
	for _, a := range by {
		accs = append(accs, a)
	}
	slices.SortFunc(accs, func(a, b *acc) int { return b.start.Compare(a.start) })
	out := make([]UsagePeriod, len(accs))
	for k, a := range accs {
		out[k] = a.p
		out[k].Cost = a.cost.Amount()
	}
	return out, nil
}

// SessionPage is one page of the session list.
type SessionPage struct {
	// Sessions are ordered by latest activity, most recent first.
	Sessions []SessionTotals `json:"sessions"`
	// NextCursor fetches the next page; null on the last one.
	NextCursor *string `json:"next_cursor"`
}

// ParseSessionQuery reads limit (a positive integer, default
// DefaultSessionsLimit, clamped to MaxSessionsLimit), cursor, user_path,
// model and, when any is given, the window parameters (see ParseWindow), which
// then bound the sessions' latest activity. Bad values are 400 errors.
func ParseSessionQuery(v url.Values, now time.Time) (SessionQuery, error) {
	q := SessionQuery{Cursor: v.Get("cursor"), Model: v.Get("model")}
	for _, name := range []string{"key_id", "provider"} {
		if v.Has(name) {
			return q, badParam(name, "sessions are not kept per "+strings.TrimSuffix(name, "_id")+"; filter them by user_path or model")
		}
	}
	var err error
	if q.Limit, err = intParam(v, "limit", DefaultSessionsLimit, 1); err != nil {
		return q, err
	}
	q.Limit = min(q.Limit, MaxSessionsLimit)
	if p := v.Get("user_path"); p != "" {
		if q.UserPath, err = userpath.Normalize(p); err != nil {
			return q, badParam("user_path", err.Error())
		}
	}
	if HasWindow(v) {
		w, err := ParseWindow(v, now)
		if err != nil {
			return q, err
		}
		q.From, q.To = w.Start, w.End
	}
	return q, nil
}

// Sessions returns one page of sessions, most recent activity first. Each
// row counts response-cache hits in its requests and tokens but not in its
// cost. A cursor the storage did not issue is a 400 error.
func (uq *UsageQueries) Sessions(q SessionQuery) (SessionPage, error) {
	page := SessionPage{Sessions: []SessionTotals{}}
	if uq.st == nil {
		return page, nil
	}
	q.Limit = max(1, min(q.Limit, MaxSessionsLimit))
	uq.settle.settle(uq.st)
	rows, next, err := uq.st.Sessions(q)
	if errors.Is(err, ErrBadCursor) {
		return page, badParam("cursor", "cursor is not one this endpoint returned")
	}
	if err != nil {
		return page, err
	}
	if rows != nil {
		page.Sessions = rows
	}
	if next != "" {
		page.NextCursor = &next
	}
	return page, nil
}

// Totals returns the usage of userPath and the paths below it ("" for all)
// since the instant since, up to now: daily aggregates for whole days,
// hourly ones for the whole hours before them, raw records only for the
// part of an hour since starts in.
func (uq *UsageQueries) Totals(userPath string, since time.Time) (UsageAggregate, error) {
	uq.settle.settle(uq.st)
	var t UsageAggregate
	err := uq.eachSince(since, func(path string, a UsageAggregate) {
		if userPath == "" || userpath.Covers(userPath, path) {
			t.Add(a)
		}
	})
	return t, err
}

// SpendSince returns the spend (total_cost of priced usage records that
// reached a provider; response-cache hits excluded) since the instant
// since. Without perChild the map holds one element, prefix → the spend of
// prefix and every path below it. With perChild it holds one element per
// direct child of prefix that spent something, the child's path → the
// spend of the child and the paths below it; prefix's own spend is not
// counted. When the storage queues its writes (a flusher), records still
// queued are committed first, so the answer includes every record written
// so far; unlike the reads' settle, a commit that fails fails the answer,
// so that a budget is never checked against a partial spend. Its
// signature is the budgets' spend source.
func (uq *UsageQueries) SpendSince(prefix string, perChild bool, since time.Time) (map[string]float64, error) {
	if f, ok := uq.st.(flusher); ok {
		if err := f.Flush(context.Background()); err != nil {
			return nil, err
		}
	}
	if uq.st == nil {
		return spendOf(nil, prefix, perChild, since)
	}
	return spendOf(uq.st, prefix, perChild, since)
}

// UsageReader is the part of the usage storage that spend is summed from.
type UsageReader interface {
	// UsageAggregates is UsageStorage's.
	UsageAggregates(g Granularity, from, to time.Time) ([]UsageAggregate, error)
	// UsageRecords is UsageStorage's.
	UsageRecords(from, to time.Time, fn func(*UsageRecord) bool) error
}

// Snapshotter is a usage storage that reads at one snapshot and tells
// later which records a snapshot held (PostgreSQL).
type Snapshotter interface {
	// UsageSnapshot runs fn with a reader whose reads all see one
	// snapshot, and returns the snapshot's name.
	UsageSnapshot(fn func(r UsageReader) error) (string, error)
	// CountedIn returns those of ids (usage record ids) whose record
	// the snapshot named holds.
	CountedIn(ids [][16]byte, snapshot string) ([][16]byte, error)
}

// SpendSnapshot is SpendSince read at one snapshot of the usage records,
// with the snapshot's name, for Counted to tell later which records the
// sums hold; snapshot is "" when the storage cannot name one.
func (uq *UsageQueries) SpendSnapshot(prefix string, perChild bool, since time.Time) (spend map[string]float64, snapshot string, err error) {
	sn, ok := uq.st.(Snapshotter)
	if !ok {
		spend, err = uq.SpendSince(prefix, perChild, since)
		return spend, "", err
	}
	if f, ok := uq.st.(flusher); ok {
		if err := f.Flush(context.Background()); err != nil {
			return nil, "", err
		}
	}
	snapshot, err = sn.UsageSnapshot(func(r UsageReader) error {
		spend, err = spendOf(r, prefix, perChild, since)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	return spend, snapshot, nil
}

// Counted returns those of ids (usage record ids) whose record the
// snapshot (a SpendSnapshot answer) held; without a snapshot, none.
func (uq *UsageQueries) Counted(ids [][16]byte, snapshot string) ([][16]byte, error) {
	sn, ok := uq.st.(Snapshotter)
	if !ok || snapshot == "" {
		return nil, nil
	}
	return sn.CountedIn(ids, snapshot)
}

// spendOf is SpendSince over r (nil: nothing spent).
func spendOf(r UsageReader, prefix string, perChild bool, since time.Time) (map[string]float64, error) {
	sums := map[string]catalog.Nanos{}
	if !perChild {
		sums[prefix] = 0
	}
	var err error
	if r != nil {
		err = eachSince(r, since, func(path string, a UsageAggregate) {
			if a.Cost == 0 {
				return
			}
			if !perChild {
				if userpath.Covers(prefix, path) {
					sums[prefix] = sums[prefix].Add(a.Cost)
				}
				return
			}
			if child, ok := ChildOf(prefix, path); ok {
				sums[child] = sums[child].Add(a.Cost)
			}
		})
	}
	out := make(map[string]float64, len(sums))
	for k, v := range sums {
		out[k] = v.Float()
	}
	return out, err
}

// eachSince calls fn with the usage since the instant since, split into
// pieces per user path: the records of the partial hour since starts in,
// the hourly rows up to the next midnight, and the daily rows after it.
func (uq *UsageQueries) eachSince(since time.Time, fn func(path string, a UsageAggregate)) error {
	if uq.st == nil {
		return nil
	}
	return eachSince(uq.st, since, fn)
}

// eachSince is UsageQueries.eachSince over r.
func eachSince(r UsageReader, since time.Time, fn func(path string, a UsageAggregate)) error {
	since = since.UTC()
	hour := since.Truncate(time.Hour)
	if hour.Before(since) {
		hour = hour.Add(time.Hour)
		err := r.UsageRecords(since, hour, func(r *UsageRecord) bool {
			var a UsageAggregate
			a.AddRecord(r)
			fn(r.UserPath, a)
			return true
		})
		if err != nil {
			return err
		}
	}
	midnight := hour.Truncate(day)
	if midnight.Before(hour) {
		midnight = midnight.Add(day)
	}
	if hour.Before(midnight) {
		rows, err := r.UsageAggregates(Hourly, hour, midnight)
		if err != nil {
			return err
		}
		for _, r := range rows {
			fn(r.UserPath, r)
		}
	}
	rows, err := r.UsageAggregates(Daily, midnight, time.Time{})
	if err != nil {
		return err
	}
	for _, r := range rows {
		fn(r.UserPath, r)
	}
	return nil
}
