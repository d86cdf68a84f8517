package apierr

import (
	"net/http"
	"strings"
)

// CheckJSONMediaType admits a request body only when its Content-Type is
// application/json, in any letter case and with or without parameters
// (charset=utf-8). Anything else, a missing header included, gets 415
// invalid_request_error, code unsupported_media_type. A web page can make
// a visitor's browser post form data, text/plain, or a bare byte body
// without any Content-Type to a local gateway without the browser asking
// first; only application/json needs that permission, so requiring it
// keeps web pages from spending the visitor's provider credit or changing
// a gateway's settings.
func CheckJSONMediaType(h http.Header) error {
	ct := h.Get("Content-Type")
	mt, _, _ := strings.Cut(ct, ";")
	if strings.EqualFold(strings.TrimSpace(mt), "application/json") {
		return nil
	}
	msg := "this endpoint takes a JSON body: send the header Content-Type: application/json"
	if ct == "" {
		msg += " (it is missing; a request without it is refused too)"
	} else {
		msg += " (got " + quoteMediaType(mt) + ")"
	}
	return New(http.StatusUnsupportedMediaType, TypeInvalidRequest, msg).
		WithParam("Content-Type").WithCode("unsupported_media_type")
}

// quoteMediaType quotes a client's media type for an error message,
// shortened and with control characters dropped.
func quoteMediaType(mt string) string {
	mt = strings.TrimSpace(mt)
	if len(mt) > 64 {
		mt = mt[:64] + "..."
	}
	return "\"" + strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '"' {
			return -1
		}
		return r
	}, mt) + "\""
}

// OriginNotAllowed is the answer to a request that a browser marks as
// sent by another site's page, where such requests are refused: 403
// invalid_request_error, code origin_not_allowed, with msg.
func OriginNotAllowed(msg string) *Error {
	return New(http.StatusForbidden, TypeInvalidRequest, msg).WithCode("origin_not_allowed")
}
