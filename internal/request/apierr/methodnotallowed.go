package apierr

import (
	"net/http"
	"strings"
)

// WriteMethodNotAllowed answers a request whose path does not take its
// method: 405 invalid_request_error, code method_not_allowed, with the
// Allow header set to allow (the methods the path takes, comma-separated,
// HEAD included wherever GET is) and a message naming the method, the
// path and the methods to use instead.
func WriteMethodNotAllowed(w http.ResponseWriter, r *http.Request, allow string) {
	path := r.URL.Path
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/")
	}
	w.Header().Set("Allow", allow)
	WriteFor(w, r, New(http.StatusMethodNotAllowed, TypeInvalidRequest,
		"method "+r.Method+" is not allowed on "+path+"; use "+orList(allow)).
		WithCode("method_not_allowed"))
}

// orList writes the comma-separated list allow as prose: "A, B or C".
func orList(allow string) string {
	if i := strings.LastIndex(allow, ", "); i >= 0 {
		return allow[:i] + " or " + allow[i+2:]
	}
	return allow
}
