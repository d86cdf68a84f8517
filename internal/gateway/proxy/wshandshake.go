package proxy

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/routes"
)

// clientHandshakeError checks a realtime request's WebSocket opening
// handshake (RFC 6455 section 4.2.1) the way the upgrade will, and
// returns the gateway error that refuses it, or nil:
//   - no "Connection: Upgrade" or "Upgrade: websocket": 426,
//     code websocket_upgrade_required, with Upgrade: websocket set;
//   - a Sec-WebSocket-Version other than 13: 400,
//     code unsupported_websocket_version, with Sec-WebSocket-Version: 13;
//   - no Sec-WebSocket-Key, or one that is not 16 bytes in base64: 400,
//     code invalid_websocket_handshake;
//   - a request a browser marks as sent by another site's page
//     (routes.CrossSite): 403, code origin_not_allowed.
//
// The header a refusal names is set on w.
func clientHandshakeError(w http.ResponseWriter, r *http.Request) *apierr.Error {
	if !headerHasToken(r.Header, "Connection", "upgrade") || !headerHasToken(r.Header, "Upgrade", "websocket") {
		w.Header().Set("Upgrade", "websocket")
		return apierr.New(http.StatusUpgradeRequired, apierr.TypeInvalidRequest,
			"this endpoint is a WebSocket: send Connection: Upgrade and Upgrade: websocket").WithCode("websocket_upgrade_required")
	}
	if v := r.Header.Get("Sec-WebSocket-Version"); v != "13" {
		w.Header().Set("Sec-WebSocket-Version", "13")
		return apierr.InvalidRequest("unsupported WebSocket version " + strconv.Quote(v) + ": the gateway speaks version 13").
			WithCode("unsupported_websocket_version")
	}
	if k, err := base64.StdEncoding.DecodeString(r.Header.Get("Sec-WebSocket-Key")); err != nil || len(k) != 16 {
		return apierr.InvalidRequest("Sec-WebSocket-Key must be 16 bytes in base64").WithCode("invalid_websocket_handshake")
	}
	if routes.CrossSite(r) {
		return apierr.OriginNotAllowed("WebSocket requests from another site's pages are refused")
	}
	return nil
}

// headerHasToken reports whether the comma-separated values of header
// name hold token, compared without regard to case.
func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}
