package handlers

import (
	"net/http"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// notYetActive is the behaviour of a chain stage whose feature has not
// landed: it passes every request on unchanged, so the chain's shape and
// the Caddyfile stay stable while the stages are filled in.
type notYetActive struct{}

// ServeHTTP passes the request on.
func (notYetActive) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	return next.ServeHTTP(w, r)
}
