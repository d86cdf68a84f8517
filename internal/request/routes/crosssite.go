package routes

import (
	"net/http"
	"net/url"
	"strings"
)

// CrossSite reports whether a browser says r comes from another site's
// page: Sec-Fetch-Site is "cross-site" or "same-site" (another port or
// subdomain), or the Origin header names a host other than r.Host (or is
// "null", as sandboxed and file pages send). Clients that are not browsers
// send neither header and are never cross-site. A browser lets any page
// send some requests to any address (a form post, a WebSocket) without
// asking first; refusing the ones it marks as cross-site keeps a page from
// acting through a gateway on the visitor's machine.
func CrossSite(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site", "same-site":
		return true
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	u, err := url.Parse(origin)
	return err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host)
}

// CrossSiteChange reports whether r may change state (its method is neither
// GET nor HEAD) and CrossSite marks it as sent from another site's page.
func CrossSiteChange(r *http.Request) bool {
	return r.Method != http.MethodGet && r.Method != http.MethodHead && CrossSite(r)
}
