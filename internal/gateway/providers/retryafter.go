package providers

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxDerivedRetryAfter caps a Retry-After derived from rate-limit reset
// headers: a reset further off than a day is more likely a misread
// header than a wait worth asking for.
const maxDerivedRetryAfter = 24 * time.Hour

// RetryAfter is the Retry-After value for an upstream's 429 answer with
// headers h, received at now: its own Retry-After, as sent; else its
// retry-after-ms (Azure OpenAI), in whole seconds rounded up; else a wait
// derived from its rate-limit reset headers; else "". The reset headers
// are those whose name holds "ratelimit" and "reset": OpenAI's and Groq's
// x-ratelimit-reset-requests and -tokens (a Go duration such as "1s",
// "6m0s" or "7.66s"), Anthropic's anthropic-ratelimit-*-reset (an RFC 3339
// time) and the RateLimit-Reset and X-RateLimit-Reset of other APIs
// (seconds to wait, a Unix time, or an HTTP date). When the matching
// remaining header (the name with "remaining" for "reset") says a limit
// is spent, the wait is until the last spent limit resets; otherwise
// until the first limit resets, after which the call may go through. A
// derived wait is whole seconds, at least 1 and at most a day.
func RetryAfter(h http.Header, now time.Time) string {
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		return v
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			ms = min(ms, float64(maxDerivedRetryAfter/time.Millisecond))
			return seconds(time.Duration(ms * float64(time.Millisecond)))
		}
	}
	var first, lastSpent time.Duration
	found, spent := false, false
	for name, vs := range h {
		lower := strings.ToLower(name)
		if len(vs) == 0 || !strings.Contains(lower, "ratelimit") || !strings.Contains(lower, "reset") {
			continue
		}
		wait, ok := resetWait(strings.TrimSpace(vs[0]), now)
		if !ok {
			continue
		}
		if !found || wait < first {
			first = wait
		}
		found = true
		if limitSpent(h, name) && (!spent || wait > lastSpent) {
			lastSpent, spent = wait, true
		}
	}
	switch {
	case spent:
		return seconds(lastSpent)
	case found:
		return seconds(first)
	}
	return ""
}

// limitSpent reports whether the remaining header matching the reset
// header resetName says its limit is spent (0 or less left).
func limitSpent(h http.Header, resetName string) bool {
	i := strings.Index(strings.ToLower(resetName), "reset")
	v := strings.TrimSpace(h.Get(resetName[:i] + "remaining" + resetName[i+len("reset"):]))
	n, err := strconv.ParseFloat(v, 64)
	return err == nil && n <= 0
}

// resetWait reads one rate-limit reset value as the wait from now until
// the limit resets: a Go duration ("6m0s"), an RFC 3339 time, a number of
// seconds (a Unix time, in seconds or milliseconds, when it is that
// large) or an HTTP date. A reset already past is no wait.
func resetWait(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if d, err := time.ParseDuration(v); err == nil {
		return max(d, 0), true
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return max(t.Sub(now), 0), true
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 {
		switch {
		case n >= 1e15: // no time the gateway will see
			return 0, false
		case n >= 1e12: // a Unix time in milliseconds (from 2001)
			return max(time.UnixMilli(int64(n)).Sub(now), 0), true
		case n >= 1e9: // a Unix time in seconds (from 2001)
			return max(time.Unix(int64(n), 0).Sub(now), 0), true
		}
		return time.Duration(n * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// seconds is d as a Retry-After value: whole seconds rounded up, at least
// 1, at most maxDerivedRetryAfter.
func seconds(d time.Duration) string {
	d = min(d, maxDerivedRetryAfter)
	s := int64((d + time.Second - 1) / time.Second)
	return strconv.FormatInt(max(s, 1), 10)
}
