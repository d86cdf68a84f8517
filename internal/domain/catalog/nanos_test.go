package catalog

import (
	"math"
	"testing"
)

func TestNanosOf(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want Nanos
	}{
		{0.0000013, 1300},
		{1.05, 1_050_000_000},
		{1.0499999999999998, 1_050_000_000},
		{4e-10, 0},
		{6e-10, 1},
		{-2.5e-9, -3}, // math.Round: half away from zero
		{math.NaN(), 0},
		{math.Inf(1), math.MaxInt64},
		{-1e30, math.MinInt64},
	} {
		if got := NanosOf(c.v); got != c.want {
			t.Errorf("NanosOf(%v) = %d, want %d", c.v, got, c.want)
		}
	}
	if got := Nanos(1300).Float(); got != 0.0000013 {
		t.Errorf("Float = %v", got)
	}
	if got := Nanos(math.MaxInt64 - 1).Add(5); got != math.MaxInt64 {
		t.Errorf("Add saturates at %d", got)
	}
}

// TestSumOfAMillionRecords: a million records of 0.0000013 USD add up
// to exactly 1.3 USD in Nanos, the unit totals are kept in; float64
// addition of the same figures drifts away from it.
func TestSumOfAMillionRecords(t *testing.T) {
	const n, price = 1_000_000, 0.0000013
	var total Nanos
	var drift float64
	for range n {
		total = total.Add(NanosOf(price))
		drift = SaturatingAddFloat(drift, price)
	}
	if total != 1_300_000_000 || total.Float() != 1.3 {
		t.Fatalf("Nanos sum %d (%v), want 1300000000 (1.3)", total, total.Float())
	}
	if drift == 1.3 {
		t.Fatal("float64 addition did not drift: the test proves nothing")
	}
	t.Logf("float64 sum %.17g, Nanos sum %v", drift, total.Float())
}

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
