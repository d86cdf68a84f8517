package limits

import (
	"net/http"
	"strconv"
	"time"
)

// Header names set by Headers.Apply, in canonical form.
const (
	// HeaderLimitRequests is x-ratelimit-limit-requests.
	HeaderLimitRequests = "X-Ratelimit-Limit-Requests"
	// HeaderRemainingRequests is x-ratelimit-remaining-requests.
	HeaderRemainingRequests = "X-Ratelimit-Remaining-Requests"
	// HeaderResetRequests is x-ratelimit-reset-requests (seconds).
	HeaderResetRequests = "X-Ratelimit-Reset-Requests"
	// HeaderLimitTokens is x-ratelimit-limit-tokens.
	HeaderLimitTokens = "X-Ratelimit-Limit-Tokens"
	// HeaderRemainingTokens is x-ratelimit-remaining-tokens.
	HeaderRemainingTokens = "X-Ratelimit-Remaining-Tokens"
	// HeaderResetTokens is x-ratelimit-reset-tokens (seconds).
	HeaderResetTokens = "X-Ratelimit-Reset-Tokens"
)

// Headers are the x-ratelimit-* values of the most constrained matching
// rule: for requests, the window rule with a request cap and the fewest
// remaining requests; for tokens, likewise among enforced token caps.
// Concurrency rules do not contribute.
type Headers struct {
	// LimitRequests is that rule's request cap.
	LimitRequests int64
	// RemainingRequests is how many more requests it admits now.
	RemainingRequests int64
	// ResetRequests is the time until its window is fully replenished
	// (whole seconds, rounded up).
	ResetRequests time.Duration
	// LimitTokens is the token cap of the most constrained token rule.
	LimitTokens int64
	// RemainingTokens is how many tokens it has left.
	RemainingTokens int64
	// ResetTokens is the time until its token window is fully replenished.
	ResetTokens time.Duration
	// HasRequests says the request fields are set.
	HasRequests bool
	// HasTokens says the token fields are set.
	HasTokens bool
}

// Apply sets the x-ratelimit-* headers present in h on hdr; reset values
// are whole seconds.
func (h Headers) Apply(hdr http.Header) {
	if h.HasRequests {
		hdr[HeaderLimitRequests] = []string{strconv.FormatInt(h.LimitRequests, 10)}
		hdr[HeaderRemainingRequests] = []string{strconv.FormatInt(h.RemainingRequests, 10)}
		hdr[HeaderResetRequests] = []string{strconv.FormatInt(int64(h.ResetRequests/time.Second), 10)}
	}
	if h.HasTokens {
		hdr[HeaderLimitTokens] = []string{strconv.FormatInt(h.LimitTokens, 10)}
		hdr[HeaderRemainingTokens] = []string{strconv.FormatInt(h.RemainingTokens, 10)}
		hdr[HeaderResetTokens] = []string{strconv.FormatInt(int64(h.ResetTokens/time.Second), 10)}
	}
}

// addRequests offers a request window to h; the one with the fewest
// remaining requests (then the smaller cap) wins.
func (h *Headers) addRequests(limit int64, w window) {
	if limit > 0 && h.betterRequests(limit, max(0, limit-w.used())) {
		h.ResetRequests = ceilSeconds(w.reset())
	}
}

// addTokens offers a token window to h, like addRequests.
func (h *Headers) addTokens(limit int64, w window) {
	if limit > 0 && h.betterTokens(limit, max(0, limit-w.used())) {
		h.ResetTokens = ceilSeconds(w.reset())
	}
}

// offerRequests is addRequests with the estimate already known, reading
// c's window (locked, rotated) only when it wins.
func (h *Headers) offerRequests(limit, used int64, c *counter, now int64) {
	if h.betterRequests(limit, max(0, limit-used)) {
		h.ResetRequests = ceilSeconds(c.reqWindow(now).reset())
	}
}

// offerTokens is addTokens with the estimate already known.
func (h *Headers) offerTokens(limit, used int64, c *counter, now int64) {
	if h.betterTokens(limit, max(0, limit-used)) {
		h.ResetTokens = ceilSeconds(c.tokWindow(now).reset())
	}
}

// betterRequests takes limit and rem if they are more constrained than
// what h holds.
func (h *Headers) betterRequests(limit, rem int64) bool {
	if h.HasRequests && (rem > h.RemainingRequests || rem == h.RemainingRequests && limit >= h.LimitRequests) {
		return false
	}
	h.HasRequests, h.LimitRequests, h.RemainingRequests = true, limit, rem
	return true
}

// betterTokens is betterRequests for tokens.
func (h *Headers) betterTokens(limit, rem int64) bool {
	if h.HasTokens && (rem > h.RemainingTokens || rem == h.RemainingTokens && limit >= h.LimitTokens) {
		return false
	}
	h.HasTokens, h.LimitTokens, h.RemainingTokens = true, limit, rem
	return true
}
