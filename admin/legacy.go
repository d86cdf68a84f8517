package admin

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelgate/modelgate/apierr"
	"github.com/modelgate/modelgate/config"
	"github.com/modelgate/modelgate/routes"
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

	hdr := w.Header()
	hdr.Set("Deprecation", "true")
	hdr.Set("Sunset", h.opts.Sunset.UTC().Format(http.TimeFormat))
	hdr.Set("Link", "<"+next+`>; rel="successor-version"`)
	if !h.legacyServed(h.opts.Now()) {
		apierr.Write(w, apierr.New(http.StatusGone, apierr.TypeInvalidRequest,
			"the /admin/api/v1/ alias was retired on "+h.opts.Sunset.UTC().Format(time.DateOnly)+
				"; replace /admin/api/v1/ with /admin/ (see the Link header)").WithCode("endpoint_sunset"))
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
