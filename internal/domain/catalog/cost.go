package catalog

import (
	"encoding/json"
	"math"
)

// Consumption is what one request consumed, as reported by the provider:
// its tokens, in the one gateway usage type, and the units some models
// bill besides them. The detail counts are subsets of the token totals,
// not additions to them.
type Consumption struct {
	// Usage is the request's tokens: InputTokens is the whole prompt
	// (cached, cache-write and audio prompt tokens included), OutputTokens
	// the whole completion (reasoning and audio completion tokens
	// included); CachedInputTokens, CacheWriteInputTokens and
	// ReasoningTokens are the parts priced on their own.
	Usage
	// AudioInputTokens is the part of InputTokens that is audio.
	AudioInputTokens int64
	// AudioOutputTokens is the part of OutputTokens that is audio.
	AudioOutputTokens int64
	// Images is the number of images generated (or priced input images).
	Images int64
	// Characters is the number of input characters (text to speech).
	Characters int64
	// Pages is the number of document pages processed.
	Pages int64
	// InputSeconds is the duration of input audio (transcription).
	InputSeconds float64
	// OutputSeconds is the duration of generated audio or video.
	OutputSeconds float64
	// Batch is true for requests served through a batch API.
	Batch bool
}

// Cost prices one request's usage u with p and returns the amount and its
// currency (p.Currency, or "USD" when empty). Absent prices count as zero.
//
// Tokens (all prices per million tokens):
//   - Uncached prompt tokens, InputTokens − CachedInputTokens −
//     CacheWriteInputTokens − AudioInputTokens (audio only when
//     audio_input_per_mtok is set; floor 0), at the input price.
//   - Cached tokens at cached_input_per_mtok, cache writes at
//     cache_write_per_mtok; either falls back to the input price when absent.
//   - Audio prompt tokens at audio_input_per_mtok when set (otherwise they
//     stay in the uncached count).
//   - Completion tokens, OutputTokens − ReasoningTokens (only when
//     reasoning_output_per_mtok is set) − AudioOutputTokens (only when
//     audio_output_per_mtok is set; floor 0), at the output price; reasoning
//     and audio completion tokens at their own prices when set.
//
// Tiers: when p.Tiers is set, the request's prompt size (InputTokens) picks
// one tier for the whole request: the first bounded tier whose up_to_tokens
// (or up_to_mtok × 1e6) is ≥ InputTokens, else an unbounded tier (the
// catch-all), else the last tier. Its input and output prices replace the
// base ones for every token of the request, as Gemini, Anthropic and xAI
// bill long prompts: a prompt of 200,001 tokens to gemini-2.5-pro is billed
// entirely at the above-200k prices. Prices derived from the input price
// (cached, cache write, audio input) scale by tier input ÷ base input, and
// reasoning and audio output by tier output ÷ base output, so Gemini's and
// Anthropic's doubled long-context cache prices come out right.
//
// Batch: when u.Batch is set, batch_input_per_mtok and batch_output_per_mtok
// replace the input and output prices when present; with tiers or derived
// prices the same batch ÷ base ratio applies to them (providers discount
// batch requests uniformly, typically by 50%).
//
// Per-unit charges are added on top: per_request once, per_image and
// input_per_image × Images (a model sets one of them), per_character_input ×
// Characters, per_page × Pages, per_second_input × InputSeconds and
// per_second_output × OutputSeconds. Every usage field is billed at its
// price, so a caller fills only what the provider metered (for instance
// either InputSeconds or audio tokens for a transcription).
func Cost(p Pricing, u Consumption) (amount float64, currency string) {
	b := CostBreakdown(p, u)
	return b.Total, b.Currency
}

// Breakdown is what one request cost, split as usage records report it.
// Input + Output = Total.
type Breakdown struct {
	// Input is the price of the prompt: uncached, cached, cache-write and
	// audio prompt tokens, and the per-unit charges on input (per request,
	// input images, characters, pages, input seconds).
	Input float64
	// Output is the price of the completion: completion, reasoning and audio
	// completion tokens, generated images and output seconds.
	Output float64
	// Total is Input + Output.
	Total float64
	// Currency is the pricing's currency ("USD" when unset).
	Currency string
	// Source says where the figure comes from: CostSourceCatalog for a
	// price computed from the catalog (CostBreakdown), CostSourceOverride
	// for one computed from an operator's price (RequestCostOn),
	// CostSourceProvider for the price the provider reported
	// (ProviderBreakdown).
	Source CostSource
	// Unsplit reports that only Total is known: the provider reported
	// its price as one figure and there was no catalog price to split it
	// by. Input and Output are 0 then, and are recorded as unknown.
	Unsplit bool
}

// CostBreakdown prices u with p as Cost does, split into input and output.
func CostBreakdown(p Pricing, u Consumption) Breakdown {
	b := Breakdown{Currency: p.Currency, Source: CostSourceCatalog}
	if b.Currency == "" {
		b.Currency = "USD"
	}
	baseIn, baseOut := val(p.InputPerMTok), val(p.OutputPerMTok)
	in, out := baseIn, baseOut
	if t := p.tierFor(u.InputTokens); t != nil {
		if t.InputPerMTok != nil {
			in = *t.InputPerMTok
		}
		if t.OutputPerMTok != nil {
			out = *t.OutputPerMTok
		}
	}
	if u.Batch {
		in = batchPrice(in, baseIn, p.BatchInputPerMTok)
		out = batchPrice(out, baseOut, p.BatchOutputPerMTok)
	}
	inScale, outScale := ratio(in, baseIn), ratio(out, baseOut)

	uncached := u.InputTokens - u.CachedInputTokens - u.CacheWriteInputTokens
	if p.AudioInputPerMTok != nil {
		uncached -= u.AudioInputTokens
		b.Input += perM(u.AudioInputTokens, *p.AudioInputPerMTok*inScale)
	}
	b.Input += perM(max(uncached, 0), in)
	b.Input += perM(u.CachedInputTokens, derived(p.CachedInputPerMTok, inScale, in))
	b.Input += perM(u.CacheWriteInputTokens, derived(p.CacheWritePerMTok, inScale, in))

	completion := u.OutputTokens
	if p.ReasoningOutputPerMTok != nil {
		completion -= u.ReasoningTokens
		b.Output += perM(u.ReasoningTokens, *p.ReasoningOutputPerMTok*outScale)
	}
	if p.AudioOutputPerMTok != nil {
		completion -= u.AudioOutputTokens
		b.Output += perM(u.AudioOutputTokens, *p.AudioOutputPerMTok*outScale)
	}
	b.Output += perM(max(completion, 0), out)

	b.Input += val(p.PerRequest)
	b.Input += float64(u.Images) * val(p.InputPerImage)
	b.Output += float64(u.Images) * val(p.PerImage)
	b.Input += float64(u.Characters) * val(p.PerCharacterInput)
	b.Input += float64(u.Pages) * val(p.PerPage)
	b.Input += u.InputSeconds * val(p.PerSecondInput)
	b.Output += u.OutputSeconds * val(p.PerSecondOutput)
	b.Total = b.Input + b.Output
	return b
}

// Price prices the tokens u of one request to modelID on a provider of
// type providerType from the catalog. ok is false when the model is not in
// the catalog or has no price (self-hosted types have none), so that a
// caller records an unknown cost rather than 0.
func Price(providerType, modelID string, u Usage) (b Breakdown, ok bool) {
	return PriceConsumption(providerType, modelID, Consumption{Usage: u})
}

// PriceConsumption is Price for a request that consumed units besides
// tokens (characters of speech input, seconds of transcribed audio).
func PriceConsumption(providerType, modelID string, c Consumption) (b Breakdown, ok bool) {
	m, found := Lookup(providerType, modelID)
	if !found || m.Pricing == nil {
		return Breakdown{}, false
	}
	return CostBreakdown(*m.Pricing, c), true
}

// tierFor picks the tier for a prompt of n tokens, or nil without tiers.
func (p *Pricing) tierFor(n int64) *Tier {
	if len(p.Tiers) == 0 {
		return nil
	}
	var catchAll *Tier
	for i := range p.Tiers {
		t := &p.Tiers[i]
		bound, ok := t.bound()
		if !ok {
			catchAll = t
			continue
		}
		if float64(n) <= bound {
			return t
		}
	}
	if catchAll != nil {
		return catchAll
	}
	return &p.Tiers[len(p.Tiers)-1]
}

// bound returns the tier's inclusive upper prompt bound in tokens.
func (t *Tier) bound() (float64, bool) {
	switch {
	case t.UpToTokens != nil:
		return float64(*t.UpToTokens), true
	case t.UpToMTok != nil:
		return *t.UpToMTok * 1e6, true
	}
	return 0, false
}

// batchPrice applies a batch price to price (a base or tier price).
func batchPrice(price, base float64, batch *float64) float64 {
	switch {
	case batch == nil:
		return price
	case base > 0:
		return price * (*batch / base)
	}
	return *batch
}

// derived returns a price derived from the input price, scaled like it, or
// fallback when the derived price is absent.
func derived(p *float64, scale, fallback float64) float64 {
	if p == nil {
		return fallback
	}
	return *p * scale
}

func ratio(v, base float64) float64 {
	if base == 0 {
		return 1
	}
	return v / base
}

func val(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

func perM(tokens int64, pricePerMTok float64) float64 {
	if tokens <= 0 {
		return 0
	}
	return float64(tokens) * pricePerMTok / 1e6
}

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
