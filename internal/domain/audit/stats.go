package audit

import (
	"slices"
	"strings"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// Stats intervals.
const (
	// IntervalHour: one bucket per hour, for windows of up to
	// MaxHourlyDays days.
	IntervalHour = "hour"
	// IntervalDay: one bucket per day, for longer windows.
	IntervalDay = "day"
)

// MaxHourlyDays is the longest window answered with hourly buckets.
const MaxHourlyDays = 3

// Stats is the answer of the request statistics: request counts by status
// class per time bucket, their summary, and per-provider latency series
// aligned with the buckets.
type Stats struct {
	// Interval is IntervalHour or IntervalDay.
	Interval string `json:"interval"`
	// Buckets run from the window's start up to the bucket holding the
	// current time (or the window's end), every one present, empty ones
	// as zeros.
	Buckets []StatsBucket `json:"buckets"`
	// Summary totals the buckets.
	Summary StatsSummary `json:"summary"`
	// ProviderLatency holds one series per provider instance that
	// received requests in the buckets, by name.
	ProviderLatency []ProviderLatency `json:"provider_latency"`
}

// StatsBucket counts the requests of one bucket.
type StatsBucket struct {
	// Start is the bucket's start.
	Start time.Time `json:"start"`
	StatusCounts
}

// StatsSummary totals the requests of all buckets.
type StatsSummary struct {
	StatusCounts
	// SuccessRate is Status2xx / Requests, from 0 to 1; 0 without
	// requests.
	SuccessRate float64 `json:"success_rate"`
	// AvgDurationMs is the mean duration, in milliseconds, of the
	// requests the provider latency covers: successful (2xx) requests that
	// reached a provider, not answered by the response cache (failed and
	// refused requests would skew it); 0 without any.
	AvgDurationMs float64 `json:"avg_duration_ms"`
}

// ProviderLatency is one provider's latency series; element i belongs to
// bucket i.
type ProviderLatency struct {
	// Provider is the provider instance name.
	Provider string `json:"provider"`
	// Requests counts, per bucket, the requests the averages cover:
	// successful (2xx) requests that reached the provider, not answered by
	// the response cache.
	Requests []int64 `json:"requests"`
	// AvgDurationMs is, per bucket, those requests' mean duration in
	// milliseconds; null where there is none.
	AvgDurationMs []*float64 `json:"avg_duration_ms"`
}

// Stats returns the request statistics of w: hourly buckets for a window
// of up to MaxHourlyDays days, else daily. Buckets are zero-filled from the
// window's start up to the current time. Only the hourly aggregates are
// read, never the entries.
func (qs *Queries) Stats(w Window) (Stats, error) {
	st := Stats{Interval: IntervalDay, ProviderLatency: []ProviderLatency{}}
	step := day
	if w.Days() <= MaxHourlyDays {
		st.Interval, step = IntervalHour, time.Hour
	}
	now := qs.now().UTC()
	st.Buckets = []StatsBucket{}
	for b := w.Start; b.Before(w.End) && !b.After(now); b = b.Add(step) {
		st.Buckets = append(st.Buckets, StatsBucket{Start: b})
	}
	if qs.st == nil || len(st.Buckets) == 0 {
		return st, nil
	}
	end := st.Buckets[len(st.Buckets)-1].Start.Add(step)
	if w.End.Before(end) {
		end = w.End
	}
	qs.settle.settle(qs.st)
	rows, err := qs.st.AuditHours(w.Start, end)
	if err != nil {
		return st, err
	}
	type sums struct{ n, ns []int64 }
	lat := map[string]*sums{}
	var latNs, latN int64
	for i := range rows {
		r := &rows[i]
		k := int(r.Hour.Sub(w.Start) / step)
		if k < 0 || k >= len(st.Buckets) {
			continue
		}
		st.Buckets[k].add(r.StatusCounts)
		st.Summary.add(r.StatusCounts)
		latNs, latN = catalog.SaturatingAdd(latNs, r.LatencyNs), catalog.SaturatingAdd(latN, r.LatencyCount)
		if r.Provider == "" {
			continue
		}
		s := lat[r.Provider]
		if s == nil {
			s = &sums{n: make([]int64, len(st.Buckets)), ns: make([]int64, len(st.Buckets))}
			lat[r.Provider] = s
		}
		s.n[k] = catalog.SaturatingAdd(s.n[k], r.LatencyCount)
		s.ns[k] = catalog.SaturatingAdd(s.ns[k], r.LatencyNs)
	}
	if n := st.Summary.Requests; n > 0 {
		st.Summary.SuccessRate = float64(st.Summary.Status2xx) / float64(n)
	}
	if latN > 0 {
		st.Summary.AvgDurationMs = float64(latNs) / float64(latN) / 1e6
	}
	for name, s := range lat {
		pl := ProviderLatency{Provider: name, Requests: s.n, AvgDurationMs: make([]*float64, len(s.n))}
		for i, n := range s.n {
			if n > 0 {
				avg := float64(s.ns[i]) / float64(n) / 1e6
				pl.AvgDurationMs[i] = &avg
			}
		}
		st.ProviderLatency = append(st.ProviderLatency, pl)
	}
	slices.SortFunc(st.ProviderLatency, func(a, b ProviderLatency) int { return strings.Compare(a.Provider, b.Provider) })
	return st, nil
}
