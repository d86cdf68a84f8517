// Package proxy serves the model endpoints: it reads the few request fields
// the gateway needs, resolves the model to a provider, forwards the body and
// relays the answer (streamed event by event), capturing usage on the way.
// It does not import Caddy; the modelgate_provider_proxy handler calls it.
package proxy

import (
	"net/http"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
)

// Service serves the model endpoints, GET /v1/models, GET /v1/usage and
// /health: the routes of the route table (package routes) whose shape has
// a handler here.
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
	// SelfUsage answers GET /v1/usage; nil answers 404 there.
	SelfUsage http.Handler
	// VirtualModels resolves virtual models, applies the model access
	// policies and names failover targets, for requests that passed the
	// virtual-model stage; nil has none.
	VirtualModels *vmodels.Service
	// Passthrough configures /p/<provider>/<path>; the zero value enables
	// no provider.
	Passthrough Passthrough
	// Batches answers the files and batches routes; nil answers 404 there.
	Batches http.Handler
	// Responses keeps the answers of POST /v1/responses that ask to be
	// stored and replays them for previous_response_id; nil stores
	// nothing (previous_response_id then reaches native providers only).
	Responses ResponseStore
	// StoredResponses answers GET and DELETE /v1/responses/{id} and
	// GET /v1/responses/{id}/input_items; nil answers 404 there.
	StoredResponses http.Handler
	// Realtime bounds realtime sessions.
	Realtime RealtimeLimits
	// Budgets ends realtime sessions once a spent budget covers the
	// caller; nil never does.
	Budgets BudgetChecker
	// UsageRejected is called with the provider's name each time an
	// answer's usage has a fault (catalog.CheckUsage): a negative count taken
	// as 0, or an implausible one that refused the usage. nil counts
	// nothing; the fault is logged either way.
	UsageRejected func(provider string, fault catalog.UsageFault)
	// ServerTiming adds the Server-Timing header to the answers of the
	// model endpoints (setServerTiming).
	ServerTiming bool
	// PropagateTrace sends the request's trace context to the providers
	// it calls (providers.WithTracePropagation); off, none leaves.
	PropagateTrace bool
	// SecretAction returns what to do with a JSON model request of a user
	// path whose body holds a credential (audit.SecretBlock,
	// audit.SecretMask); nil, or audit.SecretAllow, sends it as it is.
	SecretAction func(userPath string) audit.SecretAction
	// Secrets finds the credentials for SecretAction: the redactor that
	// also knows the configured keys; nil finds them by shape only.
	Secrets *audit.Redactor
}

// handlers are the service's answer to each route shape; a shape without
// one is not served here.
var handlers = [routes.NumShapes]func(s *Service, w http.ResponseWriter, r *http.Request){
	routes.ShapeChat:        (*Service).chatCompletions,
	routes.ShapeEmbeddings:  (*Service).embeddings,
	routes.ShapeMessages:    (*Service).messages,
	routes.ShapeCountTokens: (*Service).countTokens,
	routes.ShapeResponses:   (*Service).responses,
	routes.ShapeModels:      (*Service).models,
	routes.ShapeHealth:      (*Service).health,
	routes.ShapeSelfUsage:   (*Service).selfUsage,
	// Audio and passthrough.
	routes.ShapeSpeech:        (*Service).speech,
	routes.ShapeTranscription: (*Service).transcription,
	routes.ShapePassthrough:   (*Service).passthrough,
	// Realtime sessions, files and batches.
	routes.ShapeFiles:    (*Service).batches,
	routes.ShapeBatch:    (*Service).batches,
	routes.ShapeRealtime: (*Service).realtime,
	// Stored responses.
	routes.ShapeStoredResponse: (*Service).storedResponses,
}

// serves reports whether the service has a handler for routes of shape.
func serves(shape routes.Shape) bool {
	return shape < routes.NumShapes && handlers[shape] != nil
}

// ServeHTTP dispatches a request to its route's handler. A path no route
// names, a route not served yet and a route answered elsewhere get 404; a
// known path with a method it does not take gets 405 with Allow. Both are
// in the gateway shape.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt, ok := reqinfo.Route(r)
	if rt == nil || !rt.Served || !serves(rt.Shape) {
		unknownRoute(w, r)
		return
	}
	if !ok {
		apierr.WriteMethodNotAllowed(w, r, rt.Allow())
		return
	}
	if routes.CrossSiteChange(r) {
		// A page elsewhere could make a visitor's browser post a form or a
		// multipart upload (a transcription, a batch file) to a gateway on
		// the visitor's machine; JSON bodies need the browser's leave,
		// which the gateway never gives, but those do not.
		apierr.WriteFor(w, r, apierr.OriginNotAllowed("requests from another site's pages are refused"))
		return
	}
	handlers[rt.Shape](s, w, r)
}

func (s *Service) health(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"status":"ok"}`))
}

func (s *Service) selfUsage(w http.ResponseWriter, r *http.Request) {
	if s.SelfUsage == nil {
		unknownRoute(w, r)
		return
	}
	s.SelfUsage.ServeHTTP(w, r)
}

func (s *Service) batches(w http.ResponseWriter, r *http.Request) {
	if s.Batches == nil {
		unknownRoute(w, r)
		return
	}
	s.Batches.ServeHTTP(w, r)
}

func (s *Service) storedResponses(w http.ResponseWriter, r *http.Request) {
	if s.StoredResponses == nil {
		unknownRoute(w, r)
		return
	}
	s.StoredResponses.ServeHTTP(w, r)
}

// unknownRoute answers 404 unknown_route.
func unknownRoute(w http.ResponseWriter, r *http.Request) {
	apierr.WriteFor(w, r, apierr.UnknownRoute("unknown route: "+r.Method+" "+r.URL.Path))
}

func (s *Service) logger() *zap.Logger {
	if s.Logger == nil {
		return zap.NewNop()
	}
	return s.Logger
}
