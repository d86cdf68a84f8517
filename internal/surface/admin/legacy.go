package admin

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelgate/modelgate/internal/platform/config"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/routes"
)

// LegacyPrefix is the deprecated mount point of the admin API.
const LegacyPrefix = "/admin/api/v1/"

// LegacySunset is when auto mode stops serving LegacyPrefix.
var LegacySunset = time.Date(2026, time.August, 9, 0, 0, 0, 0, time.UTC)

// legacyMoved maps legacy paths (after LegacyPrefix) that moved elsewhere
// than "/admin/" + the same rest.
var legacyMoved = map[string]string{
	"dashboard/config": "/admin/runtime/config",
}

// legacyServed reports whether the alias answers at now: always in on
// mode, never in off mode, before the sunset in auto mode.
func (h *Handler) legacyServed(now time.Time) bool {
	switch h.opts.Config.Admin.LegacyAliasMode() {
	case config.LegacyAliasOn:
		return true
	case config.LegacyAliasOff:
		return false
	}
	return now.Before(h.opts.Sunset)
}

// successor returns the current path of a legacy path.
func successor(legacyPath string) string {
	rest := strings.TrimPrefix(legacyPath, LegacyPrefix)
	if moved, ok := legacyMoved[strings.TrimSuffix(rest, "/")]; ok {
		return moved
	}
	return Prefix + rest
}

// LegacyBeforeAuth runs for a request under LegacyPrefix before its
// credential is checked, so that every answer on the legacy path, a 401
// included, carries the alias's headers (legacyHeaders), and a retired
// alias answers 410 whoever asks: there is nothing left to protect. It
// reports whether it answered. Other requests, and every request in off
// mode, pass untouched.
func (h *Handler) LegacyBeforeAuth(w http.ResponseWriter, r *http.Request) bool {
	if !strings.HasPrefix(r.URL.Path, LegacyPrefix) || h.opts.Config.Admin.LegacyAliasMode() == config.LegacyAliasOff ||
		!h.opts.Config.Admin.EndpointsOn() {
		return false
	}
	h.legacyHeaders(w, r)
	if !h.legacyServed(h.opts.Now()) {
		h.legacyGone(w, r)
		return true
	}
	return false
}

// legacyHeaders sets Deprecation, Sunset and, when the successor path is
// an admin API route, a Link to it.
func (h *Handler) legacyHeaders(w http.ResponseWriter, r *http.Request) {
	next := successor(routes.Path(r)) // escaped when the client escaped
	hdr := w.Header()
	hdr.Set("Deprecation", "true")
	hdr.Set("Sunset", h.opts.Sunset.UTC().Format(http.TimeFormat))
	if rt, _ := routes.Lookup(r.Method, next); apiHandler(rt) != nil {
		hdr.Set("Link", "<"+next+`>; rel="successor-version"`)
	}
}

// legacyGone answers 410 endpoint_sunset for r. The message says where
// to go: a path that moved elsewhere (legacyMoved) is named, since
// replacing the prefix would not reach it.
func (h *Handler) legacyGone(w http.ResponseWriter, r *http.Request) {
	how := "replace /admin/api/v1/ with /admin/ (see the Link header)"
	rest := strings.TrimSuffix(strings.TrimPrefix(routes.Path(r), LegacyPrefix), "/")
	if moved, ok := legacyMoved[rest]; ok {
		how = "this endpoint is now " + moved
	}
	apierr.Write(w, apierr.New(http.StatusGone, apierr.TypeInvalidRequest,
		"the /admin/api/v1/ alias was retired on "+h.opts.Sunset.UTC().Format(time.DateOnly)+"; "+how).WithCode("endpoint_sunset"))
}

// serveLegacy answers a request under LegacyPrefix: in off mode 404;
// otherwise with Deprecation, Sunset and a Link to the successor path, then
// 410 Gone once auto mode is past the sunset, or the successor route's
// answer.
func (h *Handler) serveLegacy(w http.ResponseWriter, r *http.Request) {
	mode := h.opts.Config.Admin.LegacyAliasMode()
	if mode == config.LegacyAliasOff {
		unknownRoute(w, r)
		return
	}
	next := successor(routes.Path(r)) // escaped when the client escaped
	h.legacyHeaders(w, r)
	if !h.legacyServed(h.opts.Now()) {
		h.legacyGone(w, r)
		return
	}
	r2 := new(http.Request)
	*r2 = *r
	u := *r.URL
	u.Path, u.RawPath = next, ""
	if r.URL.RawPath != "" {
		// Keep an URL-encoded path parameter (a budget's user path) one
		// segment.
		if p, err := url.PathUnescape(next); err == nil {
			u.Path, u.RawPath = p, next
		}
	}
	r2.URL = &u
	h.serveAPI(w, r2)
}
