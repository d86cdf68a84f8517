package proxy

import (
	"encoding/json"

	"github.com/modelgate/modelgate/internal/request/apierr"
)

// streamErrorEvent renders e as the server-sent event that ends a stream
// of the client's shape when the upstream fails after the stream has
// started (the status line is gone, so the error travels in the stream):
//
//   - Anthropic Messages: an "error" event with the Anthropic envelope,
//     {"type":"error","error":{"type":...,"message":...}};
//   - Responses: an "error" event, {"type":"error","code":...,
//     "message":...,"param":...};
//   - Chat Completions and anything else: a data-only event carrying the
//     gateway error object, {"error":{...}}, which the OpenAI SDKs raise.
//
// No [DONE] or message_stop follows it.
func streamErrorEvent(in ingress, e *apierr.Error) []byte {
	switch in {
	case ingressMessages:
		return sseEvent("error", struct {
			Type  string `json:"type"`
			Error struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}{Type: "error", Error: struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		}{apierr.AnthropicType(e), e.Message}})
	case ingressResponses:
		return sseEvent("error", struct {
			Type    string  `json:"type"`
			Code    *string `json:"code"`
			Message string  `json:"message"`
			Param   *string `json:"param"`
		}{"error", e.Code, e.Message, e.Param})
	}
	return sseEvent("", struct {
		Error *apierr.Error `json:"error"`
	}{e})
}

// sseEvent encodes v as one server-sent event, named when name is set.
func sseEvent(name string, v any) []byte {
	data, _ := json.Marshal(v)
	var out []byte
	if name != "" {
		out = append(append(append(out, "event: "...), name...), '\n')
	}
	out = append(append(append(out, "data: "...), data...), "\n\n"...)
	return out
}
