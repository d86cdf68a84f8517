package admin

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/modelgate/modelgate/proxy"
	"github.com/modelgate/modelgate/selfusage"
	"github.com/modelgate/modelgate/ui"
)

// Operation is one method on one path of the OpenAPI document.
type Operation struct {
	// Method is the HTTP method.
	Method string
	// Path is the URL path with {name} segments.
	Path string
	// Public reports whether the operation needs no credential.
	Public bool
}

// publicModelPaths need no credential.
var publicModelPaths = map[string]bool{"/health": true}

// Operations lists every operation the gateway serves at now: the model
// endpoints, GET /v1/usage, the admin API, the legacy alias while it is
// served, and the dashboard while the UI is on. The OpenAPI document
// holds exactly these.
func (h *Handler) Operations(now time.Time) []Operation {
	var ops []Operation
	for _, r := range proxy.Routes() {
		ops = append(ops, Operation{r.Method, r.Path, publicModelPaths[r.Path]})
	}
	ops = append(ops, Operation{http.MethodGet, selfusage.Path, false})
	if !h.opts.Config.Admin.EndpointsOn() {
		return sortOps(ops)
	}
	for _, r := range routes {
		ops = append(ops, Operation{r.Method, r.Path, false})
	}
	if h.legacyServed(now) {
		ops = append(ops, legacyOps()...)
	}
	if h.opts.Config.Admin.UIOn() {
		for _, p := range append(ui.Pages(), ui.Assets()...) {
			ops = append(ops, Operation{http.MethodGet, p, true})
		}
	}
	return sortOps(ops)
}

// legacyOps are the admin routes under LegacyPrefix, plus the moved ones.
func legacyOps() []Operation {
	var ops []Operation
	for _, r := range routes {
		ops = append(ops, Operation{r.Method, LegacyPrefix + strings.TrimPrefix(r.Path, Prefix), false})
	}
	for old, current := range legacyMoved {
		for _, r := range routes {
			if r.Path == current {
				ops = append(ops, Operation{r.Method, LegacyPrefix + old, false})
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

// docFor returns the description of an operation.
func docFor(op Operation) (opDoc, bool) {
	path, legacy := op.Path, false
	if strings.HasPrefix(path, LegacyPrefix) {
		path, legacy = successor(path), true
	}
	for _, r := range routes {
		if r.Path == path && r.Method == op.Method {
			d := r.doc
			if legacy {
				d.id += "Legacy"
				if rest := strings.TrimPrefix(op.Path, LegacyPrefix); legacyMoved[rest] != "" {
					d.id += idSuffix(rest)
				}
				d.tag = "legacy"
			}
			return d, legacy
		}
	}
	if d, ok := modelDocs[path]; ok {
		return d, false
	}
	if ui.IsUIPath(path) {
		kind := "page"
		if strings.HasPrefix(path, ui.StaticPrefix) {
			kind = "asset"
		}
		return opDoc{id: "dashboard" + idSuffix(path), summary: "Dashboard " + kind + " (no credential needed)", tag: "dashboard", status: 200}, false
	}
	return opDoc{id: strings.ToLower(op.Method) + idSuffix(path), summary: op.Method + " " + path, tag: "models",
		status: 200, result: "ModelResponse", errors: []int{400, 404}}, false
}

// idSuffix turns a path into an identifier suffix.
func idSuffix(path string) string {
	var sb strings.Builder
	upper := true
	for _, r := range path {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			if upper && r >= 'a' && r <= 'z' {
				r -= 'a' - 'A'
			}
			sb.WriteRune(r)
			upper = false
		default:
			upper = true
		}
	}
	return sb.String()
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
			"schemas": components(),
			"responses": map[string]any{
				"Error": map[string]any{"description": "Gateway error.",
					"content": map[string]any{"application/json": map[string]any{"schema": ref("ErrorResponse")}}},
			},
		},
	}
}

// operation describes one operation.
func (h *Handler) operation(op Operation) map[string]any {
	d, legacy := docFor(op)
	out := map[string]any{"operationId": d.id, "summary": d.summary, "tags": []string{d.tag}}
	if legacy {
		out["deprecated"] = true
		out["description"] = "Deprecated alias of " + successor(op.Path) + "; answers carry Deprecation, Sunset and Link headers, and 410 after the sunset."
	}
	var params []map[string]any
	for _, seg := range strings.Split(op.Path, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			params = append(params, map[string]any{"name": seg[1 : len(seg)-1], "in": "path", "required": true, "schema": str("")})
		}
	}
	for _, q := range d.query {
		params = append(params, map[string]any{"name": q.name, "in": "query", "required": false, "description": q.desc, "schema": q.schema})
	}
	if strings.HasPrefix(op.Path, "/v1/") {
		params = append(params, map[string]any{"name": h.opts.Config.Server.UserPathHeader, "in": "header", "required": false,
			"description": "The caller's user path (e.g. /team/alpha). A managed key bound to a path overrides it.", "schema": str("")})
	}
	if params != nil {
		out["parameters"] = params
	}
	if d.body != "" {
		out["requestBody"] = map[string]any{"required": true,
			"content": map[string]any{"application/json": map[string]any{"schema": ref(d.body)}}}
	}
	responses := map[string]any{strconv.Itoa(d.status): h.success(op, d)}
	errs := d.errors
	if op.Public {
		out["security"] = []map[string]any{}
	} else {
		errs = append(errs, http.StatusUnauthorized)
		if strings.HasPrefix(op.Path, Prefix) {
			errs = append(errs, http.StatusForbidden)
		}
	}
	if legacy {
		errs = append(errs, http.StatusGone)
	}
	for _, s := range errs {
		responses[strconv.Itoa(s)] = map[string]any{"$ref": "#/components/responses/Error"}
	}
	out["responses"] = responses
	return out
}

// success describes an operation's success response.
func (h *Handler) success(op Operation, d opDoc) map[string]any {
	desc := http.StatusText(d.status)
	switch {
	case ui.IsUIPath(op.Path):
		ct := "text/html"
		if strings.HasSuffix(op.Path, ".css") {
			ct = "text/css"
		}
		return map[string]any{"description": desc, "content": map[string]any{ct: map[string]any{"schema": str("")}}}
	case d.result == "":
		return map[string]any{"description": desc}
	}
	content := map[string]any{"application/json": map[string]any{"schema": ref(d.result)}}
	if op.Path == "/v1/chat/completions" {
		content["text/event-stream"] = map[string]any{"schema": str("Server-sent events, one chunk per event, when stream is true.")}
	}
	return map[string]any{"description": desc, "content": content}
}

func (h *Handler) openAPI(w http.ResponseWriter, _ *http.Request, _ params) {
	writeJSON(w, http.StatusOK, h.OpenAPI(h.opts.Now()))
}
