package providers

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
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
	return client.Do(req)
}

// postJSONWithMember is postJSON with member added to the object body
// (see MemberSplit): the request body is sent as three parts, the body
// up to its closing brace, the member, and the rest, so body is neither
// copied nor changed.
func postJSONWithMember(ctx context.Context, client *http.Client, url string, body []byte, member string, setHeaders func(http.Header)) (*http.Response, error) {
	end, sep := MemberSplit(body)
	if end < 0 {
		return postJSON(ctx, client, url, body, setHeaders)
	}
	mid := []byte(sep + member)
	parts := func() io.ReadCloser {
		b := net.Buffers{body[:end], mid, body[end:]}
		return io.NopCloser(&b)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return nil, err
	}
	req.Body, req.ContentLength = parts(), int64(len(body)+len(mid))
	req.GetBody = func() (io.ReadCloser, error) { return parts(), nil }
	req.Header.Set("Content-Type", "application/json")
	setHeaders(req.Header)
	return client.Do(req)
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
