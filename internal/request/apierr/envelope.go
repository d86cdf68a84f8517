package apierr

import "strings"

// AnthropicTypes are the error types of the Anthropic envelope: every
// value AnthropicType returns.
var AnthropicTypes = []string{
	"invalid_request_error", "authentication_error", "permission_error", "not_found_error",
	"request_too_large", "rate_limit_error", "api_error", "overloaded_error",
}

// AnthropicEnvelope reports whether errors on path are sent in the
// Anthropic envelope rather than the gateway shape: the /v1/messages
// routes (messages and their token count), whose clients are Anthropic
// SDKs.
func AnthropicEnvelope(path string) bool {
	return strings.HasPrefix(path, "/v1/messages")
}
