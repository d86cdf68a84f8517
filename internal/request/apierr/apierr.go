// Package apierr defines the gateway error object and writes it in the
// gateway error shape, {"error": {...}}, or in the Anthropic envelope for
// /v1/messages callers.
package apierr

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// Error types of the gateway error object: the error.type field, which
// tells the class of failure (provider, rate limit, ...) apart.
const (
	TypeProvider       = "provider_error"
	TypeRateLimit      = "rate_limit_error"
	TypeInvalidRequest = "invalid_request_error"
	TypeAuthentication = "authentication_error"
	TypeNotFound       = "not_found_error"
)

// Codes of a refused request's field, shared by every endpoint that checks
// its input, so that one mistake is named the same way everywhere.
const (
	// CodeMissingParameter is a required field or query parameter left
	// out.
	CodeMissingParameter = "missing_required_parameter"
	// CodeInvalidValue is a field or query parameter whose value is not
	// one the endpoint takes.
	CodeInvalidValue = "invalid_value"
	// CodeInvalidMultipart is a multipart/form-data body that does not
	// parse.
	CodeInvalidMultipart = "invalid_multipart"
)

// Error is the gateway error object. It implements error so it can travel
// through ordinary Go error returns and be recovered with errors.As.
type Error struct {
	// Type is one of the Type* constants.
	Type string `json:"type"`
	// Message is a human-readable explanation. It never contains a secret.
	Message string `json:"message"`
	// Code is a machine-readable reason, or null.
	Code *string `json:"code"`
	// Param names the offending request parameter, or null.
	Param *string `json:"param"`
	// Provider is the provider instance involved, if any.
	Provider string `json:"provider"`
	// StatusCode is the HTTP status sent with the error.
	StatusCode int `json:"status_code"`
	// RetryAfter, when positive, is sent as the Retry-After header in
	// seconds. It is not part of the body.
	RetryAfter int `json:"-"`
	// RetryAfterHeader, when set, is sent as the Retry-After header as it
	// is (an upstream's value: seconds or an HTTP date), instead of
	// RetryAfter.
	RetryAfterHeader string `json:"-"`
}

// Error implements the error interface.
func (e *Error) Error() string { return e.Message }

// New returns an error of the given status and type.
func New(status int, typ, message string) *Error {
	return &Error{Type: typ, Message: message, StatusCode: status}
}

// WithCode sets the machine-readable code and returns e.
func (e *Error) WithCode(code string) *Error { e.Code = &code; return e }

// WithParam sets the offending parameter and returns e.
func (e *Error) WithParam(param string) *Error { e.Param = &param; return e }

// WithProvider sets the provider name and returns e.
func (e *Error) WithProvider(name string) *Error { e.Provider = name; return e }

// WithUpstreamRetryAfter passes on an upstream's Retry-After header value
// as sent (seconds or an HTTP date); without one, a 429 asks the client
// to wait a second.
func (e *Error) WithUpstreamRetryAfter(value string) *Error {
	if value = strings.TrimSpace(value); value != "" {
		e.RetryAfterHeader = value
	} else if e.StatusCode == http.StatusTooManyRequests {
		e.RetryAfter = 1
	}
	return e
}

// InvalidRequest is a 400 invalid_request_error.
func InvalidRequest(message string) *Error {
	return New(http.StatusBadRequest, TypeInvalidRequest, message)
}

// NotFound is a 404 not_found_error.
func NotFound(message string) *Error {
	return New(http.StatusNotFound, TypeNotFound, message)
}

// UnknownRoute is the 404 invalid_request_error with code unknown_route that
// answers a method and path no endpoint serves.
func UnknownRoute(message string) *Error {
	return New(http.StatusNotFound, TypeInvalidRequest, message).WithCode("unknown_route")
}

// Unauthorized is a 401 authentication_error.
func Unauthorized(message string) *Error {
	return New(http.StatusUnauthorized, TypeAuthentication, message)
}

// ProviderError is a provider_error with the given status (5xx from the
// upstream, 502 unreachable, 504 timeout).
func ProviderError(status int, provider, message string) *Error {
	return New(status, TypeProvider, message).WithProvider(provider)
}

// UpstreamTimeout is the answer when provider did not answer in time:
// 504 provider_error, code upstream_timeout, with a fixed message.
func UpstreamTimeout(provider string) *Error {
	return ProviderError(http.StatusGatewayTimeout, provider,
		"provider "+provider+" did not answer in time").WithCode("upstream_timeout")
}

// UpstreamUnreachable is the answer when provider could not be reached:
// 502 provider_error, code upstream_unreachable, with a fixed message.
func UpstreamUnreachable(provider string) *Error {
	return ProviderError(http.StatusBadGateway, provider,
		"provider "+provider+" is unreachable").WithCode("upstream_unreachable")
}

// TypeForStatus is the error type of an upstream's error answer of
// status: authentication_error for 401 and 403, not_found_error for 404,
// rate_limit_error for 429, provider_error for 5xx and
// invalid_request_error for the rest.
func TypeForStatus(status int) string {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return TypeAuthentication
	case status == http.StatusNotFound:
		return TypeNotFound
	case status == http.StatusTooManyRequests:
		return TypeRateLimit
	case status >= 500:
		return TypeProvider
	default:
		return TypeInvalidRequest
	}
}

// From returns err as an *Error, wrapping any other error as a 500
// provider_error whose message is err's text.
func From(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return New(http.StatusInternalServerError, TypeProvider, err.Error())
}

// Write sends err in the gateway error shape.
func Write(w http.ResponseWriter, err error) {
	e := From(err)
	writeBody(w, e, Body(e))
}

// WriteAnthropic sends err in the Anthropic error envelope, used on
// /v1/messages routes.
func WriteAnthropic(w http.ResponseWriter, err error) {
	e := From(err)
	writeBody(w, e, AnthropicBody(e))
}

// Body is e in the gateway error shape, {"error":{...}}: the body of an
// error answer, and the data of the event that ends a broken Chat
// Completions stream.
func Body(e *Error) []byte {
	b, _ := json.Marshal(struct {
		Error *Error `json:"error"`
	}{e})
	return b
}

// AnthropicBody is e in the Anthropic error envelope,
// {"type":"error","error":{"type":...,"message":...}}: the body of an
// error answer on /v1/messages, and the data of the "error" event that
// ends a broken Messages stream.
func AnthropicBody(e *Error) []byte {
	b, _ := json.Marshal(struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}{Type: "error", Error: struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}{Type: AnthropicType(e), Message: e.Message}})
	return b
}

// ResponsesEventBody is e as the Responses API's stream error event
// carries it, {"type":"error","code":...,"message":...,"param":...}: the
// data of the "error" event that ends a broken Responses stream.
func ResponsesEventBody(e *Error) []byte {
	b, _ := json.Marshal(struct {
		Type    string  `json:"type"`
		Code    *string `json:"code"`
		Message string  `json:"message"`
		Param   *string `json:"param"`
	}{"error", e.Code, e.Message, e.Param})
	return b
}

// AnthropicType maps a gateway error onto the closest Anthropic error type.
func AnthropicType(e *Error) string {
	switch {
	case e.StatusCode == http.StatusUnauthorized:
		return "authentication_error"
	case e.StatusCode == http.StatusForbidden:
		return "permission_error"
	case e.StatusCode == http.StatusNotFound:
		return "not_found_error"
	case e.StatusCode == http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case e.StatusCode == http.StatusTooManyRequests:
		return "rate_limit_error"
	case e.StatusCode == 529:
		return "overloaded_error"
	case e.StatusCode >= 500:
		return "api_error"
	default:
		return "invalid_request_error"
	}
}

// Record notes err, the gateway error a request ends with, on its info
// (nil: nothing is noted) for logs and the audit entry: its code (or its
// type when it has no code), type, message and the status it is sent
// with. WriteFor records what it writes; a handler records this way a
// failure it can no longer send as a status line, such as an upstream
// stream that broke off once the client's stream had begun. It returns
// err as an *Error.
func Record(info *reqinfo.Info, err error) *Error {
	e := From(err)
	if info == nil {
		return e
	}
	info.ErrorCode = e.Type
	if e.Code != nil {
		info.ErrorCode = *e.Code
	}
	info.ErrorType, info.ErrorMessage = e.Type, e.Message
	info.ErrorStatus = sentStatus(e)
	return e
}

// sentStatus is the status e is sent with: its own, or 500 when that is
// not an error status.
func sentStatus(e *Error) int {
	if e.StatusCode < 400 || e.StatusCode > 599 {
		return http.StatusInternalServerError
	}
	return e.StatusCode
}

func writeBody(w http.ResponseWriter, e *Error, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	switch {
	case e.RetryAfterHeader != "":
		h.Set("Retry-After", e.RetryAfterHeader)
	case e.RetryAfter > 0:
		h.Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	status := sentStatus(e)
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		// A refused credential stays refused: clients that honour this
		// header (the Anthropic and OpenAI SDKs, Claude Code) report it at
		// once instead of retrying for minutes.
		h.Set("X-Should-Retry", "false")
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// WriteFor sends err in the envelope the route's clients expect: the
// Anthropic one where AnthropicEnvelope says so, the gateway shape
// everywhere else. The error is recorded on the request's reqinfo.Info
// (Record), for logs and the audit entry.
func WriteFor(w http.ResponseWriter, r *http.Request, err error) {
	if info := reqinfo.From(r.Context()); info != nil {
		err = Record(info, err)
	}
	if AnthropicEnvelope(r.URL.Path) {
		WriteAnthropic(w, err)
		return
	}
	Write(w, err)
}
