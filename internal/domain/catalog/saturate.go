package catalog

import "math"

// SaturatingAdd returns a + b, or math.MaxInt64 (math.MinInt64) where the
// sum would overflow upwards (downwards): a sum past the largest value
// the type holds stays at that value. Every running total the gateway
// keeps of token counts, request counts and costs (usage aggregates,
// session totals, budget spend) adds through it or SaturatingAddFloat, so
// that one absurd figure can make a total large but never negative.
func SaturatingAdd(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

// SaturatingAddFloat returns a + b kept finite: a NaN operand counts as 0
// and a sum beyond ±math.MaxFloat64 (an infinite operand included) stays
// at that bound, so that a total can always be stored and written as
// JSON.
func SaturatingAddFloat(a, b float64) float64 {
	if math.IsNaN(a) {
		a = 0
	}
	if math.IsNaN(b) {
		b = 0
	}
	s := a + b
	switch {
	case math.IsNaN(s): // +Inf + -Inf
		return 0
	case s > math.MaxFloat64:
		return math.MaxFloat64
	case s < -math.MaxFloat64:
		return -math.MaxFloat64
	}
	return s
}
