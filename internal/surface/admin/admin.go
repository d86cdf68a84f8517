// Package admin serves the admin REST API under /admin/: managed API keys,
// usage, the audit log and its statistics, conversation threads, the live
// log stream, rate-limit rules, runtime configuration and the OpenAPI
// document, plus the legacy /admin/api/v1/ alias and, through package ui,
// the dashboard pages. Every error is written in the gateway error shape.
//
// The Handler does not authenticate: the modelgate_auth stage in front of
// it does, and the Caddy handler refuses requests that stage did not admit.
// Which routes exist, and what they need, is the route table of package
// routes; this package attaches the handlers.
package admin

import (
	"net/http"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/cache"
	"github.com/modelgate/modelgate/internal/domain/keys"
	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/domain/pricing"
	"github.com/modelgate/modelgate/internal/domain/sessions"
	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/platform/config"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/routes"
	"github.com/modelgate/modelgate/internal/surface/ui"
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
	// Audit answers the audit-log routes (log, entry, stats,
	// conversation); nil, or audit logging off, answers empty lists and
	// zero-filled statistics.
	Audit *audit.Queries
	// Usage answers the usage routes; nil, or usage tracking off, answers
	// zeroed or empty results.
	Usage *audit.UsageQueries
	// Live is the hub behind the live log stream; nil streams heartbeats
	// only (nothing records).
	Live *audit.Hub
	// LiveHeartbeat is the live stream's heartbeat interval; zero means
	// audit.HeartbeatEvery (15 seconds).
	LiveHeartbeat time.Duration
	// RateLimits is the rate-limit engine behind /admin/rate-limits; nil
	// answers 503 rate_limits_unavailable there.
	RateLimits *limits.Engine
	// Budgets is the budgets service behind /admin/budgets; nil (budget
	// management off) answers 404 budgets_disabled there.
	Budgets *budgets.Service
	// Sessions is the runaway-session guard behind
	// /admin/session-limits; nil answers 503 session_limits_unavailable
	// there.
	Sessions *sessions.Guard
	// VirtualModels is the virtual-model service behind
	// /admin/virtual-models and /admin/failover; nil answers 503
	// virtual_models_unavailable there.
	VirtualModels *vmodels.Service
	// Pricing is the price-override service behind /admin/pricing; nil
	// answers 503 pricing_unavailable there.
	Pricing *pricing.Service
	// Recalc runs the usage recalculations of /admin/usage/recalculate;
	// nil (usage tracking off) answers 503 usage_unavailable there.
	Recalc *pricing.Recalculator
	// Models returns the model inventory of GET /admin/models for a
	// category ("" or "all": every one), at most max rows; nil answers [].
	Models func(category string, max int) ([]vmodels.InventoryEntry, bool)
	// Cache is the response cache behind /admin/cache; nil (the cache is
	// off) answers its status zeroed with enabled false, and purges
	// nothing.
	Cache *cache.Cache
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
	// Changes is told about every successful write to keys, virtual
	// models, failover routes and budgets; nil tells no one.
	Changes ChangeNotifier
}

// Handler serves everything under /admin/.
type Handler struct {
	opts Options
	// idleHub streams to live clients when Options.Live is nil.
	idleHub *audit.Hub
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
	return &Handler{opts: opts, idleHub: audit.NewHub(1)}
}

// ServeHTTP answers one request for a route of the admin API or dashboard
// shape (/admin/*). With the admin API switched off everything answers
// 404; with the UI off the dashboard does.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt, _ := routes.LookupRequest(r)
	admin := h.opts.Config.Admin
	switch {
	case rt == nil || (rt.Shape != routes.ShapeAdmin && rt.Shape != routes.ShapeDashboard) || !admin.EndpointsOn():
		unknownRoute(w, r)
	case rt.Shape == routes.ShapeDashboard:
		if !admin.UIOn() {
			unknownRoute(w, r)
			return
		}
		h.opts.UI.ServeHTTP(w, r)
	case strings.HasPrefix(r.URL.Path, LegacyPrefix):
		w.Header().Set("Cache-Control", "no-store")
		h.serveLegacy(w, r)
	default:
		// Admin answers, errors included, are never cached.
		w.Header().Set("Cache-Control", "no-store")
		h.serveAPI(w, r)
	}
}

// serveAPI answers an admin API route: its handler, 405 with Allow for a
// method its path does not take, 404 for a path no admin route names.
func (h *Handler) serveAPI(w http.ResponseWriter, r *http.Request) {
	rt, ok := routes.LookupRequest(r)
	fn := apiHandler(rt)
	switch {
	case fn == nil:
		unknownRoute(w, r)
	case !ok:
		apierr.WriteMethodNotAllowed(w, r, rt.Allow())
	case routes.CrossSiteChange(r):
		// The dashboard is served by the gateway itself, so its calls are
		// same-origin; a page elsewhere could otherwise change a gateway
		// that admits the admin API without a key, with a form post.
		apierr.WriteFor(w, r, apierr.OriginNotAllowed("admin changes from another site's pages are refused"))
	default:
		fn(h, w, r, rt.PathParams(routes.Path(r)))
	}
}

// unknownRoute answers 404 as the model endpoints do for unknown routes,
// without echoing the path (a pasted key must not come back).
func unknownRoute(w http.ResponseWriter, r *http.Request) {
	apierr.WriteFor(w, r, apierr.UnknownRoute("unknown admin route: no "+r.Method+" endpoint at this path"))
}
