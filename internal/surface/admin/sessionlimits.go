package admin

import (
	"errors"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/sessions"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// SessionLimitList is the answer of GET /admin/session-limits.
type SessionLimitList struct {
	// Limits are the session limits in force, by user path.
	Limits []sessions.Limit `json:"limits"`
	// ServerTime is the gateway's clock, UTC.
	ServerTime time.Time `json:"server_time"`
}

// UsageSessionRow is one row of GET /admin/usage/sessions: the session's
// totals and whether a session limit refused it.
type UsageSessionRow struct {
	audit.SessionTotals
	// Limited names the session limit that refused the session
	// ("max_repeats=3"), as this process's guard remembers it; empty
	// while none did. The refused requests' audit entries carry the
	// code session_limit_exceeded.
	Limited string `json:"limited,omitempty"`
}

// usageSessionPage is the answer of GET /admin/usage/sessions.
type usageSessionPage struct {
	Sessions   []UsageSessionRow `json:"sessions"`
	NextCursor *string           `json:"next_cursor"`
}

// withLimited adds to each session of page the limit that refused it.
func (h *Handler) withLimited(page audit.SessionPage) usageSessionPage {
	out := usageSessionPage{Sessions: make([]UsageSessionRow, len(page.Sessions)), NextCursor: page.NextCursor}
	for i, s := range page.Sessions {
		out.Sessions[i].SessionTotals = s
		if h.opts.Sessions != nil {
			out.Sessions[i].Limited = h.opts.Sessions.Limited(s.UserPath, s.SessionID)
		}
	}
	return out
}

// sessionLimitWrite is the body of PUT /admin/session-limits.
type sessionLimitWrite struct {
	UserPath    string  `json:"user_path"`
	MaxRequests int64   `json:"max_requests"`
	MaxCost     float64 `json:"max_cost"`
	MaxRepeats  int     `json:"max_repeats"`
	PerChild    bool    `json:"per_child"`
}

// sessionLimitKey is the body of DELETE /admin/session-limits.
type sessionLimitKey struct {
	UserPath string `json:"user_path"`
}

// sessionGuard returns the guard, or answers 503 and returns nil when the
// gateway has none (its storage did not open).
func (h *Handler) sessionGuard(w http.ResponseWriter) *sessions.Guard {
	if h.opts.Sessions == nil {
		apierr.Write(w, apierr.New(http.StatusServiceUnavailable, apierr.TypeProvider,
			"session limits are unavailable: their storage did not open; see the gateway log").WithCode("session_limits_unavailable"))
	}
	return h.opts.Sessions
}

func (h *Handler) listSessionLimits(w http.ResponseWriter, _ *http.Request, _ params) {
	if g := h.sessionGuard(w); g != nil {
		writeJSON(w, http.StatusOK, SessionLimitList{Limits: g.List(), ServerTime: h.opts.Now().UTC()})
	}
}

func (h *Handler) putSessionLimit(w http.ResponseWriter, r *http.Request, _ params) {
	g := h.sessionGuard(w)
	if g == nil {
		return
	}
	var req sessionLimitWrite
	if ae := decodeBody(w, r, &req); ae != nil {
		apierr.Write(w, ae)
		return
	}
	l, err := g.Put(sessions.Limit{UserPath: req.UserPath, MaxRequests: req.MaxRequests, MaxCost: req.MaxCost,
		MaxRepeats: req.MaxRepeats, PerChild: req.PerChild})
	if err != nil {
		h.sessionLimitError(w, err)
		return
	}
	h.changed(ChangedSessionLimits)
	h.opts.Logger.Info("session limit written", zap.String("user_path", l.UserPath), zap.Int64("max_requests", l.MaxRequests),
		zap.Float64("max_cost", l.MaxCost), zap.Int("max_repeats", l.MaxRepeats), zap.Bool("per_child", l.PerChild))
	writeJSON(w, http.StatusOK, l)
}

func (h *Handler) deleteSessionLimit(w http.ResponseWriter, r *http.Request, _ params) {
	g := h.sessionGuard(w)
	if g == nil {
		return
	}
	var req sessionLimitKey
	if ae := decodeBody(w, r, &req); ae != nil {
		apierr.Write(w, ae)
		return
	}
	if err := g.Delete(req.UserPath); err != nil {
		h.sessionLimitError(w, err)
		return
	}
	h.changed(ChangedSessionLimits)
	h.opts.Logger.Info("session limit deleted", zap.String("user_path", req.UserPath))
	w.WriteHeader(http.StatusNoContent)
}

// sessionLimitError answers a failed write: 400 for an invalid limit, 404
// for a missing one, 503 when the storage is down.
func (h *Handler) sessionLimitError(w http.ResponseWriter, err error) {
	var fe *sessions.FieldError
	switch {
	case errors.As(err, &fe):
		apierr.Write(w, apierr.InvalidRequest(fe.Error()).WithCode(apierr.CodeInvalidValue).WithParam(fe.Field))
	case errors.Is(err, sessions.ErrNotFound):
		apierr.Write(w, apierr.NotFound(err.Error()).WithCode("session_limit_not_found"))
	default:
		if writeUnavailable(w, err) {
			return
		}
		h.opts.Logger.Error("session limit operation failed", zap.Error(err))
		apierr.Write(w, apierr.New(http.StatusInternalServerError, apierr.TypeProvider, "the session limit could not be written; see the gateway log"))
	}
}
