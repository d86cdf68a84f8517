package catalog

import (
	"encoding/json"
	"math"
)

// Nanos is an amount of money in billionths of the currency unit (1e-9
// USD, MoneyPrecision): the unit every running total of spend is kept in
// (usage aggregates, session totals, budget spend). A request's cost is a
// float64 (Breakdown) while it is computed; it becomes Nanos, rounded to
// the nearest billionth, where it is added up, so that a total over any
// number of records is the exact sum of its parts instead of drifting with
// each float64 addition. An int64 of Nanos holds about 9.2 billion USD.
type Nanos int64

// NanosOf returns v (in currency units) rounded to the nearest Nanos. NaN
// is 0; a value beyond what Nanos holds stays at its bound.
func NanosOf(v float64) Nanos {
	switch x := math.Round(v * moneyScale); {
	case math.IsNaN(x):
		return 0
	case x >= math.MaxInt64:
		return math.MaxInt64
	case x <= math.MinInt64:
		return math.MinInt64
	default:
		return Nanos(x)
	}
}

// Float returns n in currency units, as the admin API and the budgets show
// amounts: the nearest float64 to n × 1e-9.
func (n Nanos) Float() float64 { return float64(n) / moneyScale }

// Add returns n + o, saturating (SaturatingAdd) instead of wrapping.
func (n Nanos) Add(o Nanos) Nanos { return Nanos(SaturatingAdd(int64(n), int64(o))) }

// Amount returns n as an Amount, for JSON.
func (n Nanos) Amount() Amount { return Amount(n.Float()) }

// MarshalJSON writes n in currency units as a JSON number, as Amount
// does: 1300 reads 0.0000013.
func (n Nanos) MarshalJSON() ([]byte, error) { return n.Amount().MarshalJSON() }

// UnmarshalJSON reads a JSON number in currency units, rounded to the
// nearest Nanos.
func (n *Nanos) UnmarshalJSON(b []byte) error {
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*n = NanosOf(v)
	return nil
}

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
