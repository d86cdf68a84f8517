package handlers

import (
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/modelgate/modelgate/caddymodule"
	"github.com/modelgate/modelgate/selfusage"
)

func init() {
	caddy.RegisterModule(ProviderProxy{})
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*ProviderProxy)(nil)
	_ caddyhttp.MiddlewareHandler = (*ProviderProxy)(nil)
)

// ProviderProxy (modelgate_provider_proxy) serves the model endpoints:
// it resolves the model to a provider, forwards the request and relays the
// answer, streaming event by event. It is terminal: any request that
// reaches it is answered, unknown routes with 404 in the gateway shape.
type ProviderProxy struct {
	app *caddymodule.App
}

// CaddyModule returns the Caddy module information.
func (ProviderProxy) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.modelgate_provider_proxy",
		New: func() caddy.Module { return new(ProviderProxy) },
	}
}

// Provision connects the handler to the modelgate app.
func (h *ProviderProxy) Provision(ctx caddy.Context) (err error) {
	h.app, err = loadApp(ctx)
	return err
}

// ServeHTTP answers the request. GET /v1/usage goes to the self-usage
// handler instead of the proxy service.
func (h *ProviderProxy) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	if p := r.URL.Path; p == selfusage.Path || p == selfusage.Path+"/" {
		h.app.SelfUsage().ServeHTTP(w, r)
		return nil
	}
	h.app.Proxy().ServeHTTP(w, r)
	return nil
}
