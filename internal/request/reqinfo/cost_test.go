package reqinfo

import (
	"math"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

func TestCostPricedOnceFromTheCatalog(t *testing.T) {
	i := New()
	if _, ok := i.Cost(); ok {
		t.Fatal("a request without usage has a known cost")
	}
	i.ProviderType, i.ResolvedModel = "openai", "gpt-4o-mini"
	i.SetUsage(catalog.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000, TotalTokens: 2_000_000})
	b, ok := i.Cost()
	if !ok || b.Input <= 0 || b.Output <= 0 || math.Abs(b.Input+b.Output-b.Total) > 1e-12 || b.Currency != "USD" {
		t.Fatalf("Cost = %+v, %v", b, ok)
	}
	i.SetUsage(catalog.Usage{InputTokens: 2_000_000, TotalTokens: 2_000_000})
	b2, _ := i.Cost()
	if math.Abs(b2.Input-2*b.Input) > 1e-9 || b2.Output != 0 {
		t.Fatalf("after new usage Cost = %+v, want input doubled and no output (was %+v)", b2, b)
	}
	u := New()
	u.ProviderType, u.ResolvedModel = "ollama", "llama3"
	u.SetUsage(catalog.Usage{InputTokens: 10})
	if _, ok := u.Cost(); ok {
		t.Fatal("a self-hosted model has a known price")
	}
}

func TestCostOfACacheHitIsZero(t *testing.T) {
	i := New()
	i.CacheHit = true
	i.ProviderType, i.ResolvedModel = "openai", "gpt-4o-mini"
	if _, ok := i.Cost(); ok {
		t.Fatal("a hit without usage has a known cost")
	}
	i.SetUsage(catalog.Usage{InputTokens: 1_000_000, OutputTokens: 10, TotalTokens: 1_000_010})
	if b, ok := i.Cost(); !ok || b.Total != 0 || b.Input != 0 || b.Output != 0 {
		t.Fatalf("hit Cost = %+v, %v; want a known 0", b, ok)
	}
	if u, _ := i.Usage(); u.TotalTokens != 1_000_010 {
		t.Fatal("the hit lost its tokens")
	}
}

func TestDropUsageForgetsTheTokens(t *testing.T) {
	i := New()
	i.ProviderType, i.ResolvedModel = "openai", "gpt-4o-mini"
	i.SetUsage(catalog.Usage{InputTokens: 10, TotalTokens: 10})
	if _, ok := i.Cost(); !ok {
		t.Fatal("no cost with usage")
	}
	i.DropUsage()
	if _, ok := i.Usage(); ok {
		t.Fatal("usage left after DropUsage")
	}
	if _, ok := i.Cost(); ok {
		t.Fatal("a known cost after DropUsage")
	}
	i.SetUnits(catalog.Consumption{InputSeconds: 3})
	i.SetUsage(catalog.Usage{InputTokens: 10, TotalTokens: 10})
	i.DropUsage()
	if u, ok := i.Usage(); !ok || !u.IsZero() {
		t.Fatalf("after DropUsage with units: %+v %v; want zero tokens, units kept", u, ok)
	}
}
