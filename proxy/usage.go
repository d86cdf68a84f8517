package proxy

import (
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/providers"
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

// parseAnthropicUsage reads an Anthropic usage object. Input tokens in the
// gateway's terms include cache reads and writes.
func parseAnthropicUsage(u gjson.Result) (reqinfo.Usage, bool) {
	if !u.IsObject() {
		return reqinfo.Usage{}, false
	}
	read, write := u.Get("cache_read_input_tokens").Int(), u.Get("cache_creation_input_tokens").Int()
	out := reqinfo.Usage{
		InputTokens:           u.Get("input_tokens").Int() + read + write,
		OutputTokens:          u.Get("output_tokens").Int(),
		CachedInputTokens:     read,
		CacheWriteInputTokens: write,
	}
	out.TotalTokens = out.InputTokens + out.OutputTokens
	return out, true
}

// parseResponsesUsage reads an OpenAI Responses usage object.
func parseResponsesUsage(u gjson.Result) (reqinfo.Usage, bool) {
	if !u.IsObject() {
		return reqinfo.Usage{}, false
	}
	out := reqinfo.Usage{
		InputTokens:       u.Get("input_tokens").Int(),
		OutputTokens:      u.Get("output_tokens").Int(),
		TotalTokens:       u.Get("total_tokens").Int(),
		CachedInputTokens: u.Get("input_tokens_details.cached_tokens").Int(),
		ReasoningTokens:   u.Get("output_tokens_details.reasoning_tokens").Int(),
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = out.InputTokens + out.OutputTokens
	}
	return out, true
}

// bodyUsage reads the usage of a whole upstream answer of endpoint ep.
func bodyUsage(ep providers.Endpoint, body []byte) (reqinfo.Usage, bool) {
	switch ep {
	case providers.EndpointMessages:
		return parseAnthropicUsage(gjson.GetBytes(body, "usage"))
	case providers.EndpointResponses:
		return parseResponsesUsage(gjson.GetBytes(body, "usage"))
	case providers.EndpointCountTokens:
		return reqinfo.Usage{}, false
	default:
		return parseUsage(gjson.GetBytes(body, "usage"))
	}
}
