package admin

import (
	"testing"
)

// errorRef returns the $ref of the error response status of operation
// key ("POST /v1/messages") in doc, "" when it has none.
func errorRef(t *testing.T, ops map[string]map[string]any, key, status string) string {
	t.Helper()
	op := ops[key]
	if op == nil {
		t.Fatalf("document lacks %s", key)
	}
	r, _ := op["responses"].(map[string]any)[status].(map[string]any)
	ref, _ := r["$ref"].(string)
	return ref
}

// TestOpenAPIAnthropicErrors: the /v1/messages routes document their
// errors in the Anthropic envelope they answer in; the other model
// routes in the gateway shape.
func TestOpenAPIAnthropicErrors(t *testing.T) {
	h, _ := newTestHandler(t, nil)
	doc := fetchDoc(t, h)
	ops := docOps(doc)
	for key, want := range map[string]string{
		"POST /v1/messages":              "#/components/responses/AnthropicError",
		"POST /v1/messages/count_tokens": "#/components/responses/AnthropicError",
		"POST /v1/chat/completions":      "#/components/responses/Error",
	} {
		for _, status := range []string{"400", "401"} {
			if got := errorRef(t, ops, key, status); got != want {
				t.Errorf("%s %s: %q, want %q", key, status, got, want)
			}
		}
	}
	s := doc["components"].(map[string]any)["schemas"].(map[string]any)["AnthropicErrorResponse"].(map[string]any)
	inner := s["properties"].(map[string]any)["error"].(map[string]any)
	if len(inner["required"].([]any)) != 2 || s["properties"].(map[string]any)["type"].(map[string]any)["const"] != "error" {
		t.Errorf("envelope schema %v", s)
	}
}

// TestOpenAPIModelRefusals: the model routes document the refusals every
// one of them answers: 403 for a model the caller may not use or a call
// from another site's page, 415 for a body that is not JSON; the realtime
// route 426 for a request without the WebSocket upgrade.
func TestOpenAPIModelRefusals(t *testing.T) {
	h, _ := newTestHandler(t, nil)
	ops := docOps(fetchDoc(t, h))
	for _, key := range []string{"POST /v1/chat/completions", "POST /v1/responses", "POST /v1/messages", "POST /v1/messages/count_tokens",
		"POST /v1/embeddings", "POST /v1/audio/speech", "POST /v1/audio/transcriptions", "POST /v1/files", "POST /v1/batches"} {
		for _, status := range []string{"403", "415"} {
			if status == "403" && (key == "POST /v1/files" || key == "POST /v1/batches") {
				continue
			}
			if errorRef(t, ops, key, status) == "" {
				t.Errorf("%s: no %s", key, status)
			}
		}
	}
	for _, status := range []string{"403", "426"} {
		if errorRef(t, ops, "GET /v1/realtime", status) == "" {
			t.Errorf("GET /v1/realtime: no %s", status)
		}
	}
}

// TestOpenAPIPassthroughRelays: passthrough documents the provider's
// relayed answers, of any status and body, as its default response; only
// 401 and 403, which the gateway always answers itself, name the gateway
// error.
func TestOpenAPIPassthroughRelays(t *testing.T) {
	h, _ := newTestHandler(t, nil)
	ops := docOps(fetchDoc(t, h))
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
		key := m + " /p/{provider}/{path}"
		responses := ops[key]["responses"].(map[string]any)
		def, ok := responses["default"].(map[string]any)
		if !ok || def["content"] != nil {
			t.Errorf("%s: default response %v", key, responses["default"])
		}
		for _, status := range []string{"401", "403"} {
			if errorRef(t, ops, key, status) != "#/components/responses/Error" {
				t.Errorf("%s: %s is not the gateway error", key, status)
			}
		}
		for _, status := range []string{"404", "429", "502"} {
			if _, listed := responses[status]; listed {
				t.Errorf("%s: %s names one body, but a provider's relayed %s has its own", key, status, status)
			}
		}
	}
}

// TestOpenAPIUpstreamStatuses: routes that call a provider document the
// 4XX and 5XX ranges, since a provider's refusal or failure is answered
// with its own status; the gateway's own routes do not.
func TestOpenAPIUpstreamStatuses(t *testing.T) {
	h, _ := newTestHandler(t, nil)
	ops := docOps(fetchDoc(t, h))
	for key, want := range map[string]string{
		"POST /v1/chat/completions": "#/components/responses/Error", "POST /v1/messages": "#/components/responses/AnthropicError",
		"POST /v1/audio/speech": "#/components/responses/Error", "POST /v1/batches": "#/components/responses/Error",
		"GET /v1/realtime": "#/components/responses/Error", "GET /v1/models": "", "GET /admin/auth-keys": "",
	} {
		for _, status := range []string{"4XX", "5XX"} {
			if got := errorRef(t, ops, key, status); got != want {
				t.Errorf("%s %s: %q, want %q", key, status, got, want)
			}
		}
	}
}

// TestOpenAPIRequestTimeout: every operation that takes a request body
// documents 408, the answer to a body not sent whole within
// read_body_timeout.
func TestOpenAPIRequestTimeout(t *testing.T) {
	h, _ := newTestHandler(t, nil)
	ops := docOps(fetchDoc(t, h))
	n := 0
	for key, op := range ops {
		if _, ok := op["requestBody"]; !ok {
			continue
		}
		n++
		if errorRef(t, ops, key, "408") == "" {
			t.Errorf("%s takes a body but documents no 408", key)
		}
	}
	if n == 0 {
		t.Fatal("no operation takes a body")
	}
}
