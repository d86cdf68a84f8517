package audit

import "github.com/modelgate/modelgate/internal/domain/catalog"

// EntryCost is the cost object of an audit entry: what the request cost
// and where the figure comes from. It is the figure of the request's
// usage record and of its budget charge.
type EntryCost struct {
	// Input is the price of the prompt; null when only Total is known
	// (a price the provider reported as one figure, for a model the
	// catalog does not price).
	Input *float64 `json:"input"`
	// Output is the price of the completion; null like Input.
	Output *float64 `json:"output"`
	// Total is the request's price.
	Total float64 `json:"total"`
	// Currency is the price's currency (USD).
	Currency string `json:"currency"`
	// Source says where the price comes from: provider, catalog or
	// override (catalog.CostSource).
	Source catalog.CostSource `json:"source"`
}

// CostOf returns the cost object of a request that cost b.
func CostOf(b catalog.Breakdown) *EntryCost {
	c := &EntryCost{Total: b.Total, Currency: b.Currency, Source: b.Source}
	if !b.Unsplit {
		in, out := b.Input, b.Output
		c.Input, c.Output = &in, &out
	}
	return c
}

// SetCost records that the request cost b: its input, output and total
// cost and their source. Input and output stay null when only the total
// is known (b.Unsplit).
func (r *UsageRecord) SetCost(b catalog.Breakdown) {
	total := b.Total
	r.TotalCost, r.CostSource = &total, b.Source
	r.InputCost, r.OutputCost = nil, nil
	if !b.Unsplit {
		in, out := b.Input, b.Output
		r.InputCost, r.OutputCost = &in, &out
	}
}

// FillCostSource gives a priced record stored before costs had a source
// its source: the catalog, the only one there was. Storage calls it on
// every record it decodes.
func (r *UsageRecord) FillCostSource() {
	if r.CostSource == "" && r.TotalCost != nil {
		r.CostSource = catalog.CostSourceCatalog
	}
}
