package catalog

import (
	"encoding/json"
	"math"
	"testing"
)

func f(v float64) *float64 { return &v }
func n(v int64) *int64     { return &v }

// geminiPro mirrors gemini-2.5-pro's tiered prices.
var geminiPro = Pricing{
	InputPerMTok: f(1.25), OutputPerMTok: f(10), CachedInputPerMTok: f(0.125),
	BatchInputPerMTok: f(0.625), BatchOutputPerMTok: f(5),
	Tiers: []Tier{
		{UpToTokens: n(200000), InputPerMTok: f(1.25), OutputPerMTok: f(10)},
		{InputPerMTok: f(2.5), OutputPerMTok: f(15)},
	},
}

func TestCost(t *testing.T) {
	tests := []struct {
		name string
		p    Pricing
		u    Consumption
		want float64 // in millionths of a currency unit, i.e. ×1e-6
	}{
		{"input and output", Pricing{InputPerMTok: f(2), OutputPerMTok: f(10)},
			Consumption{Usage: Usage{InputTokens: 1000, OutputTokens: 500}}, 2000 + 5000},
		{"absent prices are zero", Pricing{}, Consumption{Usage: Usage{InputTokens: 1000, OutputTokens: 500}}, 0},
		{"empty usage", Pricing{InputPerMTok: f(2), OutputPerMTok: f(10)}, Consumption{}, 0},
		{"cached tokens at cached price", Pricing{InputPerMTok: f(2), CachedInputPerMTok: f(0.5)},
			Consumption{Usage: Usage{InputTokens: 1000, CachedInputTokens: 400}}, 600*2 + 400*0.5},
		{"cached falls back to input price", Pricing{InputPerMTok: f(2)},
			Consumption{Usage: Usage{InputTokens: 1000, CachedInputTokens: 400}}, 1000 * 2},
		{"cache write at write price", Pricing{InputPerMTok: f(3), CacheWritePerMTok: f(3.75)},
			Consumption{Usage: Usage{InputTokens: 1000, CacheWriteInputTokens: 200}}, 800*3 + 200*3.75},
		{"cache write falls back to input price", Pricing{InputPerMTok: f(3)},
			Consumption{Usage: Usage{InputTokens: 1000, CacheWriteInputTokens: 200}}, 1000 * 3},
		{"uncached floors at zero", Pricing{InputPerMTok: f(2), CachedInputPerMTok: f(0.5)},
			Consumption{Usage: Usage{InputTokens: 100, CachedInputTokens: 200}}, 200 * 0.5},
		{"reasoning at reasoning price", Pricing{OutputPerMTok: f(4), ReasoningOutputPerMTok: f(10)},
			Consumption{Usage: Usage{OutputTokens: 1000, ReasoningTokens: 300}}, 700*4 + 300*10},
		{"reasoning without its price is output", Pricing{OutputPerMTok: f(4)},
			Consumption{Usage: Usage{OutputTokens: 1000, ReasoningTokens: 300}}, 1000 * 4},
		{"completion floors at zero", Pricing{OutputPerMTok: f(4), ReasoningOutputPerMTok: f(10)},
			Consumption{Usage: Usage{OutputTokens: 100, ReasoningTokens: 300}}, 300 * 10},
		{"cached, write and reasoning together",
			Pricing{InputPerMTok: f(3), CachedInputPerMTok: f(0.3), CacheWritePerMTok: f(3.75),
				OutputPerMTok: f(15), ReasoningOutputPerMTok: f(20)},
			Consumption{Usage: Usage{InputTokens: 10000, CachedInputTokens: 6000, CacheWriteInputTokens: 2000, OutputTokens: 1000, ReasoningTokens: 400}},
			2000*3 + 6000*0.3 + 2000*3.75 + 600*15 + 400*20},
		{"batch prices", Pricing{InputPerMTok: f(2), OutputPerMTok: f(8), BatchInputPerMTok: f(1), BatchOutputPerMTok: f(4)},
			Consumption{Usage: Usage{InputTokens: 1000, OutputTokens: 1000}, Batch: true}, 1000*1 + 1000*4},
		{"batch flag ignored without batch prices", Pricing{InputPerMTok: f(2), OutputPerMTok: f(8)},
			Consumption{Usage: Usage{InputTokens: 1000, OutputTokens: 1000}, Batch: true}, 1000*2 + 1000*8},
		{"batch prices unused without batch flag", Pricing{InputPerMTok: f(2), OutputPerMTok: f(8), BatchInputPerMTok: f(1), BatchOutputPerMTok: f(4)},
			Consumption{Usage: Usage{InputTokens: 1000, OutputTokens: 1000}}, 1000*2 + 1000*8},
		{"batch discount applies to cached", Pricing{InputPerMTok: f(2), CachedInputPerMTok: f(0.5), BatchInputPerMTok: f(1)},
			Consumption{Usage: Usage{InputTokens: 1000, CachedInputTokens: 1000}, Batch: true}, 1000 * 0.25},
		{"tier below bound", geminiPro, Consumption{Usage: Usage{InputTokens: 100000, OutputTokens: 1000}}, 100000*1.25 + 1000*10},
		{"tier at exactly up_to_tokens", geminiPro, Consumption{Usage: Usage{InputTokens: 200000, OutputTokens: 1000}}, 200000*1.25 + 1000*10},
		{"tier one above up_to_tokens", geminiPro, Consumption{Usage: Usage{InputTokens: 200001, OutputTokens: 1000}}, 200001*2.5 + 1000*15},
		{"tier scales cached price", geminiPro,
			Consumption{Usage: Usage{InputTokens: 300000, CachedInputTokens: 100000}}, 200000*2.5 + 100000*0.25},
		{"tier with batch", geminiPro, Consumption{Usage: Usage{InputTokens: 300000, OutputTokens: 1000}, Batch: true},
			300000*1.25 + 1000*7.5},
		{"tier by up_to_mtok", Pricing{InputPerMTok: f(1), Tiers: []Tier{{UpToMTok: f(0.001), InputPerMTok: f(1)}, {InputPerMTok: f(3)}}},
			Consumption{Usage: Usage{InputTokens: 1001}}, 1001 * 3},
		{"tier by up_to_mtok at bound", Pricing{InputPerMTok: f(1), Tiers: []Tier{{UpToMTok: f(0.001), InputPerMTok: f(1)}, {InputPerMTok: f(3)}}},
			Consumption{Usage: Usage{InputTokens: 1000}}, 1000 * 1},
		{"catch-all listed first", Pricing{InputPerMTok: f(1), Tiers: []Tier{{InputPerMTok: f(9)}, {UpToTokens: n(100), InputPerMTok: f(1)}}},
			Consumption{Usage: Usage{InputTokens: 150}}, 150 * 9},
		{"bounded tier wins over catch-all", Pricing{InputPerMTok: f(1), Tiers: []Tier{{InputPerMTok: f(9)}, {UpToTokens: n(100), InputPerMTok: f(2)}}},
			Consumption{Usage: Usage{InputTokens: 50}}, 50 * 2},
		{"beyond every bound uses last tier", Pricing{InputPerMTok: f(1), Tiers: []Tier{{UpToTokens: n(100), InputPerMTok: f(1)}, {UpToTokens: n(200), InputPerMTok: f(2)}}},
			Consumption{Usage: Usage{InputTokens: 500}}, 500 * 2},
		{"tier without output keeps base output", Pricing{InputPerMTok: f(1), OutputPerMTok: f(5), Tiers: []Tier{{UpToTokens: n(10), InputPerMTok: f(1)}, {InputPerMTok: f(2)}}},
			Consumption{Usage: Usage{InputTokens: 20, OutputTokens: 10}}, 20*2 + 10*5},
		{"audio tokens at audio prices",
			Pricing{InputPerMTok: f(4), CachedInputPerMTok: f(0.4), OutputPerMTok: f(16), AudioInputPerMTok: f(32), AudioOutputPerMTok: f(64)},
			Consumption{Usage: Usage{InputTokens: 1000, CachedInputTokens: 100, OutputTokens: 500}, AudioInputTokens: 600, AudioOutputTokens: 400},
			300*4 + 600*32 + 100*0.4 + 100*16 + 400*64},
		{"audio tokens without audio prices stay text", Pricing{InputPerMTok: f(4), OutputPerMTok: f(16)},
			Consumption{Usage: Usage{InputTokens: 1000, OutputTokens: 500}, AudioInputTokens: 600, AudioOutputTokens: 400}, 1000*4 + 500*16},
		{"per request", Pricing{PerRequest: f(0.01), InputPerMTok: f(1)}, Consumption{Usage: Usage{InputTokens: 1000}}, 10000 + 1000},
		{"per second input", Pricing{PerSecondInput: f(0.0001)}, Consumption{InputSeconds: 90}, 9000},
		{"per second output", Pricing{PerSecondOutput: f(0.4)}, Consumption{OutputSeconds: 8}, 3.2e6},
		{"per character", Pricing{PerCharacterInput: f(0.000015)}, Consumption{Characters: 2000}, 30000},
		{"per image", Pricing{PerImage: f(0.04)}, Consumption{Images: 3}, 120000},
		{"input per image", Pricing{InputPerImage: f(0.001)}, Consumption{Images: 2}, 2000},
		{"per page", Pricing{PerPage: f(0.001)}, Consumption{Pages: 5}, 5000},
		{"seconds ignored without price", Pricing{InputPerMTok: f(1)}, Consumption{InputSeconds: 60, Characters: 10}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cur := Cost(tt.p, tt.u)
			if want := tt.want / 1e6; math.Abs(got-want) > 1e-12 {
				t.Errorf("Cost = %.12f, want %.12f", got, want)
			}
			if cur != "USD" {
				t.Errorf("currency = %q, want USD", cur)
			}
		})
	}
}

func TestCostCurrency(t *testing.T) {
	if _, cur := Cost(Pricing{Currency: "EUR"}, Consumption{}); cur != "EUR" {
		t.Errorf("currency = %q, want EUR", cur)
	}
}

func TestCostWithCatalogPrices(t *testing.T) {
	tests := []struct {
		typ, model string
		u          Consumption
		want       float64
	}{
		{"openai", "gpt-4o-mini", Consumption{Usage: Usage{InputTokens: 1e6, OutputTokens: 1e6}}, 0.15 + 0.60},
		{"anthropic", "claude-sonnet-4-5-20250929",
			Consumption{Usage: Usage{InputTokens: 1e5, CachedInputTokens: 5e4, CacheWriteInputTokens: 1e4, OutputTokens: 1e4}},
			0.04*3 + 0.05*0.3 + 0.01*3.75 + 0.01*15},
		// Above 200k prompt tokens every price doubles, output ×1.5.
		{"anthropic", "claude-sonnet-4-5-20250929",
			Consumption{Usage: Usage{InputTokens: 1e6, CachedInputTokens: 5e5, CacheWriteInputTokens: 1e5, OutputTokens: 1e5}},
			0.4*6 + 0.5*0.6 + 0.1*7.5 + 0.1*22.5},
		{"gemini", "gemini-2.5-pro", Consumption{Usage: Usage{InputTokens: 250000, OutputTokens: 10000}}, 0.25*2.5 + 0.01*15},
		{"openai", "whisper-1", Consumption{InputSeconds: 60}, 0.006},
		{"openai", "tts-1", Consumption{Characters: 1e6}, 15},
		{"elevenlabs", "eleven_flash_v2_5", Consumption{Characters: 1000}, 0.05},
		{"groq", "whisper-large-v3", Consumption{InputSeconds: 3600}, 0.111},
	}
	for _, tt := range tests {
		m, ok := Lookup(tt.typ, tt.model)
		if !ok || m.Pricing == nil {
			t.Fatalf("Lookup(%s, %s): no pricing", tt.typ, tt.model)
		}
		if got, _ := Cost(*m.Pricing, tt.u); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s/%s: Cost = %.9f, want %.9f", tt.typ, tt.model, got, tt.want)
		}
	}
}

func TestCostBreakdownSumsToCost(t *testing.T) {
	in, out, cached, rsn := 2.0, 8.0, 0.5, 10.0
	p := Pricing{InputPerMTok: &in, OutputPerMTok: &out, CachedInputPerMTok: &cached, ReasoningOutputPerMTok: &rsn}
	u := Consumption{Usage: Usage{InputTokens: 3_000_000, CachedInputTokens: 1_000_000, OutputTokens: 2_000_000, ReasoningTokens: 1_000_000}}
	b := CostBreakdown(p, u)
	// input: 2M uncached × 2 + 1M cached × 0.5; output: 1M × 8 + 1M reasoning × 10.
	if b.Input != 4.5 || b.Output != 18 || b.Total != 22.5 {
		t.Fatalf("breakdown = %+v, want input 4.5, output 18, total 22.5", b)
	}
	if total, _ := Cost(p, u); total != b.Total {
		t.Fatalf("Cost = %v, breakdown total %v", total, b.Total)
	}
	if _, ok := Price("openai", "no-such-model-xyz", u.Usage); ok {
		t.Fatal("an unknown model has a price")
	}
}

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
