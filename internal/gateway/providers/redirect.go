package providers

import "net/http"

// IsRedirect reports whether status is a redirect (3xx). Adapters never
// follow one (see New): on the model endpoints it is a provider failure,
// and passthrough relays it as it came.
func IsRedirect(status int) bool {
	return status >= 300 && status < 400
}

// withoutRedirects returns a copy of c that answers a redirect with the
// redirect itself instead of following it. Following one would send the
// request again, prompt and all, wherever the upstream points, with the
// provider's credential: net/http drops Authorization across hosts but
// keeps other headers (x-api-key, api-key, xi-api-key), and keeps them all
// on the same host.
func withoutRedirects(c *http.Client) *http.Client {
	out := *c
	out.CheckRedirect = useLastResponse
	return &out
}

// useLastResponse is an http.Client CheckRedirect that follows nothing.
func useLastResponse(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
