package audit

import (
	"slices"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// StatusCounts counts requests by status class.
type StatusCounts struct {
	// Requests counts every request.
	Requests int64 `json:"requests"`
	// Status2xx counts statuses 200 to 299.
	Status2xx int64 `json:"status_2xx"`
	// Status4xx counts statuses 400 to 499.
	Status4xx int64 `json:"status_4xx"`
	// Status5xx counts statuses 500 to 599.
	Status5xx int64 `json:"status_5xx"`
	// StatusOther counts every other status, 0 (no status sent) included.
	StatusOther int64 `json:"status_other"`
}

// count adds one request of status code.
func (c *StatusCounts) count(code int) {
	c.Requests = catalog.SaturatingAdd(c.Requests, 1)
	n := &c.StatusOther
	switch code / 100 {
	case 2:
		n = &c.Status2xx
	case 4:
		n = &c.Status4xx
	case 5:
		n = &c.Status5xx
	}
	*n = catalog.SaturatingAdd(*n, 1)
}

// add adds o to c; every sum of this file saturates
// (catalog.SaturatingAdd) instead of wrapping.
func (c *StatusCounts) add(o StatusCounts) {
	c.Requests = catalog.SaturatingAdd(c.Requests, o.Requests)
	c.Status2xx = catalog.SaturatingAdd(c.Status2xx, o.Status2xx)
	c.Status4xx = catalog.SaturatingAdd(c.Status4xx, o.Status4xx)
	c.Status5xx = catalog.SaturatingAdd(c.Status5xx, o.Status5xx)
	c.StatusOther = catalog.SaturatingAdd(c.StatusOther, o.StatusOther)
}

// AuditHour sums the audit entries of one UTC hour and one provider
// instance: what request statistics are computed from, so that they never
// read the entries themselves.
type AuditHour struct {
	// Hour is the hour's start.
	Hour time.Time
	// Provider is the provider instance name, "" for requests that were
	// not routed to a provider (refused by the gateway).
	Provider string
	// StatusCounts counts the requests by status class.
	StatusCounts
	// DurationNs sums the requests' durations.
	DurationNs int64
	// LatencyCount counts successful (2xx) requests that reached the
	// provider: one of its calls produced the answer, so neither a
	// response-cache hit nor an answer the gateway made itself.
	LatencyCount int64
	// LatencyNs sums the durations of those requests.
	LatencyNs int64
}

// AuditHourOf returns the AuditHour row that entry e adds: its hour and
// provider, with e counted.
func AuditHourOf(e *Entry) AuditHour {
	h := AuditHour{Hour: e.ID.Time().Truncate(time.Hour), Provider: e.ProviderName, DurationNs: e.DurationNs}
	h.count(e.StatusCode)
	if e.StatusCode/100 == 2 && e.ProviderName != "" && !e.IsCacheHit() && e.ReachedProvider() {
		h.LatencyCount, h.LatencyNs = 1, e.DurationNs
	}
	return h
}

// Add adds o's sums to h (h keeps its hour and provider).
func (h *AuditHour) Add(o AuditHour) {
	h.StatusCounts.add(o.StatusCounts)
	h.DurationNs = catalog.SaturatingAdd(h.DurationNs, o.DurationNs)
	h.LatencyCount = catalog.SaturatingAdd(h.LatencyCount, o.LatencyCount)
	h.LatencyNs = catalog.SaturatingAdd(h.LatencyNs, o.LatencyNs)
}

// UsageAggregate sums the usage records of one period (an hour or a day),
// user path, provider instance and model.
type UsageAggregate struct {
	// Start is the period's start.
	Start time.Time
	// UserPath, Provider (instance name) and Model identify the row.
	UserPath, Provider, Model string
	// Requests counts records, response-cache hits included.
	Requests int64
	// CacheHits counts records answered by the response cache.
	CacheHits int64
	// Tokens sums the token counts, response-cache hits included.
	Tokens catalog.Usage
	// Cost sums the spend (UsageRecord.Spend): priced records that reached
	// a provider, each rounded to the billionth, so that the sum is exact
	// (catalog.Nanos).
	Cost catalog.Nanos
	// Unpriced counts records that reached a provider for a model without
	// a price.
	Unpriced int64
}

// UsageAggregateOf returns the row of granularity g that record r adds,
// with r counted.
func UsageAggregateOf(g Granularity, r *UsageRecord) UsageAggregate {
	a := UsageAggregate{Start: g.Truncate(r.ID.Time()), UserPath: r.UserPath, Provider: r.ProviderName, Model: r.Model}
	a.AddRecord(r)
	return a
}

// AddRecord counts record r in a.
func (a *UsageAggregate) AddRecord(r *UsageRecord) {
	a.Requests = catalog.SaturatingAdd(a.Requests, 1)
	a.Tokens = a.Tokens.Add(r.Usage)
	switch {
	case r.IsCacheHit():
		a.CacheHits = catalog.SaturatingAdd(a.CacheHits, 1)
	case r.TotalCost == nil:
		a.Unpriced = catalog.SaturatingAdd(a.Unpriced, 1)
	default:
		a.Cost = a.Cost.Add(catalog.NanosOf(*r.TotalCost))
	}
}

// Add adds o's sums to a (a keeps its key).
func (a *UsageAggregate) Add(o UsageAggregate) {
	a.Requests = catalog.SaturatingAdd(a.Requests, o.Requests)
	a.CacheHits = catalog.SaturatingAdd(a.CacheHits, o.CacheHits)
	a.Tokens = a.Tokens.Add(o.Tokens)
	a.Cost = a.Cost.Add(o.Cost)
	a.Unpriced = catalog.SaturatingAdd(a.Unpriced, o.Unpriced)
}

// MaxSessionModels bounds the models listed per session.
const MaxSessionModels = 32

// SessionTotals sums the usage of one session of one user path. Its JSON
// form is a row of the sessions list.
type SessionTotals struct {
	// SessionID is the session id.
	SessionID string `json:"session_id"`
	// UserPath is the user path the session belongs to.
	UserPath string `json:"user_path"`
	// FirstSeen is the time of the session's first record.
	FirstSeen time.Time `json:"first_seen"`
	// LastSeen is the time of its latest record.
	LastSeen time.Time `json:"last_seen"`
	// Requests counts the session's records, response-cache hits
	// included.
	Requests int64 `json:"requests"`
	catalog.Usage
	// Cost sums the spend: response-cache hits and unpriced models add
	// nothing. Its JSON form is in currency units.
	Cost catalog.Nanos `json:"cost"`
	// CacheHits counts records answered by the response cache.
	CacheHits int64 `json:"cache_hits"`
	// Models lists the models used, in order of first use, at most
	// MaxSessionModels.
	Models []string `json:"models"`
}

// AddRecord counts record r in s, which must be r's session (or empty, in
// which case it becomes r's).
func (s *SessionTotals) AddRecord(r *UsageRecord) {
	t := r.ID.Time()
	if s.Requests == 0 {
		s.SessionID, s.UserPath, s.FirstSeen, s.LastSeen = r.SessionID, r.UserPath, t, t
	}
	if t.Before(s.FirstSeen) {
		s.FirstSeen = t
	}
	if t.After(s.LastSeen) {
		s.LastSeen = t
	}
	s.Requests = catalog.SaturatingAdd(s.Requests, 1)
	s.Usage = s.Usage.Add(r.Usage)
	s.Cost = s.Cost.Add(catalog.NanosOf(r.Spend()))
	if r.IsCacheHit() {
		s.CacheHits = catalog.SaturatingAdd(s.CacheHits, 1)
	}
	if r.Model != "" && len(s.Models) < MaxSessionModels && !slices.Contains(s.Models, r.Model) {
		s.Models = append(s.Models, r.Model)
	}
}

// DurationBucketsMs are the upper bounds, in milliseconds, of the
// duration histogram of a BreakdownRow: bucket i counts the records that
// took at most DurationBucketsMs[i] (and more than the bound before it);
// one more bucket counts the longer ones. Percentiles read from it are the
// upper bound of the bucket they fall in, so they are exact to the
// bucket: 25 ms up to 100 ms, then about a third of the value up to 10 s,
// then coarser; a percentile in the last bucket reads as its lower bound
// (120 s).
var DurationBucketsMs = [...]int64{25, 50, 75, 100, 150, 200, 300, 400, 500, 750,
	1000, 1500, 2000, 3000, 4000, 5000, 7500, 10000, 15000, 20000, 30000, 60000, 120000}

// NumDurationBuckets is the size of a BreakdownRow's histogram.
const NumDurationBuckets = len(DurationBucketsMs) + 1

// DurationBucket returns the histogram bucket of a duration.
func DurationBucket(ns int64) int {
	ms := (ns + int64(time.Millisecond) - 1) / int64(time.Millisecond)
	for i, b := range DurationBucketsMs {
		if ms <= b {
			return i
		}
	}
	return len(DurationBucketsMs)
}

// BreakdownRow sums the usage records of one period (an hour or a day) and
// one user path, managed key, provider instance, model and endpoint: what
// the usage breakdown (who spent what) is computed from.
type BreakdownRow struct {
	// Start is the period's start.
	Start time.Time
	// UserPath, KeyID (managed key id, "" for the master key or none),
	// Provider (instance name), Model and Endpoint identify the row.
	UserPath, KeyID, Provider, Model, Endpoint string
	// Requests counts records, response-cache hits included.
	Requests int64
	// CacheHits counts records answered by the response cache.
	CacheHits int64
	// Priced counts records that reached a provider and were priced: the
	// records Cost sums.
	Priced int64
	// Tokens sums the token counts, response-cache hits included.
	Tokens catalog.Usage
	// Cost sums the spend, as UsageAggregate.Cost does.
	Cost catalog.Nanos
	// CostAvoided sums what the response-cache hits would have cost had a
	// provider answered (UsageRecord.CostAvoided).
	CostAvoided catalog.Nanos
	// Errors4xx and Errors5xx count records whose request ended with
	// such a status.
	Errors4xx, Errors5xx int64
	// Durations is the histogram of the records' durations (see
	// DurationBucketsMs).
	Durations [NumDurationBuckets]int64
}

// AddRecord counts record r in b.
func (b *BreakdownRow) AddRecord(r *UsageRecord) {
	b.Requests = catalog.SaturatingAdd(b.Requests, 1)
	b.Tokens = b.Tokens.Add(r.Usage)
	switch {
	case r.IsCacheHit():
		b.CacheHits = catalog.SaturatingAdd(b.CacheHits, 1)
		if r.CostAvoided != nil {
			b.CostAvoided = b.CostAvoided.Add(catalog.NanosOf(*r.CostAvoided))
		}
	case r.TotalCost != nil:
		b.Priced = catalog.SaturatingAdd(b.Priced, 1)
		b.Cost = b.Cost.Add(catalog.NanosOf(*r.TotalCost))
	}
	switch r.StatusCode / 100 {
	case 4:
		b.Errors4xx = catalog.SaturatingAdd(b.Errors4xx, 1)
	case 5:
		b.Errors5xx = catalog.SaturatingAdd(b.Errors5xx, 1)
	}
	i := DurationBucket(r.DurationNs)
	b.Durations[i] = catalog.SaturatingAdd(b.Durations[i], 1)
}

// Add adds o's sums to b (b keeps its key).
func (b *BreakdownRow) Add(o *BreakdownRow) {
	b.Requests = catalog.SaturatingAdd(b.Requests, o.Requests)
	b.CacheHits = catalog.SaturatingAdd(b.CacheHits, o.CacheHits)
	b.Priced = catalog.SaturatingAdd(b.Priced, o.Priced)
	b.Tokens = b.Tokens.Add(o.Tokens)
	b.Cost = b.Cost.Add(o.Cost)
	b.CostAvoided = b.CostAvoided.Add(o.CostAvoided)
	b.Errors4xx = catalog.SaturatingAdd(b.Errors4xx, o.Errors4xx)
	b.Errors5xx = catalog.SaturatingAdd(b.Errors5xx, o.Errors5xx)
	for i := range b.Durations {
		b.Durations[i] = catalog.SaturatingAdd(b.Durations[i], o.Durations[i])
	}
}

// Sums returns b's sums in a fixed order: requests, cache hits, priced,
// the six token counts (catalog.Usage order: input, output, total, cached
// input, cache write input, reasoning), cost, cost avoided, 4xx, 5xx,
// then the histogram. Storage keeps rows in this form.
func (b *BreakdownRow) Sums() []int64 {
	u := &b.Tokens
	out := make([]int64, 0, NumBreakdownSums)
	out = append(out, b.Requests, b.CacheHits, b.Priced, u.InputTokens, u.OutputTokens, u.TotalTokens,
		u.CachedInputTokens, u.CacheWriteInputTokens, u.ReasoningTokens, int64(b.Cost), int64(b.CostAvoided),
		b.Errors4xx, b.Errors5xx)
	return append(out, b.Durations[:]...)
}

// NumBreakdownSums is the length of BreakdownRow.Sums.
const NumBreakdownSums = 13 + NumDurationBuckets

// SetSums sets b's sums from the form Sums returns; it reports false when
// s has another length.
func (b *BreakdownRow) SetSums(s []int64) bool {
	if len(s) != NumBreakdownSums {
		return false
	}
	u := &b.Tokens
	b.Requests, b.CacheHits, b.Priced = s[0], s[1], s[2]
	u.InputTokens, u.OutputTokens, u.TotalTokens = s[3], s[4], s[5]
	u.CachedInputTokens, u.CacheWriteInputTokens, u.ReasoningTokens = s[6], s[7], s[8]
	b.Cost, b.CostAvoided = catalog.Nanos(s[9]), catalog.Nanos(s[10])
	b.Errors4xx, b.Errors5xx = s[11], s[12]
	copy(b.Durations[:], s[13:])
	return true
}

// percentileMs returns the p-th percentile (0 < p < 1) of the histogram h
// in milliseconds, nil without records.
func percentileMs(h *[NumDurationBuckets]int64, p float64) *int64 {
	var n int64
	for _, c := range h {
		n += c
	}
	if n == 0 {
		return nil
	}
	rank := ceilRank(n, p)
	var seen int64
	for i, c := range h {
		seen += c
		if seen >= rank {
			v := DurationBucketsMs[min(i, len(DurationBucketsMs)-1)]
			return &v
		}
	}
	return nil
}
