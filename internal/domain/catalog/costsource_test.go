package catalog

import (
	"encoding/json"
	"math"
	"testing"
)

func TestReportedUSD(t *testing.T) {
	for _, c := range []struct {
		v  float64
		ok bool
	}{{0, true}, {0.95, true}, {MaxReportedCost, true}, {-0.01, false}, {MaxReportedCost * 2, false},
		{math.NaN(), false}, {math.Inf(1), false}} {
		if got := ReportedUSD(c.v); got.OK != c.ok || (c.ok && got.USD != c.v) {
			t.Errorf("ReportedUSD(%v) = %+v, want ok %v", c.v, got, c.ok)
		}
	}
}

func TestRequestCost(t *testing.T) {
	// gpt-4o: input 2.50, output 10: 1,000 × 2.50 + 500 × 10 = 0.0025 + 0.005.
	u := Consumption{Usage: Usage{InputTokens: 1000, OutputTokens: 500, TotalTokens: 1500}}
	b, ok := RequestCost("openai", "gpt-4o", u, ReportedCost{})
	if !ok || b.Source != CostSourceCatalog || NanosOf(b.Total) != 7_500_000 || b.Unsplit {
		t.Fatalf("catalog cost %+v %v", b, ok)
	}
	// The provider's price replaces it, split in the estimate's
	// proportions (one third input): 0.009 is 0.003 + 0.006.
	b, ok = RequestCost("openai", "gpt-4o", u, ReportedUSD(0.009))
	if !ok || b.Source != CostSourceProvider || b.Total != 0.009 || b.Unsplit ||
		NanosOf(b.Input) != 3_000_000 || NanosOf(b.Output) != 6_000_000 || b.Currency != "USD" {
		t.Fatalf("provider cost %+v %v", b, ok)
	}
	// A model the catalog does not price: the provider's total only.
	b, ok = RequestCost("openrouter", "someone/unknown-model", u, ReportedUSD(0.009))
	if !ok || b.Source != CostSourceProvider || b.Total != 0.009 || !b.Unsplit || b.Input != 0 || b.Output != 0 {
		t.Fatalf("unsplit provider cost %+v %v", b, ok)
	}
	// Neither: unknown.
	if b, ok = RequestCost("openrouter", "someone/unknown-model", u, ReportedCost{}); ok {
		t.Fatalf("cost %+v of an unpriced model", b)
	}
	// An estimate of 0 (a free model) cannot split a price.
	if b = ProviderBreakdown(0.5, Breakdown{Currency: "USD"}, true); !b.Unsplit || b.Total != 0.5 {
		t.Fatalf("split by a zero estimate: %+v", b)
	}
	// Input + Output is the total, in whole Nanos, whatever the ratio.
	for _, total := range []float64{0.000000001, 0.0000013, 0.1, 7.77} {
		b = ProviderBreakdown(total, Breakdown{Input: 1, Output: 2, Total: 3, Currency: "USD"}, true)
		if NanosOf(b.Input)+NanosOf(b.Output) != NanosOf(total) {
			t.Errorf("%v split into %v + %v", total, b.Input, b.Output)
		}
	}
}

func TestCostSourceJSON(t *testing.T) {
	b, err := json.Marshal([]CostSource{CostSourceProvider, CostSourceCatalog, CostSourceOverride, ""})
	if err != nil || string(b) != `["provider","catalog","override",null]` {
		t.Fatalf("%s %v", b, err)
	}
	for _, s := range []CostSource{CostSourceProvider, CostSourceCatalog, CostSourceOverride} {
		if !s.Valid() {
			t.Errorf("%q not valid", s)
		}
	}
	if CostSource("list").Valid() || CostSource("").Valid() {
		t.Error("unknown sources valid")
	}
}
