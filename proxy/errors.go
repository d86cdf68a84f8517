package proxy

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/apierr"
)

// transportError maps a failed upstream call: a timeout is 504, anything
// else (refused, reset, DNS) is 502.
func transportError(provider string, err error) error {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return apierr.ProviderError(http.StatusGatewayTimeout, provider,
			"provider "+provider+" did not answer in time").WithCode("upstream_timeout")
	}
	return apierr.ProviderError(http.StatusBadGateway, provider,
		"provider "+provider+" is unreachable: "+errorText(err)).WithCode("upstream_unreachable")
}

// errorText drops the request URL from a *url.Error so messages stay short
// and never echo query parameters.
func errorText(err error) string {
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Error()
	}
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

// upstreamError maps an upstream error response onto the gateway shape,
// keeping the upstream's status, message and code.
func upstreamError(provider string, resp *http.Response) *apierr.Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	msg, code, param := "", "", ""
	if gjson.ValidBytes(body) {
		e := gjson.GetBytes(body, "error")
		switch {
		case e.IsObject():
			msg, param = e.Get("message").String(), e.Get("param").String()
			if c := e.Get("code"); c.Exists() && c.Type != gjson.Null {
				code = c.String()
			} else {
				code = e.Get("type").String()
			}
		case e.Type == gjson.String:
			msg = e.Str
		default:
			msg = gjson.GetBytes(body, "message").String()
		}
		// Some upstreams answer with a list of errors.
		if msg == "" && gjson.GetBytes(body, "0.error.message").Exists() {
			msg = gjson.GetBytes(body, "0.error.message").String()
		}
	}
	if msg == "" {
		msg = strings.TrimSpace(string(body))
		if len(msg) > 512 {
			msg = msg[:512]
		}
	}
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	upstreamAuth := resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden
	if upstreamAuth {
		// Upstream auth messages may quote part of the provider's key, and
		// their codes would read as if the client's key were wrong.
		msg = "the upstream refused the gateway's credentials (status " + strconv.Itoa(resp.StatusCode) + ")"
		code = "upstream_auth_failed"
	}
	ge := apierr.New(resp.StatusCode, typeForStatus(resp.StatusCode), "provider "+provider+": "+msg).WithProvider(provider)
	if code != "" {
		ge.WithCode(code)
	}
	if param != "" {
		ge.WithParam(param)
	}
	if ra := strings.TrimSpace(resp.Header.Get("Retry-After")); ra != "" {
		ge.RetryAfterHeader = ra // seconds or an HTTP date, passed on as sent
	} else if resp.StatusCode == http.StatusTooManyRequests {
		ge.RetryAfter = 1
	}
	return ge
}

func typeForStatus(status int) string {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return apierr.TypeAuthentication
	case status == http.StatusNotFound:
		return apierr.TypeNotFound
	case status == http.StatusTooManyRequests:
		return apierr.TypeRateLimit
	case status >= 500:
		return apierr.TypeProvider
	default:
		return apierr.TypeInvalidRequest
	}
}
