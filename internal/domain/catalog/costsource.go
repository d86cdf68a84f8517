package catalog

import (
	"encoding/json"
	"math"
)

// CostSource says where a request's cost comes from.
type CostSource string

// Cost sources.
const (
	// CostSourceProvider is the price the provider reported for the
	// request in its answer (OpenRouter's usage.cost, xAI's
	// usage.cost_in_usd_ticks): what it billed.
	CostSourceProvider CostSource = "provider"
	// CostSourceCatalog is the catalog's list price applied to the
	// request's usage (CostBreakdown): an estimate.
	CostSourceCatalog CostSource = "catalog"
	// CostSourceOverride is a price the operator configured for the
	// model in place of the catalog's.
	CostSourceOverride CostSource = "override"
)

// Valid reports whether s is one of the cost sources.
func (s CostSource) Valid() bool {
	return s == CostSourceProvider || s == CostSourceCatalog || s == CostSourceOverride
}

// MaxReportedCost bounds the price a provider may report for one request,
// in USD: a larger figure (or a negative or non-finite one) is not taken
// as the request's price, and the catalog's stands.
const MaxReportedCost = 1e6

// ReportedCost is the price a provider reported for one request, in USD.
// The zero value is no report.
type ReportedCost struct {
	// USD is the reported price.
	USD float64
	// OK reports that the provider reported a price.
	OK bool
}

// ReportedUSD returns the report of a price of v USD, or no report when
// v is not a plausible price (negative, not finite, above
// MaxReportedCost).
func ReportedUSD(v float64) ReportedCost {
	if math.IsNaN(v) || v < 0 || v > MaxReportedCost {
		return ReportedCost{}
	}
	return ReportedCost{USD: v, OK: true}
}

// RequestCost returns what one request cost and where that figure comes
// from, as RequestCostOn does for a provider known only by its type.
func RequestCost(providerType, modelID string, c Consumption, reported ReportedCost) (b Breakdown, ok bool) {
	return RequestCostOn("", providerType, modelID, c, reported)
}

// RequestCostOn returns what one request cost and where that figure
// comes from: the price its provider reported (CostSourceProvider) when
// there is one, else the operator's price for modelID on the provider
// named providerName or its type providerType (CostSourceOverride,
// OverridePrice), else the catalog's price of c for modelID on a provider
// of type providerType (CostSourceCatalog). ok is false when none is
// known: the request's cost is unknown then, not 0. This is the one place
// that decides a request's cost; every record of it (audit entry, usage
// record, aggregates, budgets) takes this figure. A reported price is
// split into input and output by the override's or the catalog's
// estimate.
func RequestCostOn(providerName, providerType, modelID string, c Consumption, reported ReportedCost) (b Breakdown, ok bool) {
	est, priced := estimate(providerName, providerType, modelID, c)
	if reported.OK {
		return ProviderBreakdown(reported.USD, est, priced), true
	}
	return est, priced
}

// estimate prices c with the override in force for the model, else the
// catalog.
func estimate(providerName, providerType, modelID string, c Consumption) (Breakdown, bool) {
	if p, ok := OverridePrice(providerName, providerType, modelID); ok {
		b := CostBreakdown(*p, c)
		b.Source = CostSourceOverride
		return b, true
	}
	return PriceConsumption(providerType, modelID, c)
}

// ProviderBreakdown is the breakdown of a price of total USD that the
// provider reported as one figure. When the catalog estimated the request
// (estimated, with a positive total) the figure is split into input and
// output in the estimate's proportions, in whole Nanos, so that Input +
// Output is Total; otherwise only Total is known (Unsplit).
func ProviderBreakdown(total float64, estimate Breakdown, estimated bool) Breakdown {
	b := Breakdown{Total: total, Currency: "USD", Source: CostSourceProvider}
	if !estimated || estimate.Total <= 0 || estimate.Currency != "USD" {
		b.Unsplit = true
		return b
	}
	t := NanosOf(total)
	in := NanosOf(total * (estimate.Input / estimate.Total))
	in = min(max(in, 0), t)
	b.Input, b.Output = in.Float(), (t - in).Float()
	return b
}

// MarshalJSON writes s as a JSON string, or null when s is empty (no
// cost, so no source).
func (s CostSource) MarshalJSON() ([]byte, error) {
	if s == "" {
		return []byte("null"), nil
	}
	return json.Marshal(string(s))
}
