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
