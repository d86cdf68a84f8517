package catalog

import "testing"

func TestRequestCostOverride(t *testing.T) {
	tok := int64(200_000)
	o := NewOverrides(map[OverrideKey]Pricing{
		{"openai", "gpt-4o-mini"}: {InputPerMTok: f(1), OutputPerMTok: f(2)},
		{"acct-b", "gpt-4o-mini"}: {InputPerMTok: f(10), OutputPerMTok: f(20)},
		{"gemini", "gemini-2.5-pro"}: {InputPerMTok: f(1), OutputPerMTok: f(10), Tiers: []Tier{
			{UpToTokens: &tok, InputPerMTok: f(1), OutputPerMTok: f(10)},
			{InputPerMTok: f(3), OutputPerMTok: f(30)},
		}},
	})
	prev := SetOverrides(o)
	t.Cleanup(func() { SetOverrides(prev) })

	c := Consumption{Usage: Usage{InputTokens: 1_000_000, OutputTokens: 500_000}}
	// By type: 1 + 1 = 2 USD.
	b, ok := RequestCostOn("acct-a", "openai", "gpt-4o-mini", c, ReportedCost{})
	if !ok || b.Source != CostSourceOverride || NanosOf(b.Total) != 2_000_000_000 {
		t.Fatalf("by type: %+v %v", b, ok)
	}
	// The provider name wins over the type: 10 + 10 = 20 USD.
	b, ok = RequestCostOn("acct-b", "openai", "gpt-4o-mini", c, ReportedCost{})
	if !ok || b.Source != CostSourceOverride || NanosOf(b.Total) != 20_000_000_000 {
		t.Fatalf("by name: %+v %v", b, ok)
	}
	// Tiers: a prompt above 200k tokens is billed at 3 and 30.
	big := Consumption{Usage: Usage{InputTokens: 300_000, OutputTokens: 100_000}}
	b, ok = RequestCostOn("", "gemini", "gemini-2.5-pro", big, ReportedCost{})
	if !ok || b.Source != CostSourceOverride || NanosOf(b.Total) != NanosOf(0.9+3) {
		t.Fatalf("tier: %+v %v", b, ok)
	}
	small := Consumption{Usage: Usage{InputTokens: 100_000, OutputTokens: 100_000}}
	if b, _ = RequestCostOn("", "gemini", "gemini-2.5-pro", small, ReportedCost{}); NanosOf(b.Total) != NanosOf(0.1+1) {
		t.Fatalf("low tier: %+v", b)
	}
	// A reported price stays the provider's, split by the override.
	b, ok = RequestCostOn("x", "openai", "gpt-4o-mini", c, ReportedUSD(4))
	if !ok || b.Source != CostSourceProvider || b.Total != 4 || b.Unsplit || NanosOf(b.Input) != 2_000_000_000 {
		t.Fatalf("reported: %+v %v", b, ok)
	}
	// Other models keep the catalog's price.
	if b, ok = RequestCost("openai", "gpt-4o", c, ReportedCost{}); !ok || b.Source != CostSourceCatalog {
		t.Fatalf("catalog: %+v %v", b, ok)
	}
	// An override prices a model the catalog lacks.
	SetOverrides(NewOverrides(map[OverrideKey]Pricing{{"ollama", "llama3"}: {PerRequest: f(0.5)}}))
	if b, ok = RequestCost("ollama", "llama3", c, ReportedCost{}); !ok || b.Source != CostSourceOverride || b.Total != 0.5 {
		t.Fatalf("uncatalogued: %+v %v", b, ok)
	}
	// Clearing a set no longer in force changes nothing.
	ClearOverrides(o)
	if _, ok := OverridePrice("", "ollama", "llama3"); !ok {
		t.Fatal("cleared a newer set")
	}
	ClearOverrides(current.Load())
	if _, ok = RequestCost("ollama", "llama3", c, ReportedCost{}); ok {
		t.Fatal("cleared set still prices")
	}
}
