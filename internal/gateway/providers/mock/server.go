package mock

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers"
)

// maxBodyBytes bounds request bodies.
const maxBodyBytes = 32 << 20

// handler serves the mock OpenAI-compatible API.
type handler struct {
	opts                Options
	chatModels          map[string]bool
	embeddingModels     map[string]bool
	speechModels        map[string]bool
	transcriptionModels map[string]bool
}

// NewHandler returns an http.Handler serving the OpenAI-compatible routes
// GET /v1/models, GET /v1/models/{id}, POST /v1/chat/completions,
// POST /v1/embeddings, POST /v1/audio/speech and
// POST /v1/audio/transcriptions, with or without the "/v1" prefix. Every other path
// gets a 404 and a wrong method a 405, both with OpenAI-shaped error bodies.
func NewHandler(opts Options) http.Handler {
	opts = opts.withDefaults()
	h := &handler{
		opts:            opts,
		chatModels:      make(map[string]bool, len(opts.Models)),
		embeddingModels: make(map[string]bool, len(opts.EmbeddingModels)),
	}
	for _, m := range opts.Models {
		h.chatModels[m] = true
	}
	for _, m := range opts.EmbeddingModels {
		h.embeddingModels[m] = true
	}
	h.speechModels = set(opts.SpeechModels)
	h.transcriptionModels = set(opts.TranscriptionModels)
	return h
}

// set returns ids as a set.
func set(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// ServeHTTP implements http.Handler.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !providers.SleepCtx(r.Context(), h.opts.Latency) {
		return // the client is gone; nobody would read an answer
	}
	if !h.authorized(r) {
		writeError(w, &apiError{
			status:  http.StatusUnauthorized,
			message: "Incorrect API key provided. You can find your API key in the mock provider's configuration.",
			typ:     "invalid_request_error",
			code:    "invalid_api_key",
		})
		return
	}

	path := r.URL.Path
	if path == "/v1" || strings.HasPrefix(path, "/v1/") {
		path = path[len("/v1"):]
	}
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/")
	}

	switch {
	case path == "/models":
		if allow(w, r, http.MethodGet) {
			h.handleModels(w)
		}
	case strings.HasPrefix(path, "/models/"):
		if allow(w, r, http.MethodGet) {
			h.handleModel(w, strings.TrimPrefix(path, "/models/"))
		}
	case path == "/chat/completions":
		if allow(w, r, http.MethodPost) {
			h.handleChat(w, r)
		}
	case path == "/embeddings":
		if allow(w, r, http.MethodPost) {
			h.handleEmbeddings(w, r)
		}
	case path == "/audio/speech":
		if allow(w, r, http.MethodPost) {
			h.handleSpeech(w, r)
		}
	case path == "/audio/transcriptions":
		if allow(w, r, http.MethodPost) {
			h.handleTranscription(w, r)
		}
	case path == "/realtime":
		if allow(w, r, http.MethodGet) {
			h.handleRealtime(w, r)
		}
	default:
		writeError(w, &apiError{
			status:  http.StatusNotFound,
			message: fmt.Sprintf("Invalid URL (%s %s)", r.Method, r.URL.Path),
			typ:     "invalid_request_error",
		})
	}
}

// authorized reports whether r carries the configured API key, if any.
func (h *handler) authorized(r *http.Request) bool {
	if h.opts.APIKey == "" {
		return true
	}
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(h.opts.APIKey)) == 1
}

// allow reports whether r uses method, answering 405 when it does not.
func allow(w http.ResponseWriter, r *http.Request, method string) bool {
	if r.Method == method {
		return true
	}
	w.Header().Set("Allow", method)
	writeError(w, &apiError{
		status:  http.StatusMethodNotAllowed,
		message: fmt.Sprintf("Method %s not allowed for %s; use %s.", r.Method, r.URL.Path, method),
		typ:     "invalid_request_error",
	})
	return false
}

// readJSON reads r's body as a JSON object. On failure it answers the
// request itself and returns ok == false.
func readJSON(w http.ResponseWriter, r *http.Request) (root gjson.Result, body []byte, ok bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		if r.Context().Err() != nil {
			return root, nil, false
		}
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeError(w, &apiError{
				status:  http.StatusRequestEntityTooLarge,
				message: fmt.Sprintf("Request body exceeds the limit of %d bytes.", maxBodyBytes),
				typ:     "invalid_request_error",
			})
			return root, nil, false
		}
		writeError(w, invalidRequest("", "Cannot read the request body: %v", err))
		return root, nil, false
	}
	if !gjson.ValidBytes(body) {
		writeError(w, badJSON())
		return root, nil, false
	}
	root = gjson.ParseBytes(body)
	if !root.IsObject() {
		writeError(w, badJSON())
		return root, nil, false
	}
	return root, body, true
}
