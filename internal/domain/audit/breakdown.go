package audit

import (
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

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
