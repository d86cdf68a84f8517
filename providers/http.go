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
// the request headers). It does what http.Client would do for such a
// call: a base URL's user info becomes Basic authentication when the
// adapter set no Authorization; a provider that redirects (an API root
// moved) is asked again through http.Client, which sends the request once
// more and follows the redirect with the body replayed and credentials
// kept from other hosts; errors are wrapped as http.Client wraps them
// (*url.Error, "Post \"url\": ...", the URL's password masked).
func roundTrip(client *http.Client, req *http.Request) (*http.Response, error) {
	rt := client.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	if u := req.URL.User; u != nil && req.Header.Get("Authorization") == "" {
		password, _ := u.Password()
		req.SetBasicAuth(u.Username(), password)
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return nil, &url.Error{Op: "Post", URL: maskedURL(req.URL), Err: err}
	}
	if !isRedirect(resp) || req.GetBody == nil {
		return resp, nil
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	again := req.Clone(req.Context())
	if again.Body, err = req.GetBody(); err != nil {
		return nil, &url.Error{Op: "Post", URL: maskedURL(req.URL), Err: err}
	}
	return client.Do(again)
}

// maskedURL is u as http.Client names it in errors: its password, if
// any, replaced by "***".
func maskedURL(u *url.URL) string {
	if _, has := u.User.Password(); has {
		return strings.Replace(u.String(), u.User.String()+"@", u.User.Username()+":***@", 1)
	}
	return u.String()
}

// isRedirect reports whether resp redirects the request elsewhere.
func isRedirect(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return resp.Header.Get("Location") != ""
	}
	return false
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
	body := newPartsBody(parts)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return nil, err
	}
	req.Body, req.ContentLength = body, int64(body.Len())
	req.GetBody = func() (io.ReadCloser, error) { return newPartsBody(parts), nil }
	req.Header.Set("Content-Type", "application/json")
	setHeaders(req.Header)
	return roundTrip(client, req)
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
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("model listing: upstream status %d", resp.StatusCode)
	}
	return body, nil
}
