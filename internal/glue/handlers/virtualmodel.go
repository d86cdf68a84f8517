package handlers

import (
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/modelgate/modelgate/internal/gateway/proxy"
	"github.com/modelgate/modelgate/internal/glue/caddymodule"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

func init() {
	caddy.RegisterModule(VirtualModel{})
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*VirtualModel)(nil)
	_ caddyhttp.MiddlewareHandler = (*VirtualModel)(nil)
)

// VirtualModel (modelgate_virtual_model) is the routing stage: it resolves
// a model request into its plan (reqinfo.Plan, made by the proxy's
// resolver from the body the audit stage read) with model routing on: the
// requested model resolves through the virtual models (aliases with load
// balancing, session affinity and slowdown), the model access policies
// apply (403 model_access_denied), the failover routes name the targets
// behind it, and GET /v1/models lists only the models the caller may use.
// The later stages (the response cache, the budgets, the proxy) read the
// plan. Without this stage a model name routes straight to a provider.
type VirtualModel struct {
	app *caddymodule.App
}

// CaddyModule returns the Caddy module information.
func (VirtualModel) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.modelgate_virtual_model", New: func() caddy.Module { return new(VirtualModel) }}
}

// Provision connects the handler to the modelgate app.
func (h *VirtualModel) Provision(ctx caddy.Context) (err error) {
	h.app, err = loadApp(ctx)
	return err
}

// ServeHTTP turns model routing on for the request, resolves its plan and
// passes it on.
func (h *VirtualModel) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	var px *proxy.Service
	if rt, ok := reqinfo.Route(r); ok && proxy.Plans(rt.Shape) {
		if gw, err := started(h.app, r); err == nil {
			px = gw.Proxy
		} // else the proxy answers that the gateway is not ready
	}
	return routeRequest(px, w, r, next)
}

// routeRequest turns model routing on for r, resolves its plan with px
// (nil: the proxy resolves it later) and serves it with next. A plan an
// earlier stage made without model routing is made again, unless it is a
// refusal of the body itself, which was not kept to be read again.
func routeRequest(px *proxy.Service, w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	info, r := requestInfo(r)
	info.VirtualModels = true
	if p := info.Plan(); p != nil && !p.VirtualModels && info.Body() != nil {
		info.DropPlan()
	}
	if px != nil {
		if p := px.Plan(r); p != nil && bodyTimedOut(p.Err) {
			// The body did not arrive in time; the failed read cancelled
			// the request's context, so this stage answers at once.
			return requestTimedOut(w, r)
		}
	}
	return next.ServeHTTP(w, r)
}
