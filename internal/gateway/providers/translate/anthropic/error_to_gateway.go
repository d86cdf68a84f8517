package anthropic

import (
	"net/http"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/request/apierr"
)

// ErrorToGateway maps an Anthropic error response (status and
// body {"type":"error","error":{"type":...,"message":...}}) onto a gateway
// error type and message. Anthropic's own type decides where it is known;
// otherwise the status does. An empty or unreadable body yields the
// status text as message.
func ErrorToGateway(status int, body []byte) (typ, message string) {
	var anthType string
	if gjson.ValidBytes(body) {
		e := gjson.GetBytes(body, "error")
		if e.IsObject() {
			anthType, message = e.Get("type").Str, e.Get("message").Str
		} else {
			message = gjson.GetBytes(body, "message").Str
		}
	} else {
		message = strings.TrimSpace(string(body))
		if len(message) > 512 {
			message = message[:512]
		}
	}
	if message == "" {
		message = http.StatusText(status)
		if message == "" {
			message = "upstream error"
		}
	}
	return anthropicTypeToGateway(anthType, status), message
}

// anthropicTypeToGateway maps an Anthropic error type, falling back on the
// HTTP status for types it does not know.
func anthropicTypeToGateway(anthType string, status int) string {
	switch anthType {
	case "invalid_request_error", "request_too_large":
		return apierr.TypeInvalidRequest
	case "authentication_error", "permission_error":
		return apierr.TypeAuthentication
	case "not_found_error":
		return apierr.TypeNotFound
	case "rate_limit_error":
		return apierr.TypeRateLimit
	case "api_error", "overloaded_error", "billing_error", "timeout_error":
		return apierr.TypeProvider
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return apierr.TypeAuthentication
	case status == http.StatusNotFound:
		return apierr.TypeNotFound
	case status == http.StatusTooManyRequests:
		return apierr.TypeRateLimit
	case status >= 400 && status < 500:
		return apierr.TypeInvalidRequest
	default:
		return apierr.TypeProvider
	}
}

// chatErrorTypeToAnthropic maps the type (or code) of an OpenAI-style
// error object onto an Anthropic error type, for errors that arrive in the
// middle of a chat stream.
func chatErrorTypeToAnthropic(typ, code string) string {
	for _, t := range []string{typ, code} {
		switch t {
		case "invalid_request_error", "context_length_exceeded":
			return "invalid_request_error"
		case "authentication_error", "invalid_api_key":
			return "authentication_error"
		case "permission_error":
			return "permission_error"
		case "not_found_error", "model_not_found":
			return "not_found_error"
		case "rate_limit_error", "rate_limit_exceeded", "insufficient_quota":
			return "rate_limit_error"
		case "overloaded_error", "server_overloaded":
			return "overloaded_error"
		}
	}
	return "api_error"
}
