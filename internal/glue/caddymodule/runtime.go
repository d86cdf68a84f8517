package caddymodule

import (
	"context"
	"errors"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/keys"
	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/domain/sessions"
	"github.com/modelgate/modelgate/internal/gateway/proxy"
	"github.com/modelgate/modelgate/internal/glue/reqmetrics"
	"github.com/modelgate/modelgate/internal/platform/config"
	"github.com/modelgate/modelgate/internal/surface/admin"
)

// Runtime is what the request stages use of a started app, resolved once
// when the app starts and never changed after: a stage reads its fields
// instead of asking the app service by service.
type Runtime struct {
	// Config is the configuration in force after layering.
	Config config.Config
	// Auth checks credentials.
	Auth *keys.Authenticator
	// Proxy serves the model endpoints and makes plans.
	Proxy *proxy.Service
	// Admin answers the admin API and the dashboard.
	Admin *admin.Handler
	// Auditing is what the audit stage needs; nil when audit logging and
	// usage tracking are both off.
	Auditing *Auditing
	// Metrics observes each finished model request.
	Metrics *reqmetrics.Observer
	// Budgets enforces spend caps; nil when budgets are off (budgets.enabled,
	// or usage tracking off).
	Budgets *budgets.Service
	// Limiter enforces the user-path rate limits; nil when rate limiting
	// is switched off.
	Limiter *limits.Engine
	// Sessions is the runaway-session guard; nil when it could not open.
	Sessions *sessions.Guard
	// Cache is the response cache; nil when it is off.
	Cache *ResponseCache

	openHosts *openHosts
}

// OpenHostAllowed reports whether a request whose Host header is host
// (with or without a port) may be served while no credential exists at
// all (Auth.Required() false): host is localhost or a name under
// .localhost, a loopback address (127.0.0.0/8, ::1), or a name a host
// matcher of the Caddy http app's routes names (a Caddyfile site
// address's host). Any other name may be one a web page points at
// 127.0.0.1 to reach this gateway from the browser (DNS rebinding).
func (rt *Runtime) OpenHostAllowed(host string) bool { return rt.openHosts.allowed(host) }

// runtime returns the request-time view of a just-started app.
func (a *App) runtime() *Runtime {
	rt := &Runtime{
		Config:    a.effective,
		Auth:      a.auth,
		Proxy:     a.proxy,
		Admin:     a.adminAPI,
		Metrics:   a.reqMetrics,
		Limiter:   a.Limiter(),
		Sessions:  a.sessionGuard,
		Cache:     a.respCache,
		openHosts: a.openHosts,
	}
	if p := a.audit.Load(); p != nil {
		rt.Auditing = p.auditing
	}
	if a.budgetsOn {
		rt.Budgets = a.budgetSvc
	}
	return rt
}

// Ready waits until Start has run (or ctx ends) and returns the started
// app's Runtime. Once the app is started it costs one channel check.
func (a *App) Ready(ctx context.Context) (*Runtime, error) {
	select {
	case <-a.ready:
		if a.startErr != nil {
			return nil, errors.New("modelgate failed to start")
		}
		return a.rt, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
