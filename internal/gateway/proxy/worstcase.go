package proxy

import (
	"strconv"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate/anthropic"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// WorstCaseCost is the most a request sent to target t with body can
// cost, which a budget reserves before admitting it: its input tokens,
// estimated as /v1/messages/count_tokens estimates them for models
// without a native counter (a body that is not a list of messages counts
// one token per 4 bytes), at the input price, plus its output ceiling at
// the output price. The ceiling is the request's max_tokens
// (max_completion_tokens, max_output_tokens), else the model's largest
// completion from the catalog, else what the context window leaves; a
// model the catalog knows neither of has none. ok is false when t's model
// has no price (such a request is never spend, so it reserves nothing) or
// body is missing.
func WorstCaseCost(t reqinfo.Target, body *reqinfo.Body) (n catalog.Nanos, ok bool) {
	if body == nil {
		return 0, false
	}
	m, known := catalog.Lookup(t.ProviderType, t.Model)
	if !known || m.Pricing == nil {
		return 0, false
	}
	in, err := anthropic.EstimateMessagesInputTokens(body.Bytes)
	if err != nil {
		in = int64(len(body.Bytes)+3) / 4
	}
	out := int64(-1)
	for _, raw := range [][]byte{body.Fields.MaxTokens, body.Fields.MaxCompletionTokens, body.Fields.MaxOutputTokens} {
		if v, err := strconv.ParseInt(string(raw), 10, 64); err == nil && v >= 0 {
			out = v
			break
		}
	}
	switch {
	case out >= 0:
	case m.MaxOutputTokens > 0:
		out = m.MaxOutputTokens
	case m.ContextWindow > in:
		out = m.ContextWindow - in
	default:
		out = 0
	}
	u := catalog.Usage{InputTokens: in, OutputTokens: out, TotalTokens: in + out}
	b, priced := catalog.RequestCostOn(t.Provider, t.ProviderType, t.Model, catalog.Consumption{Usage: u}, catalog.ReportedCost{})
	if !priced {
		return 0, false
	}
	return catalog.NanosOf(b.Total), true
}
