// Package selfusage serves GET /v1/usage: a caller's own live view of its
// user path, budgets and rate-limit counters. The caller's user path is the
// one the authentication stage settled on (reqinfo.Info.UserPath): the path
// bound to a managed key, or else the user-path header, or "/".
//
// Usage, budgets and rate limits are filled in by their own engines as
// they land: each plugs in through an interface field of Handler, and an
// unset field answers null or an empty list.
package selfusage

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/userpath"
)

// RateLimitStatus is one rate-limit rule that applies to the caller, with
// its live counters, in the shape of a row of the admin rate-limit list.
type RateLimitStatus struct {
	// Scope is user_path, provider or model.
	Scope string `json:"scope"`
	// Subject is the protected user path, provider or model.
	Subject string `json:"subject"`
	// Period is minute, hour, day or concurrent; empty for a custom
	// window.
	Period string `json:"period,omitempty"`
	// PeriodSeconds is the window length in seconds (absent for
	// concurrent rules).
	PeriodSeconds int64 `json:"period_seconds,omitempty"`
	// PerChild marks a template rule; the counters are the caller's child.
	PerChild bool `json:"per_child,omitempty"`
	// EffectiveSubject is the path the counters belong to: the caller's
	// child of a per_child template ("/customers/alice"), else Subject.
	EffectiveSubject string `json:"effective_subject,omitempty"`
	// MaxRequests is the request cap (the in-flight cap for concurrent).
	MaxRequests int64 `json:"max_requests,omitempty"`
	// MaxTokens is the token cap.
	MaxTokens int64 `json:"max_tokens,omitempty"`
	// RequestsUsed is the current window's request count.
	RequestsUsed int64 `json:"requests_used"`
	// TokensUsed is the current window's token count.
	TokensUsed int64 `json:"tokens_used"`
	// InFlight is the number of requests running now.
	InFlight int64 `json:"in_flight"`
	// WindowStart is when the current window started.
	WindowStart *time.Time `json:"window_start,omitempty"`
	// WindowEnd is when the current window ends.
	WindowEnd *time.Time `json:"window_end,omitempty"`
}

// RateLimitProvider reports the rate-limit statuses that apply to a user
// path. The rate-limit engine implements it.
type RateLimitProvider interface {
	// RateLimitStatuses returns the rules matching userPath (user-path
	// rules, with a per_child template's counters for the caller's child).
	RateLimitStatuses(ctx context.Context, userPath string) []RateLimitStatus
}

// BudgetProvider reports the budgets that apply to a user path. Each
// element is a budget entry, encoded by the budget engine.
type BudgetProvider interface {
	// Budgets returns the budgets that apply to userPath.
	Budgets(ctx context.Context, userPath string) []any
}

// UsageProvider reports the usage totals of a user path, or nil when none
// are tracked.
type UsageProvider interface {
	// Usage returns userPath's usage totals, or nil.
	Usage(ctx context.Context, userPath string) any
}

// Response is the body of GET /v1/usage.
type Response struct {
	// UserPath is the caller's user path.
	UserPath string `json:"user_path"`
	// ServerTime is the gateway's clock, UTC.
	ServerTime time.Time `json:"server_time"`
	// Usage is the caller's usage totals (zeroed when not tracked), null
	// when they could not be read.
	Usage any `json:"usage"`
	// Budgets are the budgets that apply to the caller.
	Budgets []any `json:"budgets"`
	// RateLimits are the rate-limit rules that apply to the caller.
	RateLimits []RateLimitStatus `json:"rate_limits"`
}

// Handler answers GET /v1/usage. Polling it consumes no rate-limit quota:
// its route counts nothing in the route table (package routes).
type Handler struct {
	// RateLimits supplies rate-limit statuses; nil answers [].
	RateLimits RateLimitProvider
	// Budgets supplies budgets; nil answers [].
	Budgets BudgetProvider
	// Usage supplies usage totals; nil answers null.
	Usage UsageProvider
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// ServeHTTP answers one request for Path.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		apierr.WriteMethodNotAllowed(w, r, "GET, HEAD")
		return
	}
	path := userpath.Root
	if info := reqinfo.From(r.Context()); info != nil && info.UserPath != "" {
		path = info.UserPath
	}
	now := time.Now
	if h.Now != nil {
		now = h.Now
	}
	resp := Response{UserPath: path, ServerTime: now().UTC(), Budgets: []any{}, RateLimits: []RateLimitStatus{}}
	ctx := r.Context()
	if h.Usage != nil {
		resp.Usage = h.Usage.Usage(ctx, path)
	}
	if h.Budgets != nil {
		if b := h.Budgets.Budgets(ctx, path); b != nil {
			resp.Budgets = b
		}
	}
	if h.RateLimits != nil {
		if rl := h.RateLimits.RateLimitStatuses(ctx, path); rl != nil {
			resp.RateLimits = rl
		}
	}
	body, err := json.Marshal(resp)
	if err != nil {
		apierr.Write(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Header().Set("Cache-Control", "no-store")
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}
