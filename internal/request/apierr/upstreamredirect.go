package apierr

import (
	"net/http"
	"strconv"
)

// CodeUpstreamRedirect is the code of UpstreamRedirect.
const CodeUpstreamRedirect = "upstream_redirect"

// UpstreamRedirect is the answer when provider answered a call with a
// redirect (status, 3xx), which the gateway never follows: 502
// provider_error, code upstream_redirect, with a fixed message. Where the
// redirect pointed is not said; it goes to the log only.
func UpstreamRedirect(provider string, status int) *Error {
	return ProviderError(http.StatusBadGateway, provider,
		"provider "+provider+" answered with a redirect (status "+strconv.Itoa(status)+
			"), which the gateway does not follow; check its base URL").WithCode(CodeUpstreamRedirect)
}
