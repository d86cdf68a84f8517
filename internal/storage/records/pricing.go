package records

import (
	"encoding/json"
	"fmt"

	"github.com/modelgate/modelgate/internal/domain/pricing"
)

// EncodePricingOverride returns the stored form of o: the row as JSON,
// its source left out (stored rows are always the admin API's).
func EncodePricingOverride(o pricing.Override) ([]byte, error) {
	o.Source = ""
	b, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("pricing override %q %q: %w", o.Provider, o.Model, err)
	}
	return b, nil
}

// DecodePricingOverride reads a row stored by EncodePricingOverride; its
// source is pricing.SourceAdmin.
func DecodePricingOverride(b []byte) (pricing.Override, error) {
	var o pricing.Override
	if err := json.Unmarshal(b, &o); err != nil {
		return pricing.Override{}, fmt.Errorf("pricing override: %w", err)
	}
	o.Source = pricing.SourceAdmin
	return o, nil
}
