package proxy

import (
	"errors"

	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqbody"
)

// requestFields are the raw JSON values of the top-level members of a
// request body (see reqbody.Fields), with the proxy's readings of them.
type requestFields struct {
	reqbody.Fields
}

// scanFields reads the members of a request body with one pass over its
// top level (reqbody.Scan): a repeated model, stream, stream_options or
// max_tokens, or a top level that is not a well-formed object, is refused
// with a 400.
func scanFields(body []byte) (requestFields, error) {
	f, err := reqbody.Scan(body)
	return requestFields{f}, scanError(err)
}

// scanError turns reqbody's refusal of a body into the gateway's 400.
func scanError(err error) error {
	var se *reqbody.Error
	if !errors.As(err, &se) {
		return err
	}
	e := apierr.InvalidRequest(se.Message).WithCode(se.Code)
	if se.Param != "" {
		e = e.WithParam(se.Param)
	}
	return e
}

// malformed is the error for a body that is not valid JSON.
func malformed() error {
	return apierr.InvalidRequest("request body is not valid JSON").WithCode("invalid_json")
}
