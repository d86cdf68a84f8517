package translate

import (
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// RealtimeUsage reads the usage object of an OpenAI Realtime
// response.done event (response.usage); ok is false when there is none.
// input_token_details.cached_tokens counts the cache reads. A missing
// total is input + output (catalog.SumTokens). The counts are as reported:
// catalog.CheckUsage judges them.
func RealtimeUsage(u gjson.Result) (usage catalog.Usage, ok bool) {
	if !u.IsObject() {
		return catalog.Usage{}, false
	}
	out := catalog.Usage{
		InputTokens:       u.Get("input_tokens").Int(),
		OutputTokens:      u.Get("output_tokens").Int(),
		TotalTokens:       u.Get("total_tokens").Int(),
		CachedInputTokens: u.Get("input_token_details.cached_tokens").Int(),
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = catalog.SumTokens(out.InputTokens, out.OutputTokens)
	}
	return out, true
}
