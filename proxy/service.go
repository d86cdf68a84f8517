// Package proxy serves the model endpoints: it reads the few request fields
// the gateway needs, resolves the model to a provider, forwards the body and
// relays the answer (streamed event by event), capturing usage on the way.
// It does not import Caddy; the modelgate_provider_proxy handler calls it.
package proxy

import (
	"net/http"
	"sort"
	"strings"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/apierr"
	"github.com/modelgate/modelgate/providers"
)

// Service serves the model endpoints.
type Service struct {
	// Registry resolves models to providers.
	Registry *providers.Registry
	// MaxBodyBytes caps request bodies; larger ones get 413.
	MaxBodyBytes int64
	// Logger receives upstream failures. Never secrets.
	Logger *zap.Logger
	// Limits enforces provider and model rate limits; nil limits nothing.
	Limits TargetLimiter
	// Upstreams bounds the reading of each provider's answers and strips
	// provider credentials from relayed error text; nil applies the
	// default limits and strips nothing.
	Upstreams *Upstreams
}

// route is one model endpoint.
type route struct {
	method  string
	handler func(s *Service, w http.ResponseWriter, r *http.Request)
}

var routes = map[string]route{
	"/v1/chat/completions":      {http.MethodPost, (*Service).chatCompletions},
	"/v1/embeddings":            {http.MethodPost, (*Service).embeddings},
	"/v1/messages":              {http.MethodPost, (*Service).messages},
	"/v1/messages/count_tokens": {http.MethodPost, (*Service).countTokens},
	"/v1/responses":             {http.MethodPost, (*Service).responses},
	"/v1/models":                {http.MethodGet, (*Service).listModels},
	"/health":                   {http.MethodGet, (*Service).health},
}

// ServeHTTP dispatches a request to its endpoint: an unknown path gets 404
// and a known path with the wrong method 405, both in the gateway shape.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/")
	}
	rt, ok := routes[path]
	if !ok {
		apierr.WriteFor(w, r, apierr.New(http.StatusNotFound, apierr.TypeInvalidRequest,
			"unknown route: "+r.Method+" "+r.URL.Path).WithCode("unknown_route"))
		return
	}
	if r.Method != rt.method && !(rt.method == http.MethodGet && r.Method == http.MethodHead) {
		w.Header().Set("Allow", rt.method)
		apierr.WriteFor(w, r, apierr.New(http.StatusMethodNotAllowed, apierr.TypeInvalidRequest,
			"method "+r.Method+" is not allowed on "+path+"; use "+rt.method).WithCode("method_not_allowed"))
		return
	}
	rt.handler(s, w, r)
}

func (s *Service) health(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"status":"ok"}`))
}

func (s *Service) logger() *zap.Logger {
	if s.Logger == nil {
		return zap.NewNop()
	}
	return s.Logger
}

// Route is one model endpoint the service answers.
type Route struct {
	// Method is the HTTP method.
	Method string
	// Path is the URL path.
	Path string
}

// Routes lists the endpoints the service answers, sorted by path.
func Routes() []Route {
	out := make([]Route, 0, len(routes))
	for path, rt := range routes {
		out = append(out, Route{Method: rt.method, Path: path})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
