package handlers

import (
	"net/http"
	"strings"
)

// requestKind says how the rate-limit stage treats a request.
type requestKind int

const (
	// uncounted requests pass without being checked or charged.
	uncounted requestKind = iota
	// modelCall requests count one request, hold a concurrency slot until
	// the answer is complete and are charged their tokens (spec part 8).
	modelCall
	// batchSubmission requests count one request against the user-path
	// rules and hold no slot (spec part 8 item 11).
	batchSubmission
)

// classify decides what a request costs. Rate limits apply to every model
// endpoint, including those added later, so the rule is by exclusion:
//
//   - Passthrough (/p/<provider>/...): every method reaches the upstream,
//     so every request counts.
//   - Under /v1/: POST counts, and GET /v1/realtime (a WebSocket session:
//     one request holding one slot for the whole session). Uncounted:
//     GET /v1/usage (polling it consumes no quota), /v1/models,
//     /v1/messages/count_tokens (it runs no model: the token count is
//     estimated or asked of a counting endpoint and uses no tokens),
//     /v1/files (batch input uploads) and the batch status and cancel
//     routes under /v1/batches/. POST /v1/batches is a batch submission.
//   - Everything else (/health, /admin/*, unknown routes) is uncounted.
func classify(method, path string) requestKind {
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/")
	}
	if strings.HasPrefix(path, "/p/") {
		return modelCall
	}
	rest, ok := strings.CutPrefix(path, "/v1/")
	if !ok {
		return uncounted
	}
	switch rest {
	case "usage", "models", "messages/count_tokens", "files":
		return uncounted
	case "batches":
		if method == http.MethodPost {
			return batchSubmission
		}
		return uncounted
	case "realtime":
		if method == http.MethodGet {
			return modelCall
		}
	}
	for _, p := range [...]string{"models/", "batches/", "files/"} {
		if strings.HasPrefix(rest, p) {
			return uncounted
		}
	}
	if method == http.MethodPost {
		return modelCall
	}
	return uncounted
}
