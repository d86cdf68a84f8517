package proxy

import (
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/providers"
	"github.com/modelgate/modelgate/providers/translate"
	"github.com/modelgate/modelgate/tokens"
)

// bodyUsage reads the usage of a whole upstream answer of endpoint ep.
func bodyUsage(ep providers.Endpoint, body []byte) (tokens.Usage, bool) {
	switch ep {
	case providers.EndpointMessages:
		u := gjson.GetBytes(body, "usage")
		if !u.IsObject() {
			return tokens.Usage{}, false
		}
		var m translate.MessagesUsage
		m.Merge(u)
		return m.Usage(), true
	case providers.EndpointResponses:
		return translate.ResponsesUsage(gjson.GetBytes(body, "usage"))
	case providers.EndpointSpeech:
		return tokens.Usage{}, false
	case providers.EndpointTranscriptions:
		// Token-billed models report tokens; the others a duration.
		if u := gjson.GetBytes(body, "usage"); u.Get("input_tokens").Exists() {
			return translate.ResponsesUsage(u)
		}
		return tokens.Usage{}, false
	case providers.EndpointCountTokens:
		return tokens.Usage{}, false
	default:
		return translate.ChatUsage(gjson.GetBytes(body, "usage"))
	}
}

// anyUsage reads the usage object of a JSON answer of unknown shape
// (passthrough): Chat Completions counts (prompt_tokens), Anthropic's
// (input_tokens on a Messages provider) or the Responses counts.
func anyUsage(body []byte, messages bool) (tokens.Usage, bool) {
	u := gjson.GetBytes(body, "usage")
	switch {
	case !u.IsObject():
		return tokens.Usage{}, false
	case u.Get("prompt_tokens").Exists():
		return translate.ChatUsage(u)
	case !u.Get("input_tokens").Exists():
		return tokens.Usage{}, false
	case messages:
		var m translate.MessagesUsage
		m.Merge(u)
		return m.Usage(), true
	}
	return translate.ResponsesUsage(u)
}
