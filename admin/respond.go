package admin

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/modelgate/modelgate/apierr"
)

// maxBodyBytes caps admin request bodies.
const maxBodyBytes = 1 << 20

// writeJSON sends v with status. Admin answers are never cached.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		apierr.Write(w, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// decodeBody strictly decodes one JSON object from r's body into dst:
// unknown fields, trailing data and bodies over maxBodyBytes are refused.
// An empty body decodes as {}. Messages name the offending field but never
// quote the body.
func decodeBody(w http.ResponseWriter, r *http.Request, dst any) *apierr.Error {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return apierr.New(http.StatusRequestEntityTooLarge, apierr.TypeInvalidRequest,
				"request body is larger than 1 MiB").WithCode("request_too_large")
		}
		return apierr.InvalidRequest("could not read the request body").WithCode("invalid_json")
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return bodyError(err)
	}
	if dec.More() {
		return apierr.InvalidRequest("request body must hold one JSON object").WithCode("invalid_json")
	}
	return nil
}

// bodyError turns a JSON decoding error into a 400 naming the field.
func bodyError(err error) *apierr.Error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return apierr.InvalidRequest("request body must be a JSON object").WithCode("invalid_json")
		}
		if msg, ok := wholeNumberMessage(typeErr); ok {
			return apierr.InvalidRequest(typeErr.Field + " " + msg).WithCode("invalid_value").WithParam(typeErr.Field)
		}
		return apierr.InvalidRequest(typeErr.Field + " must be of type " + jsonType(typeErr.Type.String())).
			WithCode("invalid_type").WithParam(typeErr.Field)
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
		return apierr.InvalidRequest("request body is not valid JSON").WithCode("invalid_json")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return apierr.InvalidRequest("unknown field " + field).WithCode("unknown_field").WithParam(field)
	}
	// Errors from a field's own UnmarshalJSON, such as a malformed time.
	var fe *fieldError
	if errors.As(err, &fe) {
		return apierr.InvalidRequest(fe.msg).WithCode("invalid_value").WithParam(fe.field)
	}
	return apierr.InvalidRequest("request body is not valid JSON").WithCode("invalid_json")
}

// wholeNumberMessage says what is wrong with a JSON number that an integer
// field cannot hold: a fraction ("must be a whole number") or a value
// beyond the field's range ("is out of range: ..."). ok is false for any
// other type error.
func wholeNumberMessage(e *json.UnmarshalTypeError) (msg string, ok bool) {
	num, isNum := strings.CutPrefix(e.Value, "number ")
	if !isNum {
		return "", false
	}
	var lo, hi string
	switch k := e.Type.Kind(); {
	case k >= reflect.Int && k <= reflect.Int64:
		top := int64(math.MaxInt64 >> (64 - e.Type.Bits()))
		lo, hi = strconv.FormatInt(-top-1, 10), strconv.FormatInt(top, 10)
	case k >= reflect.Uint && k <= reflect.Uint64:
		lo, hi = "0", strconv.FormatUint(uint64(math.MaxUint64>>(64-e.Type.Bits())), 10)
	default:
		return "", false
	}
	if f, err := strconv.ParseFloat(num, 64); err == nil && f != math.Trunc(f) {
		return "must be a whole number", true
	}
	return "is out of range: it must be a whole number from " + lo + " to " + hi, true
}

// jsonType names a Go type the way a JSON client thinks of it.
func jsonType(goType string) string {
	switch {
	case goType == "string", strings.HasSuffix(goType, "*string"):
		return "string"
	case goType == "bool", strings.HasSuffix(goType, "*bool"):
		return "boolean"
	case strings.Contains(goType, "int"), strings.Contains(goType, "float"):
		return "number"
	case strings.Contains(goType, "Time"):
		return "string (RFC 3339 time)"
	}
	return goType
}

// fieldError is a field-level decoding error raised by a custom
// UnmarshalJSON.
type fieldError struct{ field, msg string }

// Error implements error.
func (e *fieldError) Error() string { return e.msg }

// confirmed decodes a body of the form {"confirmation": word} for a
// destructive action and reports whether it carries word. Otherwise it has
// answered 400: the decode error, or code confirmation_required naming
// what the action does.
func confirmed(w http.ResponseWriter, r *http.Request, word, action string) bool {
	var req struct {
		Confirmation string `json:"confirmation"`
	}
	if ae := decodeBody(w, r, &req); ae != nil {
		apierr.Write(w, ae)
		return false
	}
	if ae := confirmation(req.Confirmation, word, action); ae != nil {
		apierr.Write(w, ae)
		return false
	}
	return true
}

// confirmation checks a confirmation the caller sent (got) against the
// word action needs, returning the 400 confirmation_required when it is
// not that word.
func confirmation(got, word, action string) *apierr.Error {
	if got != word {
		return apierr.InvalidRequest(action + ` needs {"confirmation":"` + word + `"}`).
			WithCode("confirmation_required").WithParam("confirmation")
	}
	return nil
}
