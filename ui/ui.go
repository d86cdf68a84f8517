// Package ui serves the embedded dashboard: its HTML pages under
// /admin/dashboard and its static assets under /admin/static/. The pages
// need no credential; the data they show comes from the admin API, which
// does. This release ships a placeholder that says so and lists the admin
// API; the dashboard itself arrives later.
package ui

import (
	"embed"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelgate/modelgate/apierr"
)

//go:embed assets
var assets embed.FS

// file is one embedded response.
type file struct {
	name        string
	contentType string
	cacheCtl    string
}

// files are the embedded responses by path. Their routes (public, GET) are
// declared in the route table of package routes, which the tests check
// against this list.
var files = map[string]file{
	"/admin/dashboard":            {"assets/dashboard.html", "text/html; charset=utf-8", "no-cache"},
	"/admin/dashboard/audit":      {"assets/audit.html", "text/html; charset=utf-8", "no-cache"},
	"/admin/static/modelgate.css": {"assets/modelgate.css", "text/css; charset=utf-8", "public, max-age=3600"},
}

// Handler serves the dashboard pages and assets. Unknown paths get 404 and
// methods other than GET and HEAD 405, in the gateway error shape. One
// trailing slash is ignored.
type Handler struct{}

// ServeHTTP answers one UI request.
func (Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/")
	}
	f, ok := files[path]
	if !ok {
		apierr.Write(w, apierr.New(http.StatusNotFound, apierr.TypeInvalidRequest,
			"unknown dashboard route: no page or asset at this path").WithCode("unknown_route"))
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		apierr.Write(w, apierr.New(http.StatusMethodNotAllowed, apierr.TypeInvalidRequest,
			"method "+r.Method+" is not allowed on "+path+"; use GET").WithCode("method_not_allowed"))
		return
	}
	body, err := assets.ReadFile(f.name)
	if err != nil { // cannot happen: the table names embedded files
		apierr.Write(w, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", f.contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", f.cacheCtl)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return
	}
	_, _ = w.Write(body)
}
