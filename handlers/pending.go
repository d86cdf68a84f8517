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

// notYetActive is the behaviour of a chain stage whose feature has not
// landed: it passes every request on unchanged, so the chain's shape and
// the Caddyfile stay stable while the stages are filled in.
type notYetActive struct{}

// ServeHTTP passes the request on.
func (notYetActive) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	return next.ServeHTTP(w, r)
}

// VirtualModel (modelgate_virtual_model) will resolve aliases to concrete
// targets with load balancing and failover. Not yet active: it passes
// requests on.
type VirtualModel struct{ notYetActive }

// CaddyModule returns the Caddy module information.
func (VirtualModel) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.modelgate_virtual_model", New: func() caddy.Module { return new(VirtualModel) }}
}
