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
	// HeaderLimitConcurrency is x-ratelimit-limit-concurrency: the cap of
	// requests in flight at once.
	HeaderLimitConcurrency = "X-Ratelimit-Limit-Concurrency"
	// HeaderRemainingConcurrency is x-ratelimit-remaining-concurrency: how
	// many more requests it admits at once now.
	HeaderRemainingConcurrency = "X-Ratelimit-Remaining-Concurrency"
)

// Headers are the x-ratelimit-* values of the most constrained matching
// rule: for requests, the window rule with a request cap and the fewest
// remaining requests; for tokens, likewise among enforced token caps; for
// requests in flight, the concurrency rule with the fewest free slots.
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
	// LimitConcurrency is the cap of the most constrained concurrency rule.
	LimitConcurrency int64
	// RemainingConcurrency is how many more requests it admits at once.
	RemainingConcurrency int64
	// HasConcurrency says the concurrency fields are set.
	HasConcurrency bool
}

// Apply sets the x-ratelimit-* headers present in h on hdr; reset values
// are whole seconds.
func (h Headers) Apply(hdr http.Header) {
	// All values are formatted into one buffer and share one string and
	// one slice backing array: two allocations for up to eight headers.
	var keys [8]string
	var nums [8]int64
	n := 0
	if h.HasRequests {
		keys[0], keys[1], keys[2] = HeaderLimitRequests, HeaderRemainingRequests, HeaderResetRequests
		nums[0], nums[1], nums[2] = h.LimitRequests, h.RemainingRequests, int64(h.ResetRequests/time.Second)
		n = 3
	}
	if h.HasTokens {
		keys[n], keys[n+1], keys[n+2] = HeaderLimitTokens, HeaderRemainingTokens, HeaderResetTokens
		nums[n], nums[n+1], nums[n+2] = h.LimitTokens, h.RemainingTokens, int64(h.ResetTokens/time.Second)
		n += 3
	}
	if h.HasConcurrency {
		keys[n], keys[n+1] = HeaderLimitConcurrency, HeaderRemainingConcurrency
		nums[n], nums[n+1] = h.LimitConcurrency, h.RemainingConcurrency
		n += 2
	}
	if n == 0 {
		return
	}
	var buf [8 * 20]byte
	var ends [8]int
	b := buf[:0]
	for i := 0; i < n; i++ {
		b = strconv.AppendInt(b, nums[i], 10)
		ends[i] = len(b)
	}
	all := string(b)
	vals := make([]string, n)
	start := 0
	for i := 0; i < n; i++ {
		vals[i] = all[start:ends[i]]
		hdr[keys[i]] = vals[i : i+1 : i+1]
		start = ends[i]
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
	if h.HasRequests && !tighter(limit, rem, h.LimitRequests, h.RemainingRequests) {
		return false
	}
	h.HasRequests, h.LimitRequests, h.RemainingRequests = true, limit, rem
	return true
}

// addConcurrency offers a concurrency rule with limit slots of which
// inFlight are taken; the one with the fewest free slots (then the smaller
// cap) wins.
func (h *Headers) addConcurrency(limit, inFlight int64) {
	if limit <= 0 {
		return
	}
	rem := max(0, limit-inFlight)
	if h.HasConcurrency && !tighter(limit, rem, h.LimitConcurrency, h.RemainingConcurrency) {
		return
	}
	h.HasConcurrency, h.LimitConcurrency, h.RemainingConcurrency = true, limit, rem
}

// betterTokens is betterRequests for tokens.
func (h *Headers) betterTokens(limit, rem int64) bool {
	if h.HasTokens && !tighter(limit, rem, h.LimitTokens, h.RemainingTokens) {
		return false
	}
	h.HasTokens, h.LimitTokens, h.RemainingTokens = true, limit, rem
	return true
}

// tighter reports whether a rule with limit and rem remaining is more
// constrained than one with haveLimit and haveRem: fewer remaining, then
// the smaller cap.
func tighter(limit, rem, haveLimit, haveRem int64) bool {
	return rem < haveRem || rem == haveRem && limit < haveLimit
}
