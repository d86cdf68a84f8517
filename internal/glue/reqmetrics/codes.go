package reqmetrics

// OtherCode is the label of an error code the gateway does not define
// (an upstream's own code relayed to the client): the GenAI conventions'
// fallback value of error.type.
const OtherCode = "_OTHER"

// gatewayCodes are the error codes and types the gateway answers with. An
// error code label is one of these or OtherCode, so that an upstream
// cannot grow the label's values.
var gatewayCodes = map[string]bool{}

func init() {
	for _, c := range []string{
		// Error types, recorded as the code of an error that has none.
		"provider_error", "rate_limit_error", "invalid_request_error", "authentication_error", "not_found_error",
		// Refusals of the request itself.
		"invalid_json", "invalid_type", "invalid_value", "invalid_multipart", "invalid_path", "invalid_user_path",
		"duplicate_field", "missing_required_parameter", "unknown_field", "request_too_large", "request_timeout",
		"unsupported_media_type", "unsupported_endpoint", "unsupported_feature", "unknown_route", "method_not_allowed",
		"websocket_upgrade_required", "unsupported_websocket_version", "invalid_websocket_handshake",
		"passthrough_not_enabled", "origin_not_allowed", "host_not_allowed", "conflicting_credentials", "endpoint_sunset",
		// Models and access.
		"model_not_found", "model_access_denied", "virtual_models_unavailable",
		// Credentials.
		"missing_api_key", "invalid_api_key", "api_key_expired", "api_key_deactivated", "keys_unavailable",
		// Limits and budgets.
		"rate_limit_exceeded", "rate_limits_unavailable", "budget_exceeded", "session_limit_exceeded",
		// The gateway's state.
		"not_ready", "gateway_not_ready", "storage_error", "storage_unavailable",
		// Upstream failures, in the gateway's words.
		"upstream_timeout", "upstream_unreachable", "upstream_read_failed", "upstream_response_too_large",
		"upstream_redirect", "upstream_auth_failed", "stream_truncated",
		// How the answer ended.
		"client_disconnected", "answer_aborted", "internal_error",
	} {
		gatewayCodes[c] = true
	}
}

// BoundCode returns code when the gateway defines it, else OtherCode.
func BoundCode(code string) string {
	if gatewayCodes[code] {
		return code
	}
	return OtherCode
}
