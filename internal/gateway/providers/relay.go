package providers

import (
	"context"
	"io"
	"net/http"
	"strings"
)

// RawRequest is a request relayed below a provider's API root with the
// client's own method, media type and body (passthrough, multipart audio).
type RawRequest struct {
	// Method is the HTTP method.
	Method string
	// Path is the path below the API root, without a leading slash, in its
	// escaped form; the caller has checked that it cannot leave the root.
	Path string
	// RawQuery is the query string, sent as it is ("" for none).
	RawQuery string
	// Header is sent as it is; the adapter adds its credential (and its
	// User-Agent when the header has none).
	Header http.Header
	// Body is sent as it is; nil sends none.
	Body io.Reader
	// ContentLength is the body's length, -1 when unknown.
	ContentLength int64
}

// Relayer is implemented by adapters that can send a request of any
// method and media type to a path below their API root.
type Relayer interface {
	// Relay sends req with the instance's credential and returns the
	// upstream response; the caller closes its body. The request is bound
	// to ctx.
	Relay(ctx context.Context, req RawRequest) (*http.Response, error)
	// BaseURL is the instance's API root, without a trailing slash.
	BaseURL() string
	// AuthHeader is the request header that carries the instance's
	// credential.
	AuthHeader() string
}

// relay sends req below baseURL with client. setHeaders writes the
// adapter's headers; the credential in authHeader always wins, the others
// (User-Agent, API version) only where the client sent none.
func relay(ctx context.Context, client *http.Client, baseURL, authHeader string, req RawRequest, setHeaders func(http.Header)) (*http.Response, error) {
	u := strings.TrimRight(baseURL, "/") + "/" + req.Path
	if req.RawQuery != "" {
		u += "?" + req.RawQuery
	}
	body := req.Body
	if body == nil {
		body = http.NoBody
	}
	out, err := http.NewRequestWithContext(ctx, req.Method, u, body)
	if err != nil {
		return nil, err
	}
	if req.Body != nil {
		out.ContentLength = req.ContentLength
	}
	if req.Header != nil {
		out.Header = req.Header.Clone()
	}
	own := make(http.Header, 4)
	setHeaders(own)
	for k, v := range own {
		if _, sent := out.Header[k]; !sent || strings.EqualFold(k, authHeader) {
			out.Header[k] = v
		}
	}
	injectTrace(out)
	return client.Do(out)
}

// Relay implements Relayer.
func (p *OpenAICompat) Relay(ctx context.Context, req RawRequest) (*http.Response, error) {
	return relay(ctx, p.client, p.baseURL, p.t.AuthHeader, req, p.setHeaders)
}

// BaseURL implements Relayer.
func (p *OpenAICompat) BaseURL() string { return p.baseURL }

// AuthHeader implements Relayer.
func (p *OpenAICompat) AuthHeader() string { return p.t.AuthHeader }

// Relay implements Relayer.
func (p *Anthropic) Relay(ctx context.Context, req RawRequest) (*http.Response, error) {
	return relay(ctx, p.client, p.baseURL, p.t.AuthHeader, req, p.setHeaders)
}

// BaseURL implements Relayer.
func (p *Anthropic) BaseURL() string { return p.baseURL }

// AuthHeader implements Relayer.
func (p *Anthropic) AuthHeader() string { return p.t.AuthHeader }
