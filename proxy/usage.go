package proxy

import (
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/reqinfo"
)

// parseUsage reads an OpenAI-shaped usage object (chat completions and
// embeddings).
func parseUsage(u gjson.Result) (reqinfo.Usage, bool) {
	if !u.IsObject() {
		return reqinfo.Usage{}, false
	}
	out := reqinfo.Usage{
		InputTokens:       u.Get("prompt_tokens").Int(),
		OutputTokens:      u.Get("completion_tokens").Int(),
		TotalTokens:       u.Get("total_tokens").Int(),
		CachedInputTokens: u.Get("prompt_tokens_details.cached_tokens").Int(),
		ReasoningTokens:   u.Get("completion_tokens_details.reasoning_tokens").Int(),
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = out.InputTokens + out.OutputTokens
	}
	return out, true
}
