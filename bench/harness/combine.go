package main

import (
	"slices"

	"github.com/modelgate/modelgate/bench/internal/stats"
)

// combineRounds folds the results of several rounds of one cell into one:
// every figure is the median over the rounds (the mean of the middle two
// for an even count), counts are summed. One noisy round on a shared
// machine then moves a figure by at most half its deviation.
func combineRounds(rounds []*stats.Result) *stats.Result {
	switch len(rounds) {
	case 0:
		return nil
	case 1:
		return rounds[0]
	}
	first := *rounds[0]
	out := &first
	out.StatusCodes = map[string]int{}
	out.OK, out.Errors, out.Non2xx, out.FirstError, out.Sent, out.Answered = 0, 0, 0, "", 0, 0
	for _, r := range rounds {
		out.OK += r.OK
		out.Sent += r.Sent
		out.Answered += r.Answered
		out.Errors += r.Errors
		out.Non2xx += r.Non2xx
		for k, v := range r.StatusCodes {
			out.StatusCodes[k] += v
		}
		if out.FirstError == "" {
			out.FirstError = r.FirstError
		}
	}
	out.ElapsedS = round3(median(rounds, func(r *stats.Result) float64 { return r.ElapsedS }))
	out.ThroughputRPS = round1(median(rounds, func(r *stats.Result) float64 { return r.ThroughputRPS }))
	out.ResponseBytes = int64(median(rounds, func(r *stats.Result) float64 { return float64(r.ResponseBytes) }))
	out.Latency = combineSummaries(rounds, func(r *stats.Result) *stats.Summary { return r.Latency })
	out.TTFT = combineSummaries(rounds, func(r *stats.Result) *stats.Summary { return r.TTFT })
	out.TTLT = combineSummaries(rounds, func(r *stats.Result) *stats.Summary { return r.TTLT })
	return out
}

// combineSummaries takes the median of each percentile over the rounds
// that have the summary; min and max are the extremes, count the sum.
func combineSummaries(rounds []*stats.Result, get func(*stats.Result) *stats.Summary) *stats.Summary {
	var have []*stats.Summary
	for _, r := range rounds {
		if s := get(r); s != nil {
			have = append(have, s)
		}
	}
	if len(have) == 0 {
		return nil
	}
	out := &stats.Summary{Min: have[0].Min, Max: have[0].Max}
	for _, s := range have {
		out.Count += s.Count
		out.Min = min(out.Min, s.Min)
		out.Max = max(out.Max, s.Max)
	}
	m := func(f func(*stats.Summary) float64) float64 {
		vals := make([]float64, len(have))
		for i, s := range have {
			vals[i] = f(s)
		}
		return round3(medianOf(vals))
	}
	out.Mean = m(func(s *stats.Summary) float64 { return s.Mean })
	out.P50 = m(func(s *stats.Summary) float64 { return s.P50 })
	out.P90 = m(func(s *stats.Summary) float64 { return s.P90 })
	out.P99 = m(func(s *stats.Summary) float64 { return s.P99 })
	return out
}

func median(rounds []*stats.Result, f func(*stats.Result) float64) float64 {
	vals := make([]float64, len(rounds))
	for i, r := range rounds {
		vals[i] = f(r)
	}
	return medianOf(vals)
}

// medianOf returns the median of vals (0 when empty); vals is reordered.
func medianOf(vals []float64) float64 {
	n := len(vals)
	if n == 0 {
		return 0
	}
	slices.Sort(vals)
	if n%2 == 1 {
		return vals[n/2]
	}
	return (vals[n/2-1] + vals[n/2]) / 2
}
