package handlers

import (
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/modelgate/modelgate/apierr"
	"github.com/modelgate/modelgate/caddymodule"
	"github.com/modelgate/modelgate/keys"
	"github.com/modelgate/modelgate/reqinfo"
)

func init() {
	caddy.RegisterModule(Auth{})
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*Auth)(nil)
	_ caddyhttp.MiddlewareHandler = (*Auth)(nil)
)

// Auth (modelgate_auth) identifies the caller from `Authorization: Bearer`
// or `x-api-key` and refuses missing or invalid credentials with 401. It
// starts the request-scoped state the later stages fill in. /health, the
// dashboard pages and static assets need no credential.
type Auth struct {
	app *caddymodule.App
}

// CaddyModule returns the Caddy module information.
func (Auth) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.modelgate_auth",
		New: func() caddy.Module { return new(Auth) },
	}
}

// Provision connects the handler to the modelgate app.
func (h *Auth) Provision(ctx caddy.Context) (err error) {
	h.app, err = loadApp(ctx)
	return err
}

// ServeHTTP authenticates the request and passes it on.
func (h *Auth) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	info := reqinfo.From(r.Context())
	if info == nil {
		info = reqinfo.New()
		r = r.WithContext(reqinfo.With(r.Context(), info))
	}
	path := r.URL.Path
	if isPublic(path) {
		return next.ServeHTTP(w, r)
	}
	admin := path == "/admin" || strings.HasPrefix(path, "/admin/")
	auth := h.app.Auth()
	cred, sent := keys.Credential(r.Header)
	if !auth.Required() {
		// No credential exists at all: model endpoints are open, the admin
		// API only when explicitly allowed.
		if admin && !h.app.AllowUnauthenticatedAdmin() {
			apierr.WriteFor(w, r, apierr.Unauthorized("the admin API needs a master key; none is configured").WithCode("admin_auth_unconfigured"))
			return nil
		}
		info.Admin = admin
		return next.ServeHTTP(w, r)
	}
	if !sent {
		apierr.WriteFor(w, r, apierr.Unauthorized("missing API key: send Authorization: Bearer <key> or x-api-key").WithCode("missing_api_key"))
		return nil
	}
	res := auth.Authenticate(cred)
	if !res.OK {
		apierr.WriteFor(w, r, apierr.Unauthorized("invalid API key").WithCode("invalid_api_key"))
		return nil
	}
	info.KeyHash, info.Admin = res.KeyHash, res.Admin
	if res.Master {
		info.AuthMethod = reqinfo.AuthMasterKey
	} else {
		info.AuthMethod = reqinfo.AuthManagedKey
	}
	if admin && !res.Admin {
		apierr.WriteFor(w, r, apierr.New(http.StatusForbidden, apierr.TypeAuthentication,
			"this API key has no dashboard access").WithCode("dashboard_access_denied"))
		return nil
	}
	return next.ServeHTTP(w, r)
}

// isPublic reports whether path is served without a credential.
func isPublic(path string) bool {
	return path == "/health" ||
		path == "/admin/dashboard" || strings.HasPrefix(path, "/admin/dashboard/") ||
		strings.HasPrefix(path, "/admin/static/")
}
