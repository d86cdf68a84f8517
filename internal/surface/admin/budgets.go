package admin

import (
	"errors"
	"net/http"
	"net/url"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// BudgetList is the answer of GET /admin/budgets and of the resets.
type BudgetList struct {
	// Budgets are the budgets in their current period, by user path then
	// period length.
	Budgets []budgets.Entry `json:"budgets"`
	// ServerTime is the gateway's clock, UTC.
	ServerTime time.Time `json:"server_time"`
}

// budgetWrite is the body of PUT /admin/budgets/{user_path}/{period}.
type budgetWrite struct {
	Amount   *float64 `json:"amount"`
	PerChild bool     `json:"per_child"`
}

// budgetKeyBody is the body of POST /admin/budgets/reset-one: user_path
// with period (a name or whole seconds) or period_seconds (a custom
// period).
type budgetKeyBody struct {
	UserPath      string  `json:"user_path"`
	Period        *string `json:"period"`
	PeriodSeconds int64   `json:"period_seconds"`
}

// budgetService returns the budgets service, or answers and returns nil
// when budget management is off: switched off (BUDGETS_ENABLED=false), or
// with usage tracking off, since budgets are enforced only on recorded
// spend (config.BudgetsEnforced). Then every budget route answers 404
// budgets_disabled, as a route that is not there, like the live log
// stream when it is off.
func (h *Handler) budgetService(w http.ResponseWriter) *budgets.Service {
	if h.opts.Budgets == nil || !h.opts.Config.BudgetsEnforced() {
		apierr.Write(w, apierr.NotFound("budget management is disabled: it needs BUDGETS_ENABLED and USAGE_ENABLED on").
			WithCode("budgets_disabled"))
		return nil
	}
	return h.opts.Budgets
}

// budgetList lists every budget.
func (h *Handler) budgetList(s *budgets.Service) BudgetList {
	l := s.List()
	if l == nil {
		l = []budgets.Entry{}
	}
	return BudgetList{Budgets: l, ServerTime: h.opts.Now().UTC()}
}

// pathKey reads the budget key of the {user_path} (URL-encoded) and
// {period} segments.
func pathKey(p params) (budgets.Key, *apierr.Error) {
	up, err := url.PathUnescape(p["user_path"])
	if err != nil {
		return budgets.Key{}, apierr.InvalidRequest("user_path: not a valid URL-encoded path").WithCode(apierr.CodeInvalidValue).WithParam("user_path")
	}
	period, err := budgets.ParsePeriod(p["period"])
	if err != nil {
		return budgets.Key{}, apierr.InvalidRequest(err.Error()).WithCode(apierr.CodeInvalidValue).WithParam("period")
	}
	return budgets.Key{UserPath: up, Period: period}, nil
}

// key checks the reset-one body: exactly one of period and period_seconds.
func (b budgetKeyBody) key() (budgets.Key, *apierr.Error) {
	bad := func(field, msg string) *apierr.Error {
		return apierr.InvalidRequest(field + ": " + msg).WithCode(apierr.CodeInvalidValue).WithParam(field)
	}
	if b.UserPath == "" {
		return budgets.Key{}, bad("user_path", "missing")
	}
	var p budgets.Period
	var err error
	switch {
	case b.Period != nil && b.PeriodSeconds != 0:
		return budgets.Key{}, bad("period_seconds", "set either period or period_seconds")
	case b.Period != nil:
		p, err = budgets.ParsePeriod(*b.Period)
	case b.PeriodSeconds != 0:
		p, err = budgets.PeriodOfSeconds(b.PeriodSeconds)
	default:
		return budgets.Key{}, bad("period", "missing (or period_seconds for a custom period)")
	}
	if err != nil {
		field := "period"
		if b.Period == nil {
			field = "period_seconds"
		}
		return budgets.Key{}, bad(field, err.Error())
	}
	return budgets.Key{UserPath: b.UserPath, Period: p}, nil
}

func (h *Handler) listBudgets(w http.ResponseWriter, _ *http.Request, _ params) {
	if s := h.budgetService(w); s != nil {
		writeJSON(w, http.StatusOK, h.budgetList(s))
	}
}

func (h *Handler) putBudget(w http.ResponseWriter, r *http.Request, p params) {
	s := h.budgetService(w)
	if s == nil {
		return
	}
	k, ae := pathKey(p)
	if ae != nil {
		apierr.Write(w, ae)
		return
	}
	var req budgetWrite
	if ae := decodeBody(w, r, &req); ae != nil {
		apierr.Write(w, ae)
		return
	}
	if req.Amount == nil {
		apierr.Write(w, apierr.InvalidRequest("amount: missing").WithCode(apierr.CodeInvalidValue).WithParam("amount"))
		return
	}
	e, err := s.Put(k, *req.Amount, req.PerChild)
	if err != nil {
		h.budgetError(w, err, "amount")
		return
	}
	h.changed(ChangedBudgets)
	h.opts.Logger.Info("budget written", zap.String("user_path", e.UserPath), zap.String("period", k.Period.String()),
		zap.Float64("amount", float64(e.Amount)), zap.Bool("per_child", e.PerChild))
	writeJSON(w, http.StatusOK, e)
}

func (h *Handler) deleteBudget(w http.ResponseWriter, _ *http.Request, p params) {
	s := h.budgetService(w)
	if s == nil {
		return
	}
	k, ae := pathKey(p)
	if ae != nil {
		apierr.Write(w, ae)
		return
	}
	if err := s.Delete(k); err != nil {
		h.budgetError(w, err, "user_path")
		return
	}
	h.changed(ChangedBudgets)
	h.opts.Logger.Info("budget deleted", zap.Stringer("budget", k))
	w.WriteHeader(http.StatusNoContent)
}

func (h *Handler) resetOneBudget(w http.ResponseWriter, r *http.Request, _ params) {
	s := h.budgetService(w)
	if s == nil {
		return
	}
	var req budgetKeyBody
	if ae := decodeBody(w, r, &req); ae != nil {
		apierr.Write(w, ae)
		return
	}
	k, ae := req.key()
	if ae != nil {
		apierr.Write(w, ae)
		return
	}
	e, err := s.ResetOne(k)
	if err != nil {
		h.budgetError(w, err, "user_path")
		return
	}
	h.changed(ChangedBudgets)
	h.opts.Logger.Info("budget reset", zap.Stringer("budget", k))
	writeJSON(w, http.StatusOK, BudgetList{Budgets: []budgets.Entry{e}, ServerTime: h.opts.Now().UTC()})
}

func (h *Handler) resetBudgets(w http.ResponseWriter, r *http.Request, _ params) {
	s := h.budgetService(w)
	if s == nil {
		return
	}
	if !confirmed(w, r, "reset", "resetting every budget") {
		return
	}
	if err := s.ResetAll(); err != nil {
		h.budgetError(w, err, "")
		return
	}
	h.changed(ChangedBudgets)
	h.opts.Logger.Info("all budgets reset")
	writeJSON(w, http.StatusOK, h.budgetList(s))
}

func (h *Handler) getBudgetSettings(w http.ResponseWriter, _ *http.Request, _ params) {
	if s := h.budgetService(w); s != nil {
		writeJSON(w, http.StatusOK, s.Settings())
	}
}

func (h *Handler) putBudgetSettings(w http.ResponseWriter, r *http.Request, _ params) {
	s := h.budgetService(w)
	if s == nil {
		return
	}
	var req struct {
		DailyResetHour     *int `json:"daily_reset_hour"`
		WeeklyResetWeekday *int `json:"weekly_reset_weekday"`
		MonthlyResetDay    *int `json:"monthly_reset_day"`
	}
	if ae := decodeBody(w, r, &req); ae != nil {
		apierr.Write(w, ae)
		return
	}
	set := s.Settings()
	if req.DailyResetHour != nil {
		set.DailyResetHour = *req.DailyResetHour
	}
	if req.WeeklyResetWeekday != nil {
		set.WeeklyResetWeekday = *req.WeeklyResetWeekday
	}
	if req.MonthlyResetDay != nil {
		set.MonthlyResetDay = *req.MonthlyResetDay
	}
	if err := s.PutSettings(set); err != nil {
		h.budgetError(w, err, "")
		return
	}
	h.changed(ChangedBudgets)
	h.opts.Logger.Info("budget settings written", zap.Int("daily_reset_hour", set.DailyResetHour),
		zap.Int("weekly_reset_weekday", set.WeeklyResetWeekday), zap.Int("monthly_reset_day", set.MonthlyResetDay))
	writeJSON(w, http.StatusOK, set)
}

// budgetError answers a budgets error. Configuration budgets are
// read-only: writing or deleting one is a conflict with the configuration
// (409 budget_read_only), as for rate-limit rules. An invalid value names
// its field in param: the one the error names, else param.
func (h *Handler) budgetError(w http.ResponseWriter, err error, param string) {
	msg := err.Error()
	switch {
	case errors.Is(err, budgets.ErrTemplatesNotEntitled):
		apierr.Write(w, apierr.New(http.StatusForbidden, apierr.TypeInvalidRequest,
			"per_child budget templates require the quota_templates entitlement").
			WithCode("quota_templates_not_entitled").WithParam("per_child"))
	case errors.Is(err, budgets.ErrReadOnly):
		apierr.Write(w, apierr.New(http.StatusConflict, apierr.TypeInvalidRequest,
			msg+"; change it in the YAML file or the environment").WithCode("budget_read_only"))
	case errors.Is(err, budgets.ErrNotTemplate):
		apierr.Write(w, apierr.InvalidRequest(msg+"; only a per_child template has children").WithCode("not_per_child"))
	case errors.Is(err, budgets.ErrNotFound):
		apierr.Write(w, apierr.NotFound(msg).WithCode("budget_not_found"))
	case errors.Is(err, budgets.ErrInvalidBudget), errors.Is(err, budgets.ErrInvalidSettings):
		e := apierr.InvalidRequest(msg).WithCode(apierr.CodeInvalidValue)
		if p := apierr.ParamOf(err); p != "" {
			param = p
		}
		if param != "" {
			e = e.WithParam(param)
		}
		apierr.Write(w, e)
	default:
		if writeUnavailable(w, err) {
			return
		}
		h.opts.Logger.Error("budget operation failed", zap.Error(err))
		apierr.Write(w, apierr.New(http.StatusInternalServerError, apierr.TypeProvider,
			"the budget store failed; see the gateway log").WithCode("storage_error"))
	}
}
