package catalog

import (
	"testing"
)

func BenchmarkLookupExact(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Lookup("openai", "gpt-4o-mini"); !ok {
			b.Fatal("miss")
		}
	}
}

func BenchmarkLookupDated(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Lookup("anthropic", "claude-sonnet-4-5-20250929"); !ok {
			b.Fatal("miss")
		}
	}
}

func BenchmarkLookupVendorPrefix(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Lookup("openrouter", "anthropic/claude-3.7-sonnet"); !ok {
			b.Fatal("miss")
		}
	}
}

func BenchmarkLookupMiss(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Lookup("openrouter", "some-vendor/some-model-2025-01-01"); ok {
			b.Fatal("hit")
		}
	}
}

func BenchmarkCost(b *testing.B) {
	m, _ := Lookup("gemini", "gemini-2.5-pro")
	p := *m.Pricing
	u := Consumption{Usage: Usage{InputTokens: 250000, CachedInputTokens: 100000, OutputTokens: 4000, ReasoningTokens: 1000}}
	b.ReportAllocs()
	var sum float64
	for b.Loop() {
		c, _ := Cost(p, u)
		sum += c
	}
	if sum <= 0 {
		b.Fatal("no cost")
	}
}

func BenchmarkRequestCostOverride(b *testing.B) {
	prev := SetOverrides(NewOverrides(map[OverrideKey]Pricing{
		{"openai", "gpt-4o-mini"}: {InputPerMTok: new(1.0), OutputPerMTok: new(2.0)},
	}))
	b.Cleanup(func() { SetOverrides(prev) })
	c := Consumption{Usage: Usage{InputTokens: 1000, OutputTokens: 200}}
	b.ReportAllocs()
	for b.Loop() {
		if r, ok := RequestCostOn("main", "openai", "gpt-4o-mini", c, ReportedCost{}); !ok || r.Source != CostSourceOverride {
			b.Fatal("miss")
		}
	}
}

func BenchmarkRequestCostCatalogWithOverrides(b *testing.B) {
	prev := SetOverrides(NewOverrides(map[OverrideKey]Pricing{
		{"openai", "gpt-4o-mini"}: {InputPerMTok: new(1.0), OutputPerMTok: new(2.0)},
	}))
	b.Cleanup(func() { SetOverrides(prev) })
	c := Consumption{Usage: Usage{InputTokens: 1000, OutputTokens: 200}}
	b.ReportAllocs()
	for b.Loop() {
		if r, ok := RequestCostOn("main", "openai", "gpt-4o", c, ReportedCost{}); !ok || r.Source != CostSourceCatalog {
			b.Fatal("miss")
		}
	}
}
