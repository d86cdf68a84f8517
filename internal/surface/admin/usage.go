package admin

import (
	"errors"
	"net/http"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// MaxUsageDays is the largest days parameter the usage and audit-stats
// routes accept; longer windows are given with start_date and end_date.
const MaxUsageDays = audit.MaxDays

// usageReads returns the usage reads: over no storage (zeroed and empty
// answers) when usage tracking is off or nothing records usage.
func (h *Handler) usageReads() *audit.UsageQueries {
	if h.opts.Usage == nil || !h.opts.Config.Usage.On() {
		return audit.NewUsageQueries(nil, h.opts.Now)
	}
	return h.opts.Usage
}

// usageSummary answers GET /admin/usage/summary: the totals of the window
// (start_date/end_date win over days; default the last 30 days), narrowed
// by the usage filters (user_path, key_id, model, provider).
func (h *Handler) usageSummary(w http.ResponseWriter, r *http.Request, _ params) {
	win, err := audit.ParseWindow(r.URL.Query(), h.opts.Now())
	if err != nil {
		h.readFailed(w, err)
		return
	}
	f, err := audit.ParseUsageFilter(r.URL.Query())
	if err != nil {
		h.readFailed(w, err)
		return
	}
	out, err := h.usageReads().Summary(win, f)
	if err != nil {
		h.readFailed(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// usageDaily answers GET /admin/usage/daily: the window's usage per
// period of interval, newest first, narrowed by the usage filters.
func (h *Handler) usageDaily(w http.ResponseWriter, r *http.Request, _ params) {
	q := r.URL.Query()
	win, err := audit.ParseWindow(q, h.opts.Now())
	if err != nil {
		h.readFailed(w, err)
		return
	}
	interval, err := audit.ParseInterval(q)
	if err != nil {
		h.readFailed(w, err)
		return
	}
	f, err := audit.ParseUsageFilter(q)
	if err != nil {
		h.readFailed(w, err)
		return
	}
	out, err := h.usageReads().Periods(win, interval, f)
	if err != nil {
		h.readFailed(w, err)
		return
	}
	if out == nil {
		out = []audit.UsagePeriod{}
	}
	writeJSON(w, http.StatusOK, out)
}

// usageSessions answers GET /admin/usage/sessions: one page of sessions,
// latest activity first.
func (h *Handler) usageSessions(w http.ResponseWriter, r *http.Request, _ params) {
	sq, err := audit.ParseSessionQuery(r.URL.Query(), h.opts.Now())
	if err != nil {
		h.readFailed(w, err)
		return
	}
	page, err := h.usageReads().Sessions(sq)
	if err != nil {
		h.readFailed(w, err)
		return
	}
	writeJSON(w, http.StatusOK, h.withLimited(page))
}

// readFailed answers a failed read of the record: the error itself when it
// is a gateway error (a bad parameter, an unknown id), 503
// storage_unavailable while the storage backend cannot be reached, else a
// 500 that points to the log, where the cause is written.
func (h *Handler) readFailed(w http.ResponseWriter, err error) {
	var ae *apierr.Error
	if errors.As(err, &ae) {
		apierr.Write(w, ae)
		return
	}
	if writeReadUnavailable(w, err) {
		h.opts.Logger.Warn("reading the audit or usage record failed: the storage backend is unreachable", zap.Error(err))
		return
	}
	h.opts.Logger.Error("reading the audit or usage record failed", zap.Error(err))
	apierr.Write(w, apierr.New(http.StatusInternalServerError, apierr.TypeProvider,
		"reading the audit or usage record failed; see the gateway log").WithCode("storage_error"))
}

// usageBreakdown answers GET /admin/usage/breakdown: the window's usage
// grouped by user path, key, model, provider or endpoint, largest cost
// first, paged. Key groups carry the key's name when the key is known.
func (h *Handler) usageBreakdown(w http.ResponseWriter, r *http.Request, _ params) {
	q, err := audit.ParseBreakdownQuery(r.URL.Query(), h.opts.Now())
	if err != nil {
		h.readFailed(w, err)
		return
	}
	page, err := h.usageReads().Breakdown(q)
	if err != nil {
		h.readFailed(w, err)
		return
	}
	if q.By == audit.ByKey && h.opts.Keys != nil {
		for i := range page.Rows {
			row := &page.Rows[i]
			if row.Group == "" {
				continue
			}
			if k, err := h.opts.Keys.Get(row.Group); err == nil {
				name := k.Name
				row.Name = &name
			}
		}
	}
	writeJSON(w, http.StatusOK, page)
}
