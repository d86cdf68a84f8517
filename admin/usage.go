package admin

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/apierr"
	"github.com/modelgate/modelgate/userpath"
)

// Usage query limits and defaults: a window of DefaultUsageDays days
// unless the query says otherwise, at most MaxUsageDays days.
const (
	// DefaultUsageDays is the default window of the usage routes.
	DefaultUsageDays = 30
	// MaxUsageDays bounds the days parameter.
	MaxUsageDays = 3660
	// DefaultSessionsLimit is the default page size of /admin/usage/sessions.
	DefaultSessionsLimit = 50
	// MaxSessionsLimit is the largest page size of /admin/usage/sessions.
	MaxSessionsLimit = 200
)

// Window is a usage query's date range, whole UTC days, both ends included.
type Window struct {
	// Start is the first day.
	Start time.Time
	// End is the last day.
	End time.Time
}

// UsageSummary is the answer of GET /admin/usage/summary.
type UsageSummary struct {
	// TotalRequests counts requests in the window.
	TotalRequests int64 `json:"total_requests"`
	// TotalInputTokens sums input tokens.
	TotalInputTokens int64 `json:"total_input_tokens"`
	// TotalOutputTokens sums output tokens.
	TotalOutputTokens int64 `json:"total_output_tokens"`
	// TotalTokens sums all tokens.
	TotalTokens int64 `json:"total_tokens"`
	// CachedInputTokens sums input tokens served from a provider cache.
	CachedInputTokens int64 `json:"cached_input_tokens"`
	// CacheWriteInputTokens sums input tokens written to a provider cache.
	CacheWriteInputTokens int64 `json:"cache_write_input_tokens"`
	// TotalCost sums the cost of provider-bound requests.
	TotalCost float64 `json:"total_cost"`
	// StartDate is the window's first day, YYYY-MM-DD.
	StartDate string `json:"start_date"`
	// EndDate is the window's last day, YYYY-MM-DD.
	EndDate string `json:"end_date"`
}

// UsagePeriod is one element of GET /admin/usage/daily.
type UsagePeriod struct {
	// Date names the period: YYYY-MM-DD, YYYY-Www, YYYY-MM or YYYY.
	Date string `json:"date"`
	// Requests counts the period's requests.
	Requests int64 `json:"requests"`
	// InputTokens sums input tokens.
	InputTokens int64 `json:"input_tokens"`
	// OutputTokens sums output tokens.
	OutputTokens int64 `json:"output_tokens"`
	// TotalTokens sums all tokens.
	TotalTokens int64 `json:"total_tokens"`
	// Cost sums the cost.
	Cost float64 `json:"cost"`
}

// UsageSession is one row of GET /admin/usage/sessions.
type UsageSession struct {
	// SessionID is the detected session.
	SessionID string `json:"session_id"`
	// UserPath is the session's user path.
	UserPath string `json:"user_path"`
	// FirstSeen is the session's first request.
	FirstSeen time.Time `json:"first_seen"`
	// LastSeen is the session's latest request.
	LastSeen time.Time `json:"last_seen"`
	// Requests counts requests, local cache hits included.
	Requests int64 `json:"requests"`
	// InputTokens sums input tokens.
	InputTokens int64 `json:"input_tokens"`
	// OutputTokens sums output tokens.
	OutputTokens int64 `json:"output_tokens"`
	// TotalTokens sums all tokens.
	TotalTokens int64 `json:"total_tokens"`
	// Cost sums the cost of provider-bound requests only.
	Cost float64 `json:"cost"`
	// CacheHits counts local response-cache hits.
	CacheHits int64 `json:"cache_hits"`
	// Models lists the models used.
	Models []string `json:"models"`
}

// SessionPage is the answer of GET /admin/usage/sessions.
type SessionPage struct {
	// Sessions are ordered by latest activity, newest first.
	Sessions []UsageSession `json:"sessions"`
	// NextCursor fetches the next page; null on the last one.
	NextCursor *string `json:"next_cursor"`
}

// SessionQuery selects a page of sessions.
type SessionQuery struct {
	// Window is the date range.
	Window Window
	// Limit is the page size, 1 to MaxSessionsLimit.
	Limit int
	// Cursor continues a previous page ("" for the first).
	Cursor string
	// UserPath, when set, keeps only that user path's sessions.
	UserPath string
}

// UsageSource answers the usage routes from recorded usage. The usage
// tracker implements it; until then, and whenever usage tracking is off,
// the routes answer zeroed or empty results, never errors.
type UsageSource interface {
	// Summary totals the window; the handler fills in the dates.
	Summary(ctx context.Context, w Window) (UsageSummary, error)
	// Periods buckets the window by interval (daily, weekly, monthly or
	// yearly), newest first.
	Periods(ctx context.Context, w Window, interval string) ([]UsagePeriod, error)
	// Sessions returns one page of sessions.
	Sessions(ctx context.Context, q SessionQuery) (SessionPage, error)
}

// source returns the usage source, or nil when usage is not tracked.
func (h *Handler) source() UsageSource {
	if !h.opts.Config.Usage.On() {
		return nil
	}
	return h.opts.Usage
}

func (h *Handler) usageSummary(w http.ResponseWriter, r *http.Request, _ params) {
	win, e := parseWindow(r, h.opts.Now())
	if e != nil {
		apierr.Write(w, e)
		return
	}
	out := UsageSummary{}
	if src := h.source(); src != nil {
		var err error
		if out, err = src.Summary(r.Context(), win); err != nil {
			h.usageFailed(w, err)
			return
		}
	}
	out.StartDate, out.EndDate = win.Start.Format(time.DateOnly), win.End.Format(time.DateOnly)
	writeJSON(w, http.StatusOK, out)
}

func (h *Handler) usageDaily(w http.ResponseWriter, r *http.Request, _ params) {
	win, e := parseWindow(r, h.opts.Now())
	if e != nil {
		apierr.Write(w, e)
		return
	}
	interval := r.URL.Query().Get("interval")
	switch interval {
	case "":
		interval = "daily"
	case "daily", "weekly", "monthly", "yearly":
	default:
		apierr.Write(w, apierr.InvalidRequest("interval must be daily, weekly, monthly or yearly").
			WithCode("invalid_value").WithParam("interval"))
		return
	}
	out := []UsagePeriod{}
	if src := h.source(); src != nil {
		ps, err := src.Periods(r.Context(), win, interval)
		if err != nil {
			h.usageFailed(w, err)
			return
		}
		if ps != nil {
			out = ps
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (h *Handler) usageSessions(w http.ResponseWriter, r *http.Request, _ params) {
	win, e := parseWindow(r, h.opts.Now())
	if e != nil {
		apierr.Write(w, e)
		return
	}
	q := r.URL.Query()
	sq := SessionQuery{Window: win, Limit: DefaultSessionsLimit, Cursor: q.Get("cursor")}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			apierr.Write(w, apierr.InvalidRequest("limit must be a positive integer").WithCode("invalid_value").WithParam("limit"))
			return
		}
		sq.Limit = min(n, MaxSessionsLimit)
	}
	if v := q.Get("user_path"); v != "" {
		p, err := userpath.Normalize(v)
		if err != nil {
			apierr.Write(w, apierr.InvalidRequest(err.Error()).WithCode("invalid_user_path").WithParam("user_path"))
			return
		}
		sq.UserPath = p
	}
	out := SessionPage{Sessions: []UsageSession{}}
	if src := h.source(); src != nil {
		page, err := src.Sessions(r.Context(), sq)
		if err != nil {
			h.usageFailed(w, err)
			return
		}
		if page.Sessions == nil {
			page.Sessions = []UsageSession{}
		}
		out = page
	}
	writeJSON(w, http.StatusOK, out)
}

func (h *Handler) usageFailed(w http.ResponseWriter, err error) {
	h.opts.Logger.Error("reading usage failed", zap.Error(err))
	apierr.Write(w, apierr.New(http.StatusInternalServerError, apierr.TypeProvider,
		"reading usage failed; see the gateway log").WithCode("storage_error"))
}

// parseWindow reads start_date, end_date and days. An explicit range wins
// over days; a missing end is today, a missing start is days (default 30)
// before the end, counting the end day.
func parseWindow(r *http.Request, now time.Time) (Window, *apierr.Error) {
	q := r.URL.Query()
	today := now.UTC().Truncate(24 * time.Hour)
	days := DefaultUsageDays
	if v := q.Get("days"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxUsageDays {
			return Window{}, apierr.InvalidRequest("days must be an integer from 1 to 3660").WithCode("invalid_value").WithParam("days")
		}
		days = n
	}
	win := Window{End: today}
	if v := q.Get("end_date"); v != "" {
		t, err := time.Parse(time.DateOnly, v)
		if err != nil {
			return Window{}, apierr.InvalidRequest("end_date must be a date such as 2026-01-31").WithCode("invalid_value").WithParam("end_date")
		}
		win.End = t
	}
	win.Start = win.End.AddDate(0, 0, 1-days)
	if v := q.Get("start_date"); v != "" {
		t, err := time.Parse(time.DateOnly, v)
		if err != nil {
			return Window{}, apierr.InvalidRequest("start_date must be a date such as 2026-01-01").WithCode("invalid_value").WithParam("start_date")
		}
		win.Start = t
	}
	if win.Start.After(win.End) {
		return Window{}, apierr.InvalidRequest("start_date is after end_date").WithCode("invalid_value").WithParam("start_date")
	}
	return win, nil
}
