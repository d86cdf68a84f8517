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
		return bodyError(dst, err)
	}
	if dec.More() {
		return apierr.InvalidRequest("request body must hold one JSON object").WithCode("invalid_json")
	}
	return nil
}

// bodyError turns an error decoding into dst into a 400 naming the
// field by its JSON path.
func bodyError(dst any, err error) *apierr.Error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return apierr.InvalidRequest("request body must be a JSON object").WithCode("invalid_json")
		}
		field := jsonPath(dst, typeErr.Field)
		if msg, ok := wholeNumberMessage(typeErr); ok {
			return apierr.InvalidRequest(field + " " + msg).WithCode("invalid_value").WithParam(field)
		}
		return apierr.InvalidRequest(field + " must be of type " + jsonType(typeErr.Type)).
			WithCode("invalid_type").WithParam(field)
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

// jsonType names the JSON type a value of Go type t is written as.
func jsonType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		if t.PkgPath() == "time" {
			return "string (RFC 3339 time)"
		}
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map:
		return "object"
	case reflect.Struct:
		if t.PkgPath() == "time" && t.Name() == "Time" {
			return "string (RFC 3339 time)"
		}
		return "object"
	}
	if t.Kind() >= reflect.Int && t.Kind() <= reflect.Float64 {
		return "number"
	}
	return "value"
}

// jsonPath returns the JSON path of a decoding error's field, as the
// client wrote it: encoding/json names a field promoted from an embedded
// struct with that struct's Go type name in front ("rateLimitKey.period_seconds"),
// which the client never sees. dst is the value decoded into.
func jsonPath(dst any, field string) string {
	t := reflect.TypeOf(dst)
	var out []string
	for _, seg := range strings.Split(field, ".") {
		for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map) {
			t = t.Elem()
		}
		if t != nil && t.Kind() == reflect.Struct {
			if f, ok := t.FieldByName(seg); ok && f.Anonymous && f.Tag.Get("json") == "" {
				t = f.Type
				continue // an embedded struct: not part of the client's path
			}
			t = jsonField(t, seg)
		} else {
			t = nil
		}
		out = append(out, seg)
	}
	return strings.Join(out, ".")
}

// jsonField returns the type of the field of struct t (or of a struct
// embedded in it) written as name in JSON, or nil.
func jsonField(t reflect.Type, name string) reflect.Type {
	for _, f := range reflect.VisibleFields(t) {
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == name || (tag == "" && strings.EqualFold(f.Name, name)) {
			return f.Type
		}
	}
	return nil
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
