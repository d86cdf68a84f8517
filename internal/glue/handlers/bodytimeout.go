package handlers

import (
	"net/http"

	"github.com/modelgate/modelgate/internal/request/apierr"
)

// requestTimedOut answers a request whose body did not arrive within the
// read_body_timeout (see Auth) while a stage read it: 408 request_timeout.
// The stage that meets the timeout answers at once, because the failed
// read also cancelled the request's context (net/http does so on any
// read error of the connection): a later stage would take the request
// for one whose client went away.
func requestTimedOut(w http.ResponseWriter, r *http.Request) error {
	apierr.WriteFor(w, r, apierr.RequestTimeout())
	return nil
}

// bodyTimedOut reports whether err, a plan's refusal, is the 408 of a body
// that did not arrive in time.
func bodyTimedOut(err error) bool {
	e, ok := err.(*apierr.Error)
	return ok && e.StatusCode == http.StatusRequestTimeout
}
