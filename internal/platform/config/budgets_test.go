package config

import (
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// TestYAMLBudgets: budgets.user_paths decodes into typed entries that
// remember their line, and an unknown key inside an entry names its line.
func TestYAMLBudgets(t *testing.T) {
	c, err := ParseYAML([]byte(`budgets:
  enabled: true
  user_paths:
    - {user_path: /team, daily: 10, monthly: 200}
    - {user_path: /customers, period: daily, amount: 5, per_child: true}
    - {user_path: /x, period_seconds: 600, amount: 1}
`))
	if err != nil {
		t.Fatal(err)
	}
	u := c.Budgets.UserPaths
	if len(u) != 3 || u[0].UserPath != "/team" || *u[0].Daily != 10 || *u[0].Monthly != 200 ||
		!u[1].PerChild || u[1].Period != "daily" || *u[1].Amount != 5 || u[2].PeriodSeconds != 600 || u[2].Line != 6 {
		t.Fatalf("decoded %+v", u)
	}
	list, err := budgets.FromConfig(u)
	if err != nil || len(list) != 4 {
		t.Fatalf("%v %v", list, err)
	}

	_, err = ParseYAML([]byte("budgets:\n  user_paths:\n    - {user_path: /a, dailly: 1}\n"))
	if err == nil || !strings.Contains(err.Error(), "line 3: field dailly not found") {
		t.Fatalf("unknown key: %v", err)
	}
}

// TestOverlayBudgets: a higher layer's list replaces a lower one's.
func TestOverlayBudgets(t *testing.T) {
	one := 1.0
	low := Config{Budgets: Budgets{UserPaths: []budgets.ConfigEntry{{UserPath: "/a", Daily: &one}}}}
	low.Overlay(Config{Budgets: Budgets{UserPaths: []budgets.ConfigEntry{{UserPath: "/b", Daily: &one}}}})
	if len(low.Budgets.UserPaths) != 1 || low.Budgets.UserPaths[0].UserPath != "/b" {
		t.Fatalf("%+v", low.Budgets)
	}
	low.Overlay(Config{})
	if len(low.Budgets.UserPaths) != 1 {
		t.Fatal("an unset layer cleared the list")
	}
}

// TestYAMLPricingOverrides: pricing_overrides decodes with the catalog's
// pricing fields, tiers included; an unknown price field names its line.
func TestYAMLPricingOverrides(t *testing.T) {
	c, err := ParseYAML([]byte(`pricing_overrides:
  - provider: openai
    model: gpt-4o-mini
    pricing:
      input_per_mtok: 0.1
      cached_input_per_mtok: 0.05
      tiers:
        - {up_to_tokens: 200000, input_per_mtok: 0.1}
        - {input_per_mtok: 0.2, output_per_mtok: 0.8}
`))
	if err != nil {
		t.Fatal(err)
	}
	o := c.PricingOverrides
	if len(o) != 1 || o[0].Model != "gpt-4o-mini" || *o[0].Pricing.CachedInputPerMTok != 0.05 || len(o[0].Pricing.Tiers) != 2 ||
		*o[0].Pricing.Tiers[0].UpToTokens != 200000 || *o[0].Pricing.Tiers[1].OutputPerMTok != 0.8 {
		t.Fatalf("decoded %+v", o)
	}
	_, err = ParseYAML([]byte("pricing_overrides:\n  - provider: a\n    model: m\n    pricing: {input_per_token: 1}\n"))
	if err == nil || !strings.Contains(err.Error(), "line 4") || !strings.Contains(err.Error(), "input_per_token") {
		t.Fatalf("unknown price field: %v", err)
	}
}

// TestOverlayPricingOverrides: rows merge by provider and model.
func TestOverlayPricingOverrides(t *testing.T) {
	one, two := 1.0, 2.0
	low := Config{PricingOverrides: []PricingOverride{{Provider: "a", Model: "m", Pricing: catalog.Pricing{InputPerMTok: &one}},
		{Provider: "a", Model: "n"}}}
	low.Overlay(Config{PricingOverrides: []PricingOverride{{Provider: "b", Model: "m"}, {Provider: "a", Model: "m", Pricing: catalog.Pricing{InputPerMTok: &two}}}})
	o := low.PricingOverrides
	if len(o) != 3 || *o[0].Pricing.InputPerMTok != 2 || o[1].Model != "n" || o[2].Provider != "b" {
		t.Fatalf("merged %+v", o)
	}
}
