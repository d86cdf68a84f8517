package handlers

import (
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/modelgate/modelgate/internal/gateway/proxy"
)

func init() {
	caddy.RegisterModule(ProviderProxy{})
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*ProviderProxy)(nil)
	_ caddyhttp.MiddlewareHandler = (*ProviderProxy)(nil)
)

// ProviderProxy (modelgate_provider_proxy) serves the model endpoints,
// GET /v1/models, GET /v1/usage and /health (package proxy): it resolves
// the model to a provider, forwards the request and relays the answer,
// streaming event by event. It is terminal: any request that reaches it is
// answered, unknown routes and routes not served yet with 404 in the
// gateway shape.
type ProviderProxy struct {
	px *proxy.Service
}

// CaddyModule returns the Caddy module information.
func (ProviderProxy) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.modelgate_provider_proxy",
		New: func() caddy.Module { return new(ProviderProxy) },
	}
}

// Provision connects the handler to the modelgate app.
func (h *ProviderProxy) Provision(ctx caddy.Context) error {
	app, err := loadApp(ctx)
	if err != nil {
		return err
	}
	h.px = app.Proxy()
	return nil
}

// ServeHTTP answers the request.
func (h *ProviderProxy) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	h.px.ServeHTTP(w, r)
	return nil
}
