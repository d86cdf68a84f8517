package providers

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/propagation"
)

// maxListingBytes bounds a model listing answer.
const maxListingBytes = 16 << 20

// postJSON sends body as a JSON POST to url, with the adapter's headers.
func postJSON(ctx context.Context, client *http.Client, url string, body []byte, setHeaders func(http.Header)) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	setHeaders(req.Header)
	return roundTrip(client, req)
}

// roundTrip makes one model call through the client's transport alone,
// which spares http.Client's per-call bookkeeping for redirects (a copy of
// the request headers). It does what http.Client does for such a call
// with redirects refused (see New): a base URL's user info becomes Basic
// authentication when the adapter set no Authorization; a redirect is
// the answer, never followed, since following it would send the prompt
// and, in headers such as x-api-key, the provider's key elsewhere; errors
// are wrapped as http.Client wraps them (*url.Error, "Post \"url\": ...",
// the URL's password masked).
func roundTrip(client *http.Client, req *http.Request) (*http.Response, error) {
	rt := client.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	if u := req.URL.User; u != nil && req.Header.Get("Authorization") == "" {
		password, _ := u.Password()
		req.SetBasicAuth(u.Username(), password)
	}
	injectTrace(req)
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return nil, &url.Error{Op: "Post", URL: maskedURL(req.URL), Err: err}
	}
	return resp, nil
}

// maskedURL is u as http.Client names it in errors: its password, if
// any, replaced by "***".
func maskedURL(u *url.URL) string {
	if _, has := u.User.Password(); has {
		return strings.Replace(u.String(), u.User.String()+"@", u.User.Username()+":***@", 1)
	}
	return u.String()
}

// postJSONParts is postJSON with the body given as consecutive parts,
// sent as they are: neither joined nor changed. A body of one part is sent
// as postJSON sends it: net/http then writes the request's head and the
// start of its body together, where for a body of several parts it
// writes the head on its own first.
func postJSONParts(ctx context.Context, client *http.Client, url string, parts [][]byte, setHeaders func(http.Header)) (*http.Response, error) {
	if len(parts) == 1 {
		return postJSON(ctx, client, url, parts[0], setHeaders)
	}
	req, err := partsRequest(ctx, url, parts, setHeaders)
	if err != nil {
		return nil, err
	}
	return roundTrip(client, req)
}

// partsRequest is a JSON POST to url of the body given as consecutive
// parts, with the adapter's headers. Its GetBody gives the body again, for
// the transport to send it once more when a kept-alive connection it
// chose turns out closed.
func partsRequest(ctx context.Context, url string, parts [][]byte, setHeaders func(http.Header)) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return nil, err
	}
	body := newPartsBody(parts)
	req.Body, req.ContentLength = body, int64(body.Len())
	req.GetBody = func() (io.ReadCloser, error) { return newPartsBody(parts), nil }
	req.Header.Set("Content-Type", "application/json")
	setHeaders(req.Header)
	return req, nil
}

// getListing fetches a model listing page and returns the body of a 200
// answer.
func getListing(ctx context.Context, client *http.Client, url string, setHeaders func(http.Header)) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	setHeaders(req.Header)
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxListingBytes))
	if err != nil {
		return nil, err
	}
	if IsRedirect(resp.StatusCode) {
		// Not followed (see New).
		return nil, fmt.Errorf("model listing: upstream redirect (status %d) not followed", resp.StatusCode)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("model listing: upstream status %d", resp.StatusCode)
	}
	return body, nil
}

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

// propagateKey marks a context whose trace context goes upstream.
type propagateKey struct{}

// WithTracePropagation returns ctx marked so that the model calls made
// with it send its trace context (traceparent, tracestate) to the
// provider. Unmarked, nothing of the caller's trace leaves the gateway.
func WithTracePropagation(ctx context.Context) context.Context {
	return context.WithValue(ctx, propagateKey{}, true)
}

// injectTrace adds the trace context of req's context to its headers
// when the context is marked by WithTracePropagation.
func injectTrace(req *http.Request) {
	if on, _ := req.Context().Value(propagateKey{}).(bool); on {
		propagation.TraceContext{}.Inject(req.Context(), propagation.HeaderCarrier(req.Header))
	}
}

// Addressed is a provider that knows the host its calls go to.
type Addressed interface {
	// ServerAddress is the host name of the instance's API root ("" for
	// an in-process provider), as OpenTelemetry's server.address names it.
	ServerAddress() string
}

// hostOf is the host name of baseURL, "" when it has none.
func hostOf(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// ServerAddress implements Addressed.
func (p *OpenAICompat) ServerAddress() string { return p.host }

// ServerAddress implements Addressed.
func (p *Anthropic) ServerAddress() string { return p.host }

// ServerAddress implements Addressed.
func (p *ElevenLabs) ServerAddress() string { return p.host }
