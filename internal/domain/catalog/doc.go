// Package catalog is Modelgate's built-in model catalog: metadata (display
// name, family, categories, context window, capabilities) and list prices for
// the current models of every supported provider family, embedded in the
// binary from data/*.json, one file per provider family.
//
// Lookup resolves a provider type and a model id (exact, then normalized) to
// its Metadata; Cost prices one request's Consumption with a model's Pricing.
// Returned metadata is shared with the catalog and must be treated as
// read-only.
//
// A data file holds "provider" (the provider type, equal to the file name),
// "vendor_prefixes" (the "vendor/" prefixes that aggregators such as
// OpenRouter put before this family's ids), "pricing_sources" (the default
// for models without their own) and "models": each an "id", optional
// "aliases" (further ids that resolve to it) and the Metadata fields inline.
// Unknown fields, duplicate ids and aliases are rejected; the package tests
// check every entry against the specification's enums and sanity rules.
//
// The package also holds the small vocabulary prices are computed from,
// shared by the whole gateway: Usage, the token counts of one answer;
// CheckUsage, the check every upstream-reported usage passes before it is
// recorded, priced or charged; Amount and RoundMoney, amounts of money as
// the gateway shows them; SaturatingAdd and SaturatingAddFloat, through
// which every running total of counts and costs adds without wrapping;
// and MaxModelIDLen, the bound on the model ids the gateway reads from
// requests (CheckModelID, RecordedModelID).
package catalog
