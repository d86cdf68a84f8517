package admin

import (
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/modelgate/modelgate/internal/request/routes"
)

// Operation is one method on one path of the OpenAPI document.
type Operation struct {
	// Method is the HTTP method.
	Method string
	// Path is the URL path with {name} segments.
	Path string
	// Public reports whether the operation needs no credential.
	Public bool

	route  *routes.Route // the route; for a legacy alias, its successor's
	legacy bool          // a path of the legacy alias
}

// anyMethods are the methods documented for a route that takes any.
var anyMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// Operations lists every operation the gateway serves at now: the served
// routes of the route table (package routes), leaving out the admin API
// while it is switched off and the dashboard while the UI is, plus the
// legacy alias while it is served. The OpenAPI document holds exactly
// these.
func (h *Handler) Operations(now time.Time) []Operation {
	admin := h.opts.Config.Admin
	all := routes.All()
	var ops []Operation
	for i := range all {
		rt := &all[i]
		switch {
		case !rt.Documented():
		case rt.Shape == routes.ShapeAdmin && !admin.EndpointsOn():
		case rt.Shape == routes.ShapeDashboard && (!admin.EndpointsOn() || !admin.UIOn()):
		default:
			ops = append(ops, operationsOf(rt)...)
		}
	}
	if admin.EndpointsOn() && h.legacyServed(now) {
		ops = append(ops, legacyOps(all)...)
	}
	return sortOps(ops)
}

// operationsOf returns the operations of one documented route: one, or one
// per method for a route that takes any. A final /* of its path is
// documented as a {path} parameter.
func operationsOf(rt *routes.Route) []Operation {
	path := rt.Path
	if p, ok := strings.CutSuffix(path, "/*"); ok {
		path = p + "/{path}"
	}
	methods := []string{rt.Method}
	if rt.Method == routes.Any {
		methods = anyMethods
	}
	ops := make([]Operation, len(methods))
	for i, m := range methods {
		ops[i] = Operation{Method: m, Path: path, Public: rt.Credential == routes.CredentialNone, route: rt}
	}
	return ops
}

// legacyOps are the admin API routes under LegacyPrefix, plus the moved
// ones.
func legacyOps(all []routes.Route) []Operation {
	var ops []Operation
	for i := range all {
		rt := &all[i]
		if rt.Shape != routes.ShapeAdmin || !rt.Documented() {
			continue
		}
		ops = append(ops, Operation{Method: rt.Method, Path: LegacyPrefix + strings.TrimPrefix(rt.Path, Prefix), route: rt, legacy: true})
		for old, current := range legacyMoved {
			if rt.Path == current {
				ops = append(ops, Operation{Method: rt.Method, Path: LegacyPrefix + old, route: rt, legacy: true})
			}
		}
	}
	return ops
}

func sortOps(ops []Operation) []Operation {
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].Path != ops[j].Path {
			return ops[i].Path < ops[j].Path
		}
		return ops[i].Method < ops[j].Method
	})
	return ops
}

// OpenAPI returns the OpenAPI 3.1 document of every operation served at
// now, as a JSON-ready value.
func (h *Handler) OpenAPI(now time.Time) map[string]any {
	paths := map[string]map[string]any{}
	for _, op := range h.Operations(now) {
		if paths[op.Path] == nil {
			paths[op.Path] = map[string]any{}
		}
		paths[op.Path][strings.ToLower(op.Method)] = h.operation(op)
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "Modelgate",
			"version": APIVersion,
			"description": "LLM gateway: model endpoints under /v1 and the admin API under /admin. " +
				"Authenticate with Authorization: Bearer <key> (or x-api-key): the master key, or a managed key; " +
				"/admin/* needs the master key or a managed key with dashboard access. " +
				"The /admin/api/v1/ alias is deprecated (sunset " + h.opts.Sunset.UTC().Format(time.DateOnly) + "): replace /admin/api/v1/ with /admin/.",
			"x-modelgate-version": h.opts.Version,
		},
		"servers":  []map[string]any{{"url": "/"}},
		"security": []map[string]any{{"bearerAuth": []string{}}, {"apiKeyAuth": []string{}}},
		"paths":    paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{
				"bearerAuth": map[string]any{"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
					"description": "The gateway master key or a managed key (sk_mg_...)."},
				"apiKeyAuth": map[string]any{"type": "apiKey", "in": "header", "name": "x-api-key",
					"description": "The same key, as Anthropic SDKs send it; Authorization wins when both are sent."},
			},
			"schemas":   components(),
			"responses": responseComponents(),
			"headers":   headerComponents(h.opts.Sunset),
		},
	}
}

func (h *Handler) openAPI(w http.ResponseWriter, _ *http.Request, _ params) {
	writeJSON(w, http.StatusOK, h.OpenAPI(h.opts.Now()))
}
