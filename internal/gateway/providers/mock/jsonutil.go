package mock

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/tidwall/gjson"
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

// members returns the members of obj named in names, in the order of
// names, each the first member of its name (the one gjson's Get finds),
// read in one walk over obj. A name obj lacks gives the zero Result. A
// request's long values (a conversation, a tool's schema) are walked once
// this way, where a Get per name would walk past them again for every
// name that follows them.
func members(obj gjson.Result, names ...string) []gjson.Result {
	out := make([]gjson.Result, len(names))
	left := len(names)
	obj.ForEach(func(k, v gjson.Result) bool {
		for i, n := range names {
			if k.Str == n && !out[i].Exists() {
				out[i] = v
				left--
				break
			}
		}
		return left > 0
	})
	return out
}
