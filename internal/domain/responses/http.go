package responses

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// Handler serves the stored-response routes in OpenAI's shapes:
// GET /v1/responses/{id}, GET /v1/responses/{id}/input_items and
// DELETE /v1/responses/{id}. A caller sees only its own user path's
// responses; any other id is 404. A response its provider keeps is
// relayed there. The route table has already checked the method.
type Handler struct {
	// Service keeps the responses.
	Service *Service
	// Relay answers r about a response the named provider instance keeps
	// by relaying it to that provider. nil answers such ids 404.
	Relay func(w http.ResponseWriter, r *http.Request, provider string)
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	userPath := "/"
	if info := reqinfo.From(r.Context()); info != nil && info.UserPath != "" {
		userPath = info.UserPath
	}
	rest := strings.TrimPrefix(strings.TrimSuffix(r.URL.Path, "/"), "/v1/responses/")
	id, items := strings.CutSuffix(rest, "/input_items")
	rec, err := h.Service.Get(userPath, id)
	if err == nil && rec.Native && h.Relay == nil {
		err = ErrNotFound
	}
	if err != nil {
		writeErr(w, r, err, id)
		return
	}
	if rec.Native {
		sw := &statusWriter{ResponseWriter: w}
		h.Relay(sw, r, rec.Provider)
		if r.Method == http.MethodDelete && sw.status < 300 {
			// Deleted at the provider: forget the record too.
			_ = h.Service.Delete(userPath, id)
		}
		return
	}
	switch {
	case r.Method == http.MethodDelete:
		if err := h.Service.Delete(userPath, id); err != nil {
			writeErr(w, r, err, id)
			return
		}
		writeJSON(w, r, struct {
			ID      string `json:"id"`
			Object  string `json:"object"`
			Deleted bool   `json:"deleted"`
		}{id, "response.deleted", true})
	case items:
		q := r.URL.Query()
		limit := DefaultLimit
		if v := q.Get("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > MaxLimit {
				apierr.WriteFor(w, r, apierr.InvalidRequest("limit must be an integer from 1 to 100").WithParam("limit").
					WithCode("invalid_value"))
				return
			}
			limit = n
		}
		order := q.Get("order")
		if order != "" && order != "asc" && order != "desc" {
			apierr.WriteFor(w, r, apierr.InvalidRequest("order must be asc or desc").WithParam("order").WithCode("invalid_value"))
			return
		}
		writeJSON(w, r, PageItems(rec.InputItems(), q.Get("after"), limit, order != "asc"))
	default:
		if v := r.URL.Query().Get("stream"); v == "true" {
			apierr.WriteFor(w, r, apierr.InvalidRequest("streaming a stored response again is not supported; read it without stream").
				WithParam("stream").WithCode("unsupported_feature"))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(rec.Response)
	}
}

// NotFoundError is the 404 of a response id the caller cannot see, worded
// as OpenAI words it.
func NotFoundError(id string) *apierr.Error {
	return apierr.New(http.StatusNotFound, apierr.TypeInvalidRequest, "Response with id '"+id+"' not found.").
		WithCode("response_not_found")
}

// writeErr answers err about response id.
func writeErr(w http.ResponseWriter, r *http.Request, err error, id string) {
	if errors.Is(err, ErrNotFound) {
		apierr.WriteFor(w, r, NotFoundError(id))
		return
	}
	apierr.WriteFor(w, r, apierr.New(http.StatusServiceUnavailable, apierr.TypeProvider,
		"stored responses cannot be read right now").WithCode("storage_unavailable"))
}

// writeJSON answers v as JSON.
func writeJSON(w http.ResponseWriter, r *http.Request, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		apierr.WriteFor(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// statusWriter remembers the status of the answer written through it.
type statusWriter struct {
	http.ResponseWriter
	status int
}

// WriteHeader implements http.ResponseWriter.
func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write implements http.ResponseWriter.
func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}
