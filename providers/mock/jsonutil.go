package mock

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

// appendJSON appends the JSON encoding of v to dst, without a trailing
// newline and without HTML escaping (like OpenAI's own responses).
func appendJSON(dst []byte, v any) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	b := buf.Bytes()
	return b[:len(b)-1], nil // drop the Encoder's newline
}

// jsonString returns s as a JSON string literal.
func jsonString(s string) string {
	b, _ := appendJSON(nil, s) // encoding a string cannot fail
	return string(b)
}

// writeJSON writes v as a JSON response with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := appendJSON(nil, v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"message":"mock: cannot encode response","type":"server_error","param":null,"code":null}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
