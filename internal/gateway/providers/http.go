package providers

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
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
