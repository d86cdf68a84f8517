package catalog

import (
	"math"
	"testing"
)

func TestSaturatingAdd(t *testing.T) {
	for _, c := range []struct{ a, b, want int64 }{
		{1, 2, 3},
		{-1, -2, -3},
		{math.MaxInt64, 1, math.MaxInt64},
		{math.MaxInt64, math.MaxInt64, math.MaxInt64},
		{math.MaxInt64 - 1, 1, math.MaxInt64},
		{math.MinInt64, -1, math.MinInt64},
		{math.MinInt64, math.MinInt64, math.MinInt64},
		{math.MaxInt64, math.MinInt64, -1},
		{math.MaxInt64, -5, math.MaxInt64 - 5},
		{0, math.MinInt64, math.MinInt64},
	} {
		if got := SaturatingAdd(c.a, c.b); got != c.want {
			t.Errorf("SaturatingAdd(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := SaturatingAdd(c.b, c.a); got != c.want {
			t.Errorf("SaturatingAdd(%d, %d) = %d, want %d", c.b, c.a, got, c.want)
		}
	}
}

func TestSaturatingAddFloat(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	a, b := 0.35, 0.7
	for _, c := range []struct{ a, b, want float64 }{
		{a, b, a + b},
		{math.MaxFloat64, math.MaxFloat64, math.MaxFloat64},
		{-math.MaxFloat64, -math.MaxFloat64, -math.MaxFloat64},
		{inf, 1, math.MaxFloat64},
		{-inf, 1, -math.MaxFloat64},
		{inf, -inf, 0},
		{nan, 2, 2},
		{nan, nan, 0},
	} {
		if got := SaturatingAddFloat(c.a, c.b); got != c.want {
			t.Errorf("SaturatingAddFloat(%g, %g) = %g, want %g", c.a, c.b, got, c.want)
		}
	}
}
