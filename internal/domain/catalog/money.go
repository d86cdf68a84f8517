package catalog

import (
	"encoding/json"
	"math"
)

// MoneyPrecision is the resolution amounts of money are shown at: one
// billionth of the currency unit (USD), far below the price of a single
// token. Accounting keeps every amount at full float64 precision; what
// the gateway shows (admin API, dashboard, GET /v1/usage) is rounded to
// MoneyPrecision (RoundMoney, Amount), so that a sum of prices such as
// 0.35 + 0.7 reads 1.05 and not 1.0499999999999998.
const MoneyPrecision = 1e-9

// moneyScale is 1/MoneyPrecision, an exact float64, so that dividing by it
// rounds correctly where multiplying by MoneyPrecision would not.
const moneyScale = 1e9

// RoundMoney returns v rounded to the nearest multiple of MoneyPrecision.
// A value too large to hold that precision (above about 9 million), or not
// finite, is returned unchanged; a result of zero is never negative.
func RoundMoney(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) >= (1<<53)/moneyScale {
		return v
	}
	r := math.Round(v*moneyScale) / moneyScale
	if r == 0 {
		return 0
	}
	return r
}

// Amount is an amount of money in the catalog's currency (USD). It is a
// plain float64 for arithmetic; its JSON form is rounded to
// MoneyPrecision.
type Amount float64

// MarshalJSON writes a rounded to MoneyPrecision as a JSON number.
func (a Amount) MarshalJSON() ([]byte, error) {
	return json.Marshal(RoundMoney(float64(a)))
}
