// Package admin serves the admin REST API under /admin/: managed API keys,
// usage, rate-limit rules, runtime configuration and the OpenAPI document,
// plus the legacy /admin/api/v1/ alias and, through package ui, the
// dashboard pages. Every error is written in the gateway error shape.
//
// The Handler does not authenticate: the modelgate_auth stage in front of
// it does (spec part 5), and the Caddy handler refuses requests that stage
// did not admit.
package admin

import (
	"net/http"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/apierr"
	"github.com/modelgate/modelgate/config"
	"github.com/modelgate/modelgate/keys"
	"github.com/modelgate/modelgate/limits"
	"github.com/modelgate/modelgate/ui"
)

// Prefix is the path prefix of everything the Handler serves.
const Prefix = "/admin/"

// ProviderInfo names one configured provider instance.
type ProviderInfo struct {
	// Name is the instance name.
	Name string `json:"name"`
	// Type is the provider family.
	Type string `json:"type"`
}

// Options configure New.
type Options struct {
	// Config is the effective gateway configuration. Only switches and
	// non-secret settings are read from it.
	Config config.Config
	// Providers are the provider instances in service.
	Providers []ProviderInfo
	// Version is the gateway's release version.
	Version string
	// Keys manages API keys. Required for the auth-keys routes.
	Keys *keys.Service
	// Usage answers the usage routes; nil (or usage tracking off) answers
	// zeroed or empty results.
	Usage UsageSource
	// RateLimits is the rate-limit engine behind /admin/rate-limits; nil
	// answers 503 rate_limits_unavailable there.
	RateLimits *limits.Engine
	// UI serves the dashboard pages and assets; nil means ui.Handler.
	UI http.Handler
	// Now is the clock, for server_time and the legacy alias's sunset;
	// nil means time.Now.
	Now func() time.Time
	// Sunset is when the legacy alias stops being served in auto mode;
	// zero means LegacySunset.
	Sunset time.Time
	// Logger receives failures of the store behind the API, never secrets.
	Logger *zap.Logger
}

// Handler serves everything under /admin/.
type Handler struct {
	opts Options
}

// New returns a Handler.
func New(opts Options) *Handler {
	if opts.UI == nil {
		opts.UI = ui.Handler{}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Sunset.IsZero() {
		opts.Sunset = LegacySunset
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	return &Handler{opts: opts}
}

// IsAdminPath reports whether path is under /admin.
func IsAdminPath(path string) bool {
	return path == "/admin" || strings.HasPrefix(path, Prefix)
}

// ServeHTTP answers one request under /admin/. With the admin API switched
// off everything answers 404; with the UI off the dashboard does.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	admin := h.opts.Config.Admin
	switch {
	case !IsAdminPath(path) || !admin.EndpointsOn():
		unknownRoute(w, r)
	case ui.IsUIPath(path):
		if !admin.UIOn() {
			unknownRoute(w, r)
			return
		}
		h.opts.UI.ServeHTTP(w, r)
	case strings.HasPrefix(path, LegacyPrefix):
		h.serveLegacy(w, r)
	default:
		h.serveAPI(w, r)
	}
}

// serveAPI dispatches to the route table.
func (h *Handler) serveAPI(w http.ResponseWriter, r *http.Request) {
	rt, params, allowed := match(r.Method, r.URL.Path)
	switch {
	case rt != nil:
		rt.handle(h, w, r, params)
	case len(allowed) > 0:
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		apierr.Write(w, apierr.New(http.StatusMethodNotAllowed, apierr.TypeInvalidRequest,
			"method "+r.Method+" is not allowed on this route; use "+strings.Join(allowed, " or ")).
			WithCode("method_not_allowed"))
	default:
		unknownRoute(w, r)
	}
}

// unknownRoute answers 404 as the model endpoints do for unknown routes,
// without echoing the path (a pasted key must not come back).
func unknownRoute(w http.ResponseWriter, r *http.Request) {
	apierr.Write(w, apierr.New(http.StatusNotFound, apierr.TypeInvalidRequest,
		"unknown admin route: no "+r.Method+" endpoint at this path").WithCode("unknown_route"))
}
