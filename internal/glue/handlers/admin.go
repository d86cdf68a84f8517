package handlers

import (
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/modelgate/modelgate/internal/glue/caddymodule"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
)

func init() {
	caddy.RegisterModule(Admin{})
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*Admin)(nil)
	_ caddyhttp.MiddlewareHandler = (*Admin)(nil)
)

// Admin (modelgate_admin) serves the routes whose shape in the route table
// is the admin API or the dashboard, that is /admin/*: the admin REST API,
// its legacy /admin/api/v1/ alias and the dashboard (package admin). Other
// paths pass on. With the admin API switched off, /admin/* answers 404;
// with the UI off, the dashboard does.
//
// It relies on modelgate_auth in front of it: an API request that stage
// did not admit to /admin/* is refused with 401, so a route that places
// this handler alone cannot expose the API.
type Admin struct {
	app *caddymodule.App
}

// CaddyModule returns the Caddy module information.
func (Admin) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.modelgate_admin",
		New: func() caddy.Module { return new(Admin) },
	}
}

// Provision connects the handler to the modelgate app.
func (h *Admin) Provision(ctx caddy.Context) (err error) {
	h.app, err = loadApp(ctx)
	return err
}

// ServeHTTP answers /admin/* and passes everything else on.
func (h *Admin) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	rt, _ := reqinfo.Route(r)
	if rt == nil || (rt.Shape != routes.ShapeAdmin && rt.Shape != routes.ShapeDashboard) {
		return next.ServeHTTP(w, r)
	}
	gw, err := started(h.app, r)
	if err != nil {
		apierr.WriteFor(w, r, notReady())
		return nil
	}
	if gw.Config.Admin.EndpointsOn() && rt.Credential != routes.CredentialNone {
		if info := reqinfo.From(r.Context()); info == nil || !info.Admin {
			apierr.WriteFor(w, r, apierr.Unauthorized("the admin API needs modelgate_auth in front of modelgate_admin").
				WithCode("admin_auth_required"))
			return nil
		}
	}
	gw.Admin.ServeHTTP(w, r)
	return nil
}
