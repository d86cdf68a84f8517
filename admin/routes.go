package admin

import (
	"net/http"
	"sort"
	"strings"
)

// Route is one admin API endpoint.
type Route struct {
	// Method is the HTTP method.
	Method string
	// Path is the URL path; a {name} segment matches any one segment.
	Path string

	handle func(h *Handler, w http.ResponseWriter, r *http.Request, p params)
	doc    opDoc
}

// params holds the values of a route's {name} segments.
type params map[string]string

// routes is the admin API route table. The OpenAPI document is built from
// it, and the tests check the two against each other. It is filled in init
// because the openapi.json handler itself reads it.
var routes []Route

func init() {
	routes = []Route{
		{http.MethodGet, "/admin/auth-keys", (*Handler).listKeys, docListKeys},
		{http.MethodPost, "/admin/auth-keys", (*Handler).createKey, docCreateKey},
		{http.MethodGet, "/admin/auth-keys/{id}", (*Handler).getKey, docGetKey},
		{http.MethodPatch, "/admin/auth-keys/{id}", (*Handler).updateKey, docUpdateKey},
		{http.MethodDelete, "/admin/auth-keys/{id}", (*Handler).deleteKey, docDeleteKey},
		{http.MethodPost, "/admin/auth-keys/{id}/deactivate", (*Handler).deactivateKey, docDeactivateKey},
		{http.MethodGet, "/admin/usage/summary", (*Handler).usageSummary, docUsageSummary},
		{http.MethodGet, "/admin/usage/daily", (*Handler).usageDaily, docUsageDaily},
		{http.MethodGet, "/admin/usage/sessions", (*Handler).usageSessions, docUsageSessions},
		{http.MethodGet, "/admin/rate-limits", (*Handler).listRateLimits, docListRateLimits},
		{http.MethodPut, "/admin/rate-limits", (*Handler).putRateLimit, docPutRateLimit},
		{http.MethodDelete, "/admin/rate-limits", (*Handler).deleteRateLimit, docDeleteRateLimit},
		{http.MethodPost, "/admin/rate-limits/reset-one", (*Handler).resetOneRateLimit, docResetOneRateLimit},
		{http.MethodPost, "/admin/rate-limits/reset", (*Handler).resetRateLimits, docResetRateLimits},
		{http.MethodGet, "/admin/runtime/config", (*Handler).runtimeConfig, docRuntimeConfig},
		{http.MethodGet, "/admin/openapi.json", (*Handler).openAPI, docOpenAPI},
	}
}

// Routes lists the admin API endpoints (not the dashboard pages), sorted
// by path and method.
func Routes() []Route {
	out := append([]Route(nil), routes...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out
}

// match finds the route for method and path. When the path matches but
// the method does not, it returns the allowed methods instead. GET routes
// also answer HEAD. One trailing slash is ignored.
func match(method, path string) (*Route, params, []string) {
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/")
	}
	segs := strings.Split(path, "/")
	var allowed []string
	for i := range routes {
		rt := &routes[i]
		p, ok := matchPath(rt.Path, segs)
		if !ok {
			continue
		}
		if rt.Method == method || (rt.Method == http.MethodGet && method == http.MethodHead) {
			return rt, p, nil
		}
		allowed = append(allowed, rt.Method)
	}
	return nil, nil, allowed
}

// matchPath matches the segments of a path against a route pattern.
func matchPath(pattern string, segs []string) (params, bool) {
	pat := strings.Split(pattern, "/")
	if len(pat) != len(segs) {
		return nil, false
	}
	var p params
	for i, s := range pat {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			if segs[i] == "" {
				return nil, false
			}
			if p == nil {
				p = params{}
			}
			p[s[1:len(s)-1]] = segs[i]
			continue
		}
		if s != segs[i] {
			return nil, false
		}
	}
	return p, true
}
