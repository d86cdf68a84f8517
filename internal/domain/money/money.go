// Package money presents amounts of money. Accounting keeps every amount
// at full float64 precision; what the gateway shows (admin API, dashboard,
// GET /v1/usage) is rounded to Precision, so that a sum of prices such as
// 0.35 + 0.7 reads 1.05 and not 1.0499999999999998.
package money

import (
	"encoding/json"
	"math"
)

// Precision is the resolution amounts are shown at: one billionth of the
// currency unit (USD), far below the price of a single token.
const Precision = 1e-9

// scale is 1/Precision, an exact float64, so that dividing by it rounds
// correctly where multiplying by Precision would not.
const scale = 1e9

// Round returns v rounded to the nearest multiple of Precision. A value too
// large to hold that precision (above about 9 million), or not finite, is
// returned unchanged; a result of zero is never negative.
func Round(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) >= (1<<53)/scale {
		return v
	}
	r := math.Round(v*scale) / scale
	if r == 0 {
		return 0
	}
	return r
}

// Amount is an amount of money in the catalog's currency (USD). It is a
// plain float64 for arithmetic; its JSON form is rounded to Precision.
type Amount float64

// MarshalJSON writes a rounded to Precision as a JSON number.
func (a Amount) MarshalJSON() ([]byte, error) {
	return json.Marshal(Round(float64(a)))
}
