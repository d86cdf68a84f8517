package catalog

import (
	"encoding/json"
	"math"
	"testing"
)

func TestRoundMoney(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{
		{1.0499999999999998, 1.05},
		{0.30000000000000004, 0.3},
		{3.990000000000001e-05, 3.99e-05},
		{1.05e-06, 1.05e-06},
		{4e-10, 0},
		{6e-10, 1e-9},
		{-1e-12, 0},
		{-2.5000000000000004, -2.5},
		{12345678.123, 12345678.123},
		{math.Inf(1), math.Inf(1)},
	} {
		if got := RoundMoney(c.in); got != c.want || math.Signbit(got) != math.Signbit(c.want) {
			t.Errorf("RoundMoney(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if !math.IsNaN(RoundMoney(math.NaN())) {
		t.Error("RoundMoney(NaN) is not NaN")
	}
}

func TestAmountJSON(t *testing.T) {
	x, y := 0.35, 0.7 // x + y is 1.0499999999999998 at run time
	b, err := json.Marshal(struct {
		Spent  Amount  `json:"spent"`
		Tiny   Amount  `json:"tiny"`
		Zero   Amount  `json:"zero"`
		Stored float64 `json:"stored"`
	}{Amount(x + y), Amount(3.990000000000001e-05), Amount(-1e-12), x + y})
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"spent":1.05,"tiny":0.0000399,"zero":0,"stored":1.0499999999999998}`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}
