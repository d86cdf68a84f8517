// Package jsonbody reads a JSON request body into a Go value and turns
// every way that can fail into the gateway's error: the one rule for the
// admin API's bodies and the other JSON bodies the gateway itself
// decodes (batches). Model request bodies, which the gateway relays
// rather than decodes, are read by reqbody.
package jsonbody

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

	"github.com/modelgate/modelgate/internal/request/apierr"
)

// Options say how Decode reads a body.
type Options struct {
	// MaxBytes caps the body; a longer one is 413 request_too_large.
	// Zero means DefaultMaxBytes.
	MaxBytes int64
	// AllowUnknown lets members the destination does not name pass;
	// otherwise each is 400 unknown_field.
	AllowUnknown bool
}

// DefaultMaxBytes is the cap of a body when Options.MaxBytes is zero:
// 1 MiB.
const DefaultMaxBytes = 1 << 20

// Decode decodes one JSON object from r's body into dst, or returns the
// gateway error that refuses it: 413 request_too_large over the cap, 400
// invalid_json for a body that is not one JSON object (trailing data
// included), 400 invalid_type or invalid_value naming a member of the
// wrong type by its JSON path, 400 unknown_field unless unknown members
// are allowed, a field a custom decoder refuses (apierr.FieldError) by
// its name, and 408 request_timeout for a body that did not arrive in time
// (apierr.BodyReadError). An empty body decodes as {}. Messages name the offending
// field but never quote the body.
func Decode(w http.ResponseWriter, r *http.Request, dst any, o Options) *apierr.Error {
	max := o.MaxBytes
	if max <= 0 {
		max = DefaultMaxBytes
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return apierr.New(http.StatusRequestEntityTooLarge, apierr.TypeInvalidRequest,
				"request body is larger than "+sizeText(max)).WithCode("request_too_large")
		}
		return apierr.BodyReadError(err, "invalid_json")
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if !o.AllowUnknown {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(dst); err != nil {
		return bodyError(dst, data, err)
	}
	if dec.More() {
		return apierr.InvalidRequest("request body must hold one JSON object").WithCode("invalid_json")
	}
	return nil
}

// bodyError turns an error decoding data into dst into a 400 naming the
// field by its JSON path, with the indexes of the array elements it is
// in (see fieldPath).
func bodyError(dst any, data []byte, err error) *apierr.Error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return apierr.InvalidRequest("request body must be a JSON object").WithCode("invalid_json")
		}
		field := fieldPath(dst, data, typeErr)
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
	var fe *apierr.FieldError
	if errors.As(err, &fe) {
		return apierr.InvalidRequest(fe.Error()).WithCode("invalid_value").WithParam(fe.Field)
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

// fieldPath returns the JSON path of the member a type error refused, as
// the client wrote it: with array indexes ("targets[1].weight") when the
// value at the error's offset is that member, else without them. The
// offset of an error from a member's own UnmarshalJSON counts from that
// member's start, not the body's, and then names some other value.
func fieldPath(dst any, data []byte, e *json.UnmarshalTypeError) string {
	field := jsonPath(dst, e.Field)
	if p := pathAt(data, e.Offset); withoutIndexes(p) == field {
		return p
	}
	return field
}

// withoutIndexes drops the array indexes of a path: "a[1].b[0]" is "a.b".
func withoutIndexes(p string) string {
	var sb strings.Builder
	for {
		i := strings.IndexByte(p, '[')
		if i < 0 {
			return sb.String() + p
		}
		sb.WriteString(p[:i])
		j := strings.IndexByte(p[i:], ']')
		if j < 0 {
			return sb.String()
		}
		p = p[i+j+1:]
	}
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

// sizeText writes a byte count for messages: "1 MiB", "512 KiB", or bytes.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
