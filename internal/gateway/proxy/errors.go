package proxy

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"
	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/platform/sse"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// transportError maps an upstream call that failed before the response
// headers: a timeout is 504 upstream_timeout, a connection the upstream
// closed or reset is 502 upstream_read_failed, an answer an adapter could
// not read (providers.ErrBadAnswer) is mapped as readError maps it,
// anything else (refused, DNS, TLS) 502 upstream_unreachable. Clients get these fixed messages;
// the Go error, which names addresses, goes to the log only.
func transportError(provider string, err error) *apierr.Error {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errUpstreamTimeout) || (errors.As(err, &ne) && ne.Timeout()):
		return apierr.UpstreamTimeout(provider)
	case errors.Is(err, providers.ErrBadAnswer):
		// The upstream answered; its answer could not be read.
		return readError(provider, err)
	case brokenConnection(err):
		return apierr.ProviderError(http.StatusBadGateway, provider,
			"provider "+provider+" closed the connection before answering").WithCode("upstream_read_failed")
	}
	return apierr.UpstreamUnreachable(provider)
}

// readError maps a failure while reading an upstream answer after its
// headers, with a fixed message: 504 upstream_timeout, 502
// upstream_response_too_large, or 502 upstream_read_failed for a reset or
// truncated answer.
func readError(provider string, err error) *apierr.Error {
	switch {
	case errors.Is(err, errUpstreamTimeout):
		return apierr.UpstreamTimeout(provider)
	case errors.Is(err, errResponseTooLarge), errors.Is(err, sse.ErrEventTooLarge):
		return apierr.ProviderError(http.StatusBadGateway, provider,
			"the answer of provider "+provider+" exceeds the gateway's size limit").WithCode("upstream_response_too_large")
	}
	return apierr.ProviderError(http.StatusBadGateway, provider,
		"the connection to provider "+provider+" broke before its answer was complete").WithCode("upstream_read_failed")
}

// brokenConnection reports whether err is a connection the upstream
// closed or reset after it was established.
func brokenConnection(err error) bool {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && (op.Op == "read" || op.Op == "write")
}

// answerError is the failure an upstream answer amounts to on a model
// endpoint, or nil for a success. An error answer (400 and above) is
// mapped by upstreamError, its body kept for the attempt's record. A
// redirect, which adapters never follow (providers.New), is 502
// upstream_redirect: where it points is logged, never answered or
// recorded, since it is the upstream's word about another host.
func (s *Service) answerError(c *call, resp *http.Response) *apierr.Error {
	switch {
	case resp.StatusCode >= 400:
		c.keepFailedAnswer(resp, s.Upstreams)
		return upstreamError(c.provider.Name(), resp, s.Upstreams)
	case providers.IsRedirect(resp.StatusCode):
		s.logRedirect(c.provider.Name(), resp)
		return apierr.UpstreamRedirect(c.provider.Name(), resp.StatusCode)
	}
	return nil
}

// logRedirect logs an upstream's redirect that was not followed, with
// where it pointed (provider credentials removed).
func (s *Service) logRedirect(provider string, resp *http.Response) {
	s.logger().Warn("upstream answered with a redirect; not followed", zap.String("provider", provider),
		zap.Int("status", resp.StatusCode), zap.String("location", s.Upstreams.redact(resp.Header.Get("Location"))))
}

// maxRelayedMessage caps the length of an upstream error message.
const maxRelayedMessage = 2048

// upstreamError maps an upstream error response onto the gateway shape,
// keeping the upstream's status. The message, code and param come only
// from a JSON error body (OpenAI's and Anthropic's error.message, and the
// few variants other upstreams use); any other body, an HTML error page
// say, gives the status text. Every configured provider credential is
// stripped from what is relayed, and 401/403 messages are replaced. A 429
// without Retry-After gets one derived from its rate-limit reset headers
// (providers.RetryAfter), else 1.
func upstreamError(provider string, resp *http.Response, u *Upstreams) *apierr.Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxAttemptBody))
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
			if msg == "" { // the voice provider: {"detail":{"status","message"}}
				msg = gjson.GetBytes(body, "detail.message").String()
			}
		}
		// Some upstreams answer with a list of errors.
		if msg == "" && gjson.GetBytes(body, "0.error.message").Exists() {
			msg = gjson.GetBytes(body, "0.error.message").String()
		}
	}
	msg = strings.TrimSpace(u.redact(msg))
	if len(msg) > maxRelayedMessage {
		n := maxRelayedMessage
		for n > 0 && !utf8.RuneStart(msg[n]) {
			n--
		}
		msg = msg[:n]
	}
	if msg == "" {
		msg = statusText(resp.StatusCode)
	}
	upstreamAuth := resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden
	if upstreamAuth {
		// Upstream auth messages may quote part of the provider's key, and
		// their codes would read as if the client's key were wrong.
		msg = "the upstream refused the gateway's credentials (status " + strconv.Itoa(resp.StatusCode) + ")"
		code = "upstream_auth_failed"
	}
	ge := apierr.New(resp.StatusCode, apierr.TypeForStatus(resp.StatusCode), "provider "+provider+": "+msg).WithProvider(provider)
	if code = u.redact(code); code != "" {
		ge.WithCode(code)
	}
	if param = u.redact(param); param != "" {
		ge.WithParam(param)
	}
	retryAfter := resp.Header.Get("Retry-After")
	if resp.StatusCode == http.StatusTooManyRequests {
		retryAfter = providers.RetryAfter(resp.Header, time.Now())
	}
	return ge.WithUpstreamRetryAfter(retryAfter)
}

// statusText is the standard text of an HTTP status, or "status N".
func statusText(status int) string {
	if t := http.StatusText(status); t != "" {
		return t
	}
	return "status " + strconv.Itoa(status)
}
