package handlers

import (
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	caddy.RegisterModule(VirtualModel{})
}

// Interface guards.
var (
	_ caddyhttp.MiddlewareHandler = (*VirtualModel)(nil)
)

// VirtualModel (modelgate_virtual_model) turns on model routing for the
// requests that pass it: the provider proxy then resolves the requested
// model through the virtual models (aliases with load balancing, session
// affinity and slowdown), refuses models the access policies keep from
// the caller (403 model_access_denied), applies the failover routes, and
// lists only the models the caller may use. The proxy resolves there
// because it reads the request body once; without this stage a model name
// routes straight to a provider.
type VirtualModel struct{}

// CaddyModule returns the Caddy module information.
func (VirtualModel) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.modelgate_virtual_model", New: func() caddy.Module { return new(VirtualModel) }}
}

// ServeHTTP marks the request for routing and passes it on.
func (VirtualModel) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	info, r := requestInfo(r)
	info.VirtualModels = true
	return next.ServeHTTP(w, r)
}
