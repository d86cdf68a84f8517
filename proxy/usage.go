package proxy

import (
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/providers"
	"github.com/modelgate/modelgate/providers/translate"
	"github.com/modelgate/modelgate/reqinfo"
)

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
		u := gjson.GetBytes(body, "usage")
		if !u.IsObject() {
			return reqinfo.Usage{}, false
		}
		var t translate.MessagesTokens
		t.Merge(u)
		return toInfoUsage(t.Usage()), true
	case providers.EndpointResponses:
		return parseResponsesUsage(gjson.GetBytes(body, "usage"))
	case providers.EndpointCountTokens:
		return reqinfo.Usage{}, false
	default:
		u, ok := translate.ChatUsage(gjson.GetBytes(body, "usage"))
		return toInfoUsage(u), ok
	}
}
