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
