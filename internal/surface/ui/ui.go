// Package ui serves the embedded dashboard: its HTML pages under
// /admin/dashboard and its static assets (one stylesheet, JavaScript
// modules) under /admin/static/. The pages need no credential; the data
// they show comes from the admin API, read by the browser with the key the
// operator types, which never leaves the browser tab's session storage.
// Every page is the same shell; the script draws the page its path names.
package ui

import (
	"embed"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelgate/modelgate/internal/request/apierr"
)

//go:embed assets
var assets embed.FS

// ContentSecurityPolicy is the Content-Security-Policy header of every
// dashboard answer: scripts, styles and data from the gateway's own origin
// only, no inline script or style attribute, no framing, no form posts.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// file is one embedded response.
type file struct {
	name        string
	contentType string
	cacheCtl    string
}

const (
	htmlType = "text/html; charset=utf-8"
	jsType   = "text/javascript; charset=utf-8"
	cssType  = "text/css; charset=utf-8"
	// revalidate makes the browser check every page and asset with the
	// gateway before using a kept copy, so a new release shows at once.
	revalidate = "no-cache"
)

// shell is the one HTML document every page path answers with.
const shell = "assets/index.html"

// Pages are the dashboard page paths, in navigation order. Each answers
// with the shell; the script picks the page by path.
var Pages = []string{
	"/admin/dashboard",
	"/admin/dashboard/audit",
	"/admin/dashboard/usage",
	"/admin/dashboard/keys",
	"/admin/dashboard/limits",
	"/admin/dashboard/models",
}

// Assets are the static asset file names under /admin/static/.
var Assets = []string{
	"modelgate.css",
	"app.js", "api.js", "dom.js", "charts.js", "live.js",
	"overview.js", "audit.js", "conversation.js", "usage.js", "spend.js", "keys.js", "limits.js", "children.js", "models.js",
}

// files are the embedded responses by path. Their routes (public, GET) are
// declared in the route table of package routes, which the tests check
// against this list.
var files = func() map[string]file {
	m := map[string]file{}
	for _, p := range Pages {
		m[p] = file{shell, htmlType, revalidate}
	}
	for _, a := range Assets {
		ct := jsType
		if strings.HasSuffix(a, ".css") {
			ct = cssType
		}
		m["/admin/static/"+a] = file{"assets/" + a, ct, revalidate}
	}
	return m
}()

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
	h := w.Header()
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	f, ok := files[path]
	if !ok {
		apierr.Write(w, apierr.UnknownRoute("unknown dashboard route: no page or asset at this path"))
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		apierr.WriteMethodNotAllowed(w, r, "GET, HEAD")
		return
	}
	body, err := assets.ReadFile(f.name)
	if err != nil { // cannot happen: the table names embedded files
		apierr.Write(w, err)
		return
	}
	h.Set("Content-Type", f.contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", f.cacheCtl)
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return
	}
	_, _ = w.Write(body)
}
