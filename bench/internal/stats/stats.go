// Package stats is the latency arithmetic shared by the load generator and
// the harness: a sorted-slice recorder with exact nearest-rank percentiles,
// and the JSON result the load generator prints.
package stats

import (
	"math"
	"slices"
	"time"
)

// Recorder collects durations. It keeps every sample (8 bytes each), which
// for the harness's runs of a few seconds is at most a few MiB, so
// percentiles are exact rather than bucketed. The zero value is ready to
// use; a Recorder is not safe for concurrent use (give each worker its own
// and Merge them).
type Recorder struct {
	ns     []int64
	sorted bool
}

// NewRecorder returns a Recorder with room for n samples.
func NewRecorder(n int) *Recorder { return &Recorder{ns: make([]int64, 0, n)} }

// Add records one duration.
func (r *Recorder) Add(d time.Duration) {
	r.ns = append(r.ns, int64(d))
	r.sorted = false
}

// Merge adds every sample of o to r.
func (r *Recorder) Merge(o *Recorder) {
	r.ns = append(r.ns, o.ns...)
	r.sorted = false
}

// Len is the number of samples.
func (r *Recorder) Len() int { return len(r.ns) }

// Percentile returns the nearest-rank p-th percentile (0 < p <= 100): the
// smallest sample such that at least p% of the samples are at or below
// it. It returns 0 for an empty recorder.
func (r *Recorder) Percentile(p float64) time.Duration {
	r.sort()
	return time.Duration(percentile(r.ns, p))
}

// Summary returns count, min, mean, p50, p90, p99 and max in milliseconds,
// or nil when there are no samples.
func (r *Recorder) Summary() *Summary {
	if len(r.ns) == 0 {
		return nil
	}
	r.sort()
	var sum float64
	for _, v := range r.ns {
		sum += float64(v)
	}
	return &Summary{
		Count: len(r.ns),
		Min:   ms(r.ns[0]),
		Mean:  ms(int64(sum / float64(len(r.ns)))),
		P50:   ms(percentile(r.ns, 50)),
		P90:   ms(percentile(r.ns, 90)),
		P99:   ms(percentile(r.ns, 99)),
		Max:   ms(r.ns[len(r.ns)-1]),
	}
}

func (r *Recorder) sort() {
	if !r.sorted {
		slices.Sort(r.ns)
		r.sorted = true
	}
}

// percentile is the nearest-rank percentile of an ascending slice: the
// value at rank ceil(p/100 * n), 1-based.
func percentile(sorted []int64, p float64) int64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(n)))
	rank = min(max(rank, 1), n)
	return sorted[rank-1]
}

// ms converts nanoseconds to milliseconds, rounded to the microsecond so
// the JSON stays readable.
func ms(ns int64) float64 { return math.Round(float64(ns)/1e3) / 1e3 }

// Summary describes a latency distribution, in milliseconds.
type Summary struct {
	Count int     `json:"count"`
	Min   float64 `json:"min_ms"`
	Mean  float64 `json:"mean_ms"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
}
