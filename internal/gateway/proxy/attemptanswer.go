package proxy

import (
	"bytes"
	"io"
	"net/http"
)

// maxAttemptBody bounds what is read of an upstream error answer: the
// body kept for an attempt's record (keepFailedAnswer), and all that
// upstreamError reads of it.
const maxAttemptBody = 1 << 20

// keepFailedAnswer reads resp, an upstream error answer, for the record of
// c's attempt (audit attempts[].response_headers and response_body) and
// puts its body back for upstreamError to read. At most maxAttemptBody
// bytes are kept, with every configured provider credential removed from
// them and from the headers; a 401 or 403 answer keeps its headers only,
// since its body may quote part of the provider's key.
func (c *call) keepFailedAnswer(resp *http.Response, u *Upstreams) {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxAttemptBody))
	resp.Body = io.NopCloser(bytes.NewReader(body))
	c.failedHeader = u.redactHeader(resp.Header.Clone())
	c.failedBody = nil
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden && len(body) > 0 {
		c.failedBody = u.redactBody(body)
	}
}
