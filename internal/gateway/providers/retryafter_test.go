package providers

import (
	"net/http"
	"testing"
	"time"
)

// TestRetryAfter: the Retry-After of an upstream 429 is its own; else its
// retry-after-ms; else the wait until its spent rate limit resets (the
// last, when several are spent), or until the first one resets when none
// says it is spent, in whole seconds rounded up, at least 1, at most a
// day; else nothing.
func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		header map[string]string
		want   string
	}{
		{"none", nil, ""},
		{"own", map[string]string{"Retry-After": "13", "X-Ratelimit-Reset-Requests": "6m0s"}, "13"},
		{"own date", map[string]string{"Retry-After": "Sat, 01 Mar 2025 12:00:30 GMT"}, "Sat, 01 Mar 2025 12:00:30 GMT"},
		{"ms", map[string]string{"Retry-After-Ms": "1500"}, "2"},
		{"ms huge", map[string]string{"Retry-After-Ms": "1e300"}, "86400"},
		{"openai requests", map[string]string{"X-Ratelimit-Reset-Requests": "1s"}, "1"},
		{"openai fraction", map[string]string{"X-Ratelimit-Reset-Tokens": "7.66s"}, "8"},
		{"openai sub-second", map[string]string{"X-Ratelimit-Reset-Requests": "20ms"}, "1"},
		{"openai first to reset", map[string]string{"X-Ratelimit-Reset-Requests": "1s", "X-Ratelimit-Reset-Tokens": "6m0s",
			"X-Ratelimit-Remaining-Requests": "5", "X-Ratelimit-Remaining-Tokens": "100"}, "1"},
		{"openai spent tokens", map[string]string{"X-Ratelimit-Reset-Requests": "1s", "X-Ratelimit-Reset-Tokens": "6m0s",
			"X-Ratelimit-Remaining-Requests": "5", "X-Ratelimit-Remaining-Tokens": "0"}, "360"},
		{"openai both spent", map[string]string{"X-Ratelimit-Reset-Requests": "1m30s", "X-Ratelimit-Reset-Tokens": "2s",
			"X-Ratelimit-Remaining-Requests": "0", "X-Ratelimit-Remaining-Tokens": "0"}, "90"},
		{"anthropic", map[string]string{"Anthropic-Ratelimit-Requests-Reset": "2025-03-01T12:00:42Z",
			"Anthropic-Ratelimit-Tokens-Reset": "2025-03-01T12:00:05Z"}, "5"},
		{"anthropic spent input tokens", map[string]string{"Anthropic-Ratelimit-Requests-Reset": "2025-03-01T12:00:05Z",
			"Anthropic-Ratelimit-Input-Tokens-Reset": "2025-03-01T12:00:42.5Z", "Anthropic-Ratelimit-Input-Tokens-Remaining": "0",
			"Anthropic-Ratelimit-Requests-Remaining": "40"}, "43"},
		{"anthropic past", map[string]string{"Anthropic-Ratelimit-Requests-Reset": "2025-03-01T11:59:00Z"}, "1"},
		{"seconds", map[string]string{"Ratelimit-Reset": "17"}, "17"},
		{"unix seconds", map[string]string{"X-Ratelimit-Reset": "1740830460"}, "60"},
		{"unix milliseconds", map[string]string{"X-Ratelimit-Reset": "1740830410000"}, "10"},
		{"http date", map[string]string{"X-Ratelimit-Reset": "Sat, 01 Mar 2025 12:01:00 GMT"}, "60"},
		{"far", map[string]string{"X-Ratelimit-Reset-Requests": "720h"}, "86400"},
		{"unreadable", map[string]string{"X-Ratelimit-Reset-Requests": "soon", "X-Ratelimit-Reset": "1e30"}, ""},
		{"not a reset", map[string]string{"X-Ratelimit-Remaining-Requests": "0", "X-Ratelimit-Limit-Requests": "60"}, ""},
	}
	for _, tc := range cases {
		h := http.Header{}
		for k, v := range tc.header {
			h.Set(k, v)
		}
		if got := RetryAfter(h, now); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
