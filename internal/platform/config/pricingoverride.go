package config

import "github.com/modelgate/modelgate/internal/domain/catalog"

// PricingOverride is one row of pricing_overrides: the price of a model
// on a provider.
type PricingOverride struct {
	// Provider is a provider instance's name or a provider type; a row
	// for the name wins over one for its type.
	Provider string `yaml:"provider" json:"provider"`
	// Model is the model id as sent upstream (exact, case-sensitive).
	Model string `yaml:"model" json:"model"`
	// Pricing is the price, with the fields of the catalog's pricing
	// object (tiers included); token prices are USD per million tokens.
	Pricing catalog.Pricing `yaml:"pricing" json:"pricing"`
}
