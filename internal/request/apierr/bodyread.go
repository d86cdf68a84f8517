package apierr

import (
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
)

// CodeRequestTimeout is the code of a request whose body the client did
// not send within the gateway's read_body_timeout.
const CodeRequestTimeout = "request_timeout"

// RequestTimeout is the answer to a request whose body did not arrive in
// time: 408 invalid_request_error, code request_timeout.
func RequestTimeout() *Error {
	return New(http.StatusRequestTimeout, TypeInvalidRequest,
		"the request body did not arrive in time (read_body_timeout)").WithCode(CodeRequestTimeout)
}

// TimedOut reports whether err, met while reading a request body, is a
// read deadline passing: the gateway's read_body_timeout (set with
// http.ResponseController.SetReadDeadline) or a server read timeout. Such
// an error is os.ErrDeadlineExceeded, or wraps it, or is a net.Error that
// says it timed out.
func TimedOut(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// BodyReadError is the answer to a request body that could not be read
// because of err (a body over a size limit is each reader's own 413):
// RequestTimeout when the read timed out (TimedOut), otherwise 400
// invalid_request_error with a fixed message and code (none when code is
// empty). err's text, which names the connection's addresses, is never
// quoted.
func BodyReadError(err error, code string) *Error {
	if TimedOut(err) {
		return RequestTimeout()
	}
	e := InvalidRequest("the request body could not be read")
	if code != "" {
		e.WithCode(code)
	}
	return e
}

// MultipartError is the answer to a multipart/form-data body that failed
// with err while being read or parsed (a body over a size limit is each
// reader's own 413): BodyReadError when the connection failed (a timeout
// is 408), otherwise 400 invalid_multipart naming what is malformed.
func MultipartError(err error) *Error {
	var op *net.OpError
	if TimedOut(err) || errors.As(err, &op) {
		return BodyReadError(err, CodeInvalidMultipart)
	}
	return InvalidRequest("malformed multipart body: " + err.Error()).WithCode(CodeInvalidMultipart)
}

// CheckJSONMediaType admits a request body only when its Content-Type is
// application/json, in any letter case and with or without parameters
// (charset=utf-8). Anything else, a missing header included, gets 415
// invalid_request_error, code unsupported_media_type. A web page can make
// a visitor's browser post form data, text/plain, or a bare byte body
// without any Content-Type to a local gateway without the browser asking
// first; only application/json needs that permission, so requiring it
// keeps web pages from spending the visitor's provider credit or changing
// a gateway's settings.
func CheckJSONMediaType(h http.Header) error {
	ct := h.Get("Content-Type")
	mt, _, _ := strings.Cut(ct, ";")
	if strings.EqualFold(strings.TrimSpace(mt), "application/json") {
		return nil
	}
	msg := "this endpoint takes a JSON body: send the header Content-Type: application/json"
	if ct == "" {
		msg += " (it is missing; a request without it is refused too)"
	} else {
		msg += " (got " + quoteMediaType(mt) + ")"
	}
	return New(http.StatusUnsupportedMediaType, TypeInvalidRequest, msg).
		WithParam("Content-Type").WithCode("unsupported_media_type")
}

// quoteMediaType quotes a client's media type for an error message,
// shortened and with control characters dropped.
func quoteMediaType(mt string) string {
	mt = strings.TrimSpace(mt)
	if len(mt) > 64 {
		mt = mt[:64] + "..."
	}
	return "\"" + strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '"' {
			return -1
		}
		return r
	}, mt) + "\""
}

// OriginNotAllowed is the answer to a request that a browser marks as
// sent by another site's page, where such requests are refused: 403
// invalid_request_error, code origin_not_allowed, with msg.
func OriginNotAllowed(msg string) *Error {
	return New(http.StatusForbidden, TypeInvalidRequest, msg).WithCode("origin_not_allowed")
}
