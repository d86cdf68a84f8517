package translate

import (
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// ResponsesUsage reads an OpenAI Responses usage object; ok is false when
// there is none. input_tokens counts every prompt token,
// input_tokens_details.cached_tokens the cache reads and
// output_tokens_details.reasoning_tokens the reasoning part of
// output_tokens. A missing total is input + output (catalog.SumTokens). The
// counts are as reported: catalog.CheckUsage judges them.
func ResponsesUsage(u gjson.Result) (usage catalog.Usage, ok bool) {
	if !u.IsObject() {
		return catalog.Usage{}, false
	}
	out := catalog.Usage{
		InputTokens:       u.Get("input_tokens").Int(),
		OutputTokens:      u.Get("output_tokens").Int(),
		TotalTokens:       u.Get("total_tokens").Int(),
		CachedInputTokens: u.Get("input_tokens_details.cached_tokens").Int(),
		ReasoningTokens:   u.Get("output_tokens_details.reasoning_tokens").Int(),
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = catalog.SumTokens(out.InputTokens, out.OutputTokens)
	}
	return out, true
}

// WriteResponsesUsage writes u as a Responses usage object.
func WriteResponsesUsage(w *Writer, u catalog.Usage) {
	w.Obj()
	w.KeyInt("input_tokens", u.InputTokens)
	w.Key("input_tokens_details")
	w.Obj()
	w.KeyInt("cached_tokens", u.CachedInputTokens)
	w.EndObj()
	w.KeyInt("output_tokens", u.OutputTokens)
	w.Key("output_tokens_details")
	w.Obj()
	w.KeyInt("reasoning_tokens", u.ReasoningTokens)
	w.EndObj()
	w.KeyInt("total_tokens", u.TotalTokens)
	w.EndObj()
}
