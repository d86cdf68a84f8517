package handlers

import (
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/modelgate/modelgate/internal/domain/keys"
	"github.com/modelgate/modelgate/internal/glue/caddymodule"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
	"github.com/modelgate/modelgate/internal/request/userpath"
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
// or `x-api-key` and settles the caller's user path. It starts the
// request-scoped state the later stages fill in: reqinfo.Info gets the
// auth method, key hash and id, admin access and the normalized user path,
// and the {http.modelgate.*} placeholders read it.
//
// What a route needs is its credential in the route table (package
// routes); a path no route names needs a key.
//
//   - The master key always has admin access.
//   - A managed key is accepted on routes that need a key (the model
//     endpoints, GET /v1/usage); on routes that need admin access (/admin/*)
//     only with dashboard access, otherwise 403 dashboard_access_denied.
//   - Missing, unknown, expired or deactivated credentials get 401.
//   - Public routes (/health, the dashboard pages and static assets) need
//     no credential.
//   - With no master key and no managed key at all, routes that need a key
//     are open to clients on a loopback address (others get 401
//     master_key_required) and admin routes are refused unless
//     admin.allow_unauthenticated. Either is served only for a Host that
//     is a loopback name or address or a name the Caddy site is
//     addressed by (App.OpenHostAllowed); others get 403
//     host_not_allowed.
//
// The user path is the one bound to the managed key, or else the
// configured user-path header, or "/"; a malformed one gets 400.
// The credential headers are removed once read, so that no later stage
// or upstream sees them.
//
// A request with a body must deliver all of it within the app's
// read_body_timeout (see App.EffectiveReadBodyTimeout), counted from here,
// or its connection is closed.
type Auth struct {
	app *caddymodule.App
	// bodyTimeout is the app's read_body_timeout, read in Provision.
	bodyTimeout time.Duration
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
	if err != nil {
		return err
	}
	h.bodyTimeout = h.app.EffectiveReadBodyTimeout()
	return nil
}

// ServeHTTP authenticates the request and passes it on.
func (h *Auth) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if r.ContentLength != 0 {
		// A body is coming (-1: of unknown length): bound the whole of it,
		// so a client trickling one is cut off, with or without a valid
		// key. Without a body there is no deadline to set: net/http is
		// already watching the connection for the client going away.
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(h.bodyTimeout))
	}
	info, r := requestInfo(r)
	cred, sent := keys.Credential(r.Header)
	conflict := keys.ConflictingCredentials(r.Header)
	for i, name := range keys.KeyHeaders {
		if _, ok := r.Header[name]; ok {
			info.CredentialsSent |= 1 << i
			delete(r.Header, name)
		}
	}

	need := credential(reqinfo.Route(r))
	if need == routes.CredentialNone {
		return next.ServeHTTP(w, r)
	}
	if conflict {
		return h.refuse(w, r, apierr.InvalidRequest("the request carries conflicting credentials: send one key, "+
			"in Authorization: Bearer <key> or x-api-key, once").WithCode("conflicting_credentials"))
	}
	gw, err := started(h.app, r)
	if err != nil {
		return h.refuse(w, r, notReady())
	}
	cfg := &gw.Config
	adminPath := need == routes.CredentialAdmin
	if adminPath && gw.Admin.LegacyBeforeAuth(w, r) {
		return nil // the retired legacy alias: 410 whoever asks
	}
	if adminPath && !cfg.Admin.EndpointsOn() {
		// The admin API is switched off: the admin stage answers 404, and
		// there is nothing to protect.
		return next.ServeHTTP(w, r)
	}
	auth := gw.Auth
	if !auth.Required() {
		// No credential exists at all: model endpoints are open, the admin
		// API only when explicitly allowed.
		if adminPath && !cfg.Admin.UnauthenticatedAllowed() {
			return h.refuse(w, r, apierr.Unauthorized("the admin API needs a master key; none is configured").WithCode("admin_auth_unconfigured"))
		}
		if !adminPath && !fromLoopback(r) {
			// Open model endpoints would spend the operator's provider
			// credit for anyone who can reach the port.
			return h.refuse(w, r, apierr.Unauthorized("this gateway has no master key, so it answers only clients on this machine: "+
				"set GATEWAY_MASTER_KEY (or master_key) and send it as Authorization: Bearer <key>").WithCode("master_key_required"))
		}
		if !gw.OpenHostAllowed(r.Host) {
			// A page that points a name it owns at 127.0.0.1 (DNS
			// rebinding) reaches the gateway from the visitor's browser,
			// with that name in Host.
			return h.refuse(w, r, hostNotAllowed())
		}
		info.Admin = adminPath
		return h.withUserPath(w, r, next, info, "", cfg.Server.UserPathHeader)
	}
	if !sent {
		return h.refuse(w, r, apierr.Unauthorized("missing API key: send Authorization: Bearer <key> or x-api-key").WithCode("missing_api_key"))
	}
	res := auth.Authenticate(cred)
	info.KeyHash, info.KeyID = res.KeyHash, res.KeyID
	if !res.OK {
		return h.refuse(w, r, refusal(res.Refusal))
	}
	info.Admin = res.Admin
	if res.Master {
		info.AuthMethod = reqinfo.AuthMasterKey
	} else {
		info.AuthMethod = reqinfo.AuthManagedKey
	}
	if adminPath && !res.Admin {
		return h.refuse(w, r, apierr.New(http.StatusForbidden, apierr.TypeAuthentication,
			"this API key has no dashboard access; grant it with PATCH /admin/auth-keys/{id} {\"dashboard_access\":true}").
			WithCode("dashboard_access_denied"))
	}
	return h.withUserPath(w, r, next, info, res.UserPath, cfg.Server.UserPathHeader)
}

// withUserPath settles the caller's user path, then passes the request on:
// bound (the managed key's path) wins over the header; without either the
// path is "/". header is the user-path header's name.
func (h *Auth) withUserPath(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, info *reqinfo.Info, bound, header string) error {
	if bound != "" {
		info.UserPath = bound
		return next.ServeHTTP(w, r)
	}
	p, err := userpath.Normalize(r.Header.Get(header))
	if err != nil {
		return h.refuse(w, r, apierr.InvalidRequest("invalid "+header+" header: "+err.Error()).
			WithCode("invalid_user_path").WithParam(header))
	}
	info.UserPath = p
	return next.ServeHTTP(w, r)
}

// refuse answers r with err. A refused request to an audited route is
// recorded like any other (see Audit): the audit stage runs after this
// one, so the refusal is written through it here.
func (h *Auth) refuse(w http.ResponseWriter, r *http.Request, err error) error {
	return audited(h.app, w, r, func(w http.ResponseWriter, r *http.Request) error {
		apierr.WriteFor(w, r, err)
		return nil
	}, false)
}

// refusal is the 401 for a refused credential. Messages never quote it.
func refusal(r keys.Refusal) *apierr.Error {
	msg := "invalid API key"
	switch r {
	case keys.RefusedExpired:
		msg = "this API key has expired"
	case keys.RefusedDeactivated:
		msg = "this API key has been deactivated"
	}
	return apierr.Unauthorized(msg).WithCode(string(r))
}

// hostNotAllowed is the answer of an open gateway to a request for a Host
// that is neither a loopback name or address nor one the Caddy site names.
func hostNotAllowed() *apierr.Error {
	return apierr.New(http.StatusForbidden, apierr.TypeInvalidRequest,
		"this gateway has no master key, so it answers only requests addressed to localhost, a loopback address "+
			"or a host its Caddy site names: name this host in the site address, or set GATEWAY_MASTER_KEY (or master_key)").
		WithCode("host_not_allowed")
}

// notReady is the answer while the modelgate app has not started (a few
// microseconds at most) or failed to.
func notReady() *apierr.Error {
	return apierr.New(http.StatusServiceUnavailable, apierr.TypeProvider, "the gateway is not ready").WithCode("gateway_not_ready")
}

// credential is what a request for rt needs: its path's credential in the
// route table (also for a method the path does not take), or a key for a
// path no route names (rt nil).
func credential(rt *routes.Route, _ bool) routes.Credential {
	if rt == nil {
		return routes.CredentialKey
	}
	return rt.Credential
}

// fromLoopback reports whether r comes from a client on a loopback
// address (127.0.0.0/8, ::1, or an IPv4-mapped loopback). The client is
// the one Caddy determined: the connection's peer, or the address a
// trusted proxy forwarded (the server's trusted_proxies).
func fromLoopback(r *http.Request) bool {
	addr, _ := caddyhttp.GetVar(r.Context(), caddyhttp.ClientIPVarKey).(string)
	if addr == "" {
		addr = r.RemoteAddr
		if host, _, err := net.SplitHostPort(addr); err == nil {
			addr = host
		}
	}
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	return ip.Unmap().IsLoopback()
}
