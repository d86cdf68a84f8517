package apierr

import (
	"errors"
	"net"
	"net/http"
	"os"
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
