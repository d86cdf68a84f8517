package proxy

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqbody"
)

// fullValidationLimit is the largest body the gateway validates as a whole
// before forwarding. Validation is most of the gateway's per-byte cost
// (about 85 µs for 64 KiB here); a larger body that passes through
// untranslated is checked by the upstream, whose 400 reaches the client in
// the gateway shape, and translated bodies are parsed in full anyway. The
// fields the gateway reads (model, stream) are read in both cases.
const fullValidationLimit = 16 << 10

// memberHeadroom is spare capacity readBody leaves after a body, so the
// proxy can add stream_options without copying it (appendMember).
const memberHeadroom = 64

// checkSharedBody applies readBody's checks to a body read by an earlier
// stage.
func checkSharedBody(r *http.Request, body []byte, max int64) error {
	if err := apierr.CheckJSONMediaType(r.Header); err != nil {
		return err
	}
	return checkBody(body, max)
}

// checkBody refuses a body read whole that is over max bytes (413), empty
// or, up to fullValidationLimit, not valid JSON (400).
func checkBody(body []byte, max int64) error {
	if max > 0 && int64(len(body)) > max {
		return tooLarge(max)
	}
	if len(body) == 0 {
		return apierr.InvalidRequest("request body is empty; expected a JSON object").WithCode("invalid_json")
	}
	if len(body) <= fullValidationLimit && !gjson.ValidBytes(body) {
		return malformed()
	}
	return nil
}

// readBody reads a JSON request body of at most max bytes. A body sent
// with another media type gets 415, an oversized one 413, a malformed one
// 400; scanFields checks that it is an object.
func readBody(r *http.Request, max int64) ([]byte, error) {
	if err := apierr.CheckJSONMediaType(r.Header); err != nil {
		return nil, err
	}
	if max > 0 && r.ContentLength > max {
		return nil, tooLarge(max)
	}
	var src io.Reader = r.Body
	if max > 0 {
		src = io.LimitReader(r.Body, max+1)
	}
	size := r.ContentLength
	if size <= 0 || size > 1<<20 {
		size = 4096
	}
	body, err := readAllSized(src, int(size)+memberHeadroom)
	if err != nil {
		return nil, bodyError(err, max)
	}
	if err := checkBody(body, max); err != nil {
		return nil, err
	}
	return body, nil
}

// bodyError is the answer to a request body of at most max bytes whose
// reading failed with err: 413 when an http.MaxBytesReader found it
// longer, else apierr.BodyReadError (408 when it did not arrive in time).
func bodyError(err error, max int64) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return tooLarge(max)
	}
	return apierr.BodyReadError(err, "")
}

func tooLarge(max int64) error {
	return apierr.New(http.StatusRequestEntityTooLarge, apierr.TypeInvalidRequest,
		fmt.Sprintf("request body exceeds the limit of %d bytes", max)).WithCode("request_too_large")
}

// readAllSized is io.ReadAll starting from a buffer of the expected size.
// An answer the proxy already read whole (bufferedAnswer) is handed over
// as it is.
func readAllSized(r io.Reader, size int) ([]byte, error) {
	if a, ok := r.(*bufferedAnswer); ok {
		return a.take(), nil
	}
	b := make([]byte, 0, size+1)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				return b, nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// modelName returns the request's model, or a 400 naming the param: the
// model is missing, not a string or longer than catalog.MaxModelIDLen.
func (f requestFields) modelName() (string, error) {
	raw := f.Model
	if raw == nil || string(raw) == "null" {
		return "", apierr.InvalidRequest("missing required parameter: model").WithParam("model").WithCode(apierr.CodeMissingParameter)
	}
	if len(raw) < 3 || raw[0] != '"' {
		return "", apierr.InvalidRequest("model must be a non-empty string").WithParam("model").WithCode(apierr.CodeInvalidValue)
	}
	s, _ := reqbody.Text(raw)
	if err := checkModelID(s); err != nil {
		return "", err
	}
	return s, nil
}

// checkModelID refuses a model id longer than catalog.MaxModelIDLen with 400
// invalid_value: the model becomes part of storage keys (the audit index,
// the usage aggregates), so it is bounded where it enters.
func checkModelID(model string) error {
	if err := catalog.CheckModelID(model); err != nil {
		return apierr.InvalidRequest(err.Error()).WithParam("model").WithCode(apierr.CodeInvalidValue)
	}
	return nil
}

// streamOn reports whether the request asks for a stream, reading the
// value as gjson's Bool does (true, a non-zero number, "true").
func (f requestFields) streamOn() bool {
	switch string(f.Stream) {
	case "", "false", "null":
		return false
	case "true":
		return true
	}
	return gjson.ParseBytes(f.Stream).Bool()
}

// streamOptionsValue returns the client's stream_options (absent: a
// Result whose Exists is false).
func (f requestFields) streamOptionsValue() gjson.Result {
	if f.StreamOptions == nil {
		return gjson.Result{}
	}
	return gjson.ParseBytes(f.StreamOptions)
}
