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
	case providers.EndpointCountTokens:
		return tokens.Usage{}, false
	default:
		return translate.ChatUsage(gjson.GetBytes(body, "usage"))
	}
}
