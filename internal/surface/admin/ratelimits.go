package admin

import (
	"errors"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// RateLimitRule is one rule in the answers of /admin/rate-limits: the rule
// as configured plus its live usage. A per_child template has no aggregate
// counter, so its usage fields are null.
type RateLimitRule struct {
	// Scope is user_path, provider or model.
	Scope string `json:"scope"`
	// Subject is the normalized user path, provider or model.
	Subject string `json:"subject"`
	// UserPath repeats Subject for user_path rules.
	UserPath string `json:"user_path,omitempty"`
	// Period is minute, hour, day or concurrent; null for a custom window.
	Period *string `json:"period"`
	// PeriodSeconds is the window length (0 for concurrent rules).
	PeriodSeconds int `json:"period_seconds"`
	// MaxRequests is the request cap per window, or the in-flight cap of
	// a concurrent rule; 0 means none.
	MaxRequests int64 `json:"max_requests"`
	// MaxTokens is the token cap per window; 0 means none.
	MaxTokens int64 `json:"max_tokens"`
	// PerChild marks a template: every direct child path has its own
	// counters.
	PerChild bool `json:"per_child"`
	// Source is manual (admin API) or config (YAML, environment).
	Source string `json:"source"`
	// ReadOnly is true for config rules: PUT and DELETE refuse them.
	ReadOnly bool `json:"read_only"`
	// RequestsUsed is the sliding-window request estimate.
	RequestsUsed *int64 `json:"requests_used"`
	// TokensUsed is the sliding-window token estimate.
	TokensUsed *int64 `json:"tokens_used"`
	// InFlight is the number of admitted requests still running (counted
	// for concurrent rules).
	InFlight *int64 `json:"in_flight"`
	// WindowStart is when the current fixed window began; null for
	// concurrent rules and templates.
	WindowStart *time.Time `json:"window_start"`
	// WindowEnd is when it ends.
	WindowEnd *time.Time `json:"window_end"`
	// Children is, on a per_child template's row, how many children have
	// usage (see GET /admin/rate-limits/children); absent on other rows.
	Children *int `json:"children,omitempty"`
	// ChildrenExhausted is, on a template's row, how many of those
	// children are exhausted; absent on other rows.
	ChildrenExhausted *int `json:"children_exhausted,omitempty"`
}

// RateLimitList is the answer of GET /admin/rate-limits and of the resets.
type RateLimitList struct {
	// Rules are the live rules: user-path rules first, then provider and
	// model rules.
	Rules []RateLimitRule `json:"rules"`
	// ServerTime is the gateway's clock, UTC.
	ServerTime time.Time `json:"server_time"`
}

// rateLimitView converts an engine status to its admin form.
func rateLimitView(st limits.RuleStatus) RateLimitRule {
	k := st.Key
	v := RateLimitRule{
		Scope: string(k.Scope), Subject: k.Subject, PeriodSeconds: int(k.Duration() / time.Second),
		MaxRequests: st.Rule.MaxRequests, MaxTokens: st.Rule.MaxTokens, PerChild: st.Rule.PerChild,
		Source: st.Rule.Source, ReadOnly: st.Rule.Source == limits.SourceConfig,
	}
	if k.Scope == limits.ScopeUserPath {
		v.UserPath = k.Subject
	}
	if k.Period != limits.PeriodCustom {
		p := string(k.Period)
		v.Period = &p
	}
	if st.Template {
		n, x := st.Children, st.ChildrenExhausted
		v.Children, v.ChildrenExhausted = &n, &x
		return v
	}
	u := st.Usage
	v.RequestsUsed, v.TokensUsed, v.InFlight = &u.RequestsUsed, &u.TokensUsed, &u.InFlight
	if !u.WindowStart.IsZero() {
		v.WindowStart, v.WindowEnd = &u.WindowStart, &u.WindowEnd
	}
	return v
}

// rateLimiter returns the engine, or answers 503 when there is none.
func (h *Handler) rateLimiter(w http.ResponseWriter) *limits.Engine {
	if h.opts.RateLimits == nil {
		apierr.Write(w, apierr.New(http.StatusServiceUnavailable, apierr.TypeProvider,
			"rate-limit management is not available yet").WithCode("rate_limits_unavailable"))
	}
	return h.opts.RateLimits
}

// ruleList lists the rules matching keep (all when keep is nil).
func (h *Handler) ruleList(e *limits.Engine, keep func(limits.Key) bool) RateLimitList {
	out := RateLimitList{Rules: []RateLimitRule{}, ServerTime: h.opts.Now().UTC()}
	for _, st := range e.Rules() {
		if keep == nil || keep(st.Key) {
			out.Rules = append(out.Rules, rateLimitView(st))
		}
	}
	return out
}

func (h *Handler) listRateLimits(w http.ResponseWriter, _ *http.Request, _ params) {
	if e := h.rateLimiter(w); e != nil {
		writeJSON(w, http.StatusOK, h.ruleList(e, nil))
	}
}

func (h *Handler) putRateLimit(w http.ResponseWriter, r *http.Request, _ params) {
	e := h.rateLimiter(w)
	if e == nil {
		return
	}
	var req rateLimitWrite
	if ae := decodeBody(w, r, &req); ae != nil {
		apierr.Write(w, ae)
		return
	}
	rule, prev, ae := req.rule()
	if ae != nil {
		apierr.Write(w, ae)
		return
	}
	if err := h.opts.Config.Providers.CheckRule(rule); err != nil {
		apierr.Write(w, apierr.InvalidRequest(err.Error()).WithCode(apierr.CodeInvalidValue).WithParam(apierr.ParamOf(err)))
		return
	}
	if err := e.Upsert(rule, prev); err != nil {
		h.rateLimitError(w, err)
		return
	}
	k := rule.Key()
	h.opts.Logger.Info("rate-limit rule written", zap.Stringer("rule", k),
		zap.Int64("max_requests", rule.MaxRequests), zap.Int64("max_tokens", rule.MaxTokens), zap.Bool("per_child", rule.PerChild))
	list := h.ruleList(e, func(o limits.Key) bool { return o == k })
	if len(list.Rules) != 1 {
		writeJSON(w, http.StatusOK, list) // removed meanwhile by a concurrent call
		return
	}
	writeJSON(w, http.StatusOK, list.Rules[0])
}

func (h *Handler) deleteRateLimit(w http.ResponseWriter, r *http.Request, _ params) {
	e := h.rateLimiter(w)
	if e == nil {
		return
	}
	k, ok := h.decodeKey(w, r)
	if !ok {
		return
	}
	if err := e.Delete(k); err != nil {
		h.rateLimitError(w, err)
		return
	}
	h.opts.Logger.Info("rate-limit rule deleted", zap.Stringer("rule", k))
	w.WriteHeader(http.StatusNoContent)
}

func (h *Handler) resetOneRateLimit(w http.ResponseWriter, r *http.Request, _ params) {
	e := h.rateLimiter(w)
	if e == nil {
		return
	}
	k, ok := h.decodeKey(w, r)
	if !ok {
		return
	}
	if err := e.ResetOne(k); err != nil {
		h.rateLimitError(w, err)
		return
	}
	h.opts.Logger.Info("rate-limit counters reset", zap.Stringer("rule", k))
	k = k.Normalize()
	list := h.ruleList(e, func(o limits.Key) bool { return o == k })
	if len(list.Rules) == 0 && k.Scope == limits.ScopeUserPath {
		// A child of a template was reset: answer with the template.
		pk := k
		pk.Subject = parentPath(k.Subject)
		list = h.ruleList(e, func(o limits.Key) bool { return o == pk })
	}
	writeJSON(w, http.StatusOK, list)
}

func (h *Handler) resetRateLimits(w http.ResponseWriter, r *http.Request, _ params) {
	e := h.rateLimiter(w)
	if e == nil {
		return
	}
	if !confirmed(w, r, "reset", "resetting every rate-limit counter") {
		return
	}
	e.ResetAll()
	h.opts.Logger.Info("all rate-limit counters reset")
	writeJSON(w, http.StatusOK, h.ruleList(e, nil))
}

// decodeKey reads a rule key body (DELETE, reset-one).
func (h *Handler) decodeKey(w http.ResponseWriter, r *http.Request) (limits.Key, bool) {
	var req rateLimitKey
	if ae := decodeBody(w, r, &req); ae != nil {
		apierr.Write(w, ae)
		return limits.Key{}, false
	}
	k, ae := req.key("")
	if ae != nil {
		apierr.Write(w, ae)
		return limits.Key{}, false
	}
	return k, true
}

// rateLimitError answers an engine error. Config rules are read-only:
// writing or deleting one is a conflict with the configuration (409
// rate_limit_rule_read_only), not a permission problem.
func (h *Handler) rateLimitError(w http.ResponseWriter, err error) {
	msg := err.Error()
	switch {
	case errors.Is(err, limits.ErrQuotaTemplatesNotEntitled):
		apierr.Write(w, apierr.New(http.StatusForbidden, apierr.TypeInvalidRequest,
			"per_child rate-limit templates require the quota_templates entitlement").
			WithCode("quota_templates_not_entitled").WithParam("per_child"))
	case errors.Is(err, limits.ErrRuleReadOnly):
		apierr.Write(w, apierr.New(http.StatusConflict, apierr.TypeInvalidRequest,
			msg+"; change it in the YAML file or the environment").WithCode("rate_limit_rule_read_only"))
	case errors.Is(err, limits.ErrRuleExists):
		apierr.Write(w, apierr.New(http.StatusConflict, apierr.TypeInvalidRequest, msg).WithCode("rate_limit_rule_exists"))
	case errors.Is(err, limits.ErrNotTemplate):
		apierr.Write(w, apierr.InvalidRequest(msg+"; only a per_child template has children").WithCode("not_per_child"))
	case errors.Is(err, limits.ErrRuleNotFound):
		apierr.Write(w, apierr.NotFound(msg).WithCode("rate_limit_rule_not_found"))
	case errors.Is(err, limits.ErrInvalidRule):
		apierr.Write(w, ruleFieldError("", err))
	default:
		if writeUnavailable(w, err) {
			return
		}
		h.opts.Logger.Error("rate-limit operation failed", zap.Error(err))
		apierr.Write(w, apierr.New(http.StatusInternalServerError, apierr.TypeProvider,
			"the rate-limit store failed; see the gateway log").WithCode("storage_error"))
	}
}
