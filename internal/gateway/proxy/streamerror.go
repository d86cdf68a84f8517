package proxy

import (
	"github.com/modelgate/modelgate/internal/platform/sse"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// streamErrorEvent renders e as the server-sent event that ends a stream
// of the client's shape when the upstream fails after the stream has
// started (the status line is gone, so the error travels in the stream):
// an "error" event in the Anthropic envelope on Messages, an "error"
// event of the Responses API on Responses, and on Chat Completions and
// anything else a data-only event carrying the gateway error object, which
// the OpenAI SDKs raise. No [DONE] or message_stop follows it.
func streamErrorEvent(in ingress, e *apierr.Error) []byte {
	name, data := "", apierr.Body(e)
	switch in {
	case ingressMessages:
		name, data = "error", apierr.AnthropicBody(e)
	case ingressResponses:
		name, data = "error", apierr.ResponsesEventBody(e)
	}
	return sse.AppendEnd(append(sse.AppendStart(nil, name), data...))
}
