package proxy

import (
	"net/http"
	"strconv"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate/anthropic"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
)

// TargetLimiter enforces the provider and model rate-limit rules (spec
// part 8): *limits.Engine implements it. Tests may stub it.
type TargetLimiter interface {
	// AdmitTarget checks and charges the rules of one provider instance
	// and upstream model id. On success Done must be called on the
	// returned Admission when the attempt has finished.
	AdmitTarget(provider, model string) (limits.Admission, *limits.Rejection)
	// TargetAvailable reports, without charging, whether AdmitTarget
	// would admit now, and otherwise how long until it would.
	TargetAvailable(provider, model string) (retryAfter time.Duration, ok bool)
}

// TargetAvailable reports whether a request to the upstream model id on
// provider would pass the provider and model rate limits now, charging
// nothing; when it would not, retryAfter is the wait until it would.
// Virtual-model balancing and failover use it to skip saturated targets.
// Without a limiter every target is available.
func (s *Service) TargetAvailable(provider, model string) (retryAfter time.Duration, ok bool) {
	if s.Limits == nil {
		return 0, true
	}
	return s.Limits.TargetAvailable(provider, model)
}

// admit charges c's provider and model rules before the upstream is
// called; a rejection means a rule is saturated and the upstream must not
// be called. The token-count estimate answered locally never gets here; a
// native count_tokens call is not counted either (it runs no model).
func (s *Service) admit(c *call) (limits.Admission, *limits.Rejection) {
	if s.Limits == nil || c.in == ingressCountTokens {
		return limits.Admission{}, nil
	}
	return s.Limits.AdmitTarget(c.provider.Name(), c.model)
}

// admitTarget charges c's provider and model rules before a single-target
// call (audio, passthrough). When a rule is saturated it writes the 429
// and returns false: the upstream is never called.
func (s *Service) admitTarget(w http.ResponseWriter, r *http.Request, c *call) (limits.Admission, bool) {
	adm, rej := s.admit(c)
	if rej != nil {
		c.info.RefusedBeforeUpstream = true
		apierr.WriteFor(w, r, targetRejected(c.info, c.provider.Name(), rej))
		return adm, false
	}
	return adm, true
}

// targetRejected is the 429 for a saturated provider or model, or the 503
// when the limits could not be checked (fail-closed without the shared
// counter store). A saturated rule is noted on info (RateLimitRule).
func targetRejected(info *reqinfo.Info, provider string, rej *limits.Rejection) *apierr.Error {
	if rej.Unavailable {
		// Fail-closed without the shared counter store: 503, not 429.
		e := apierr.New(http.StatusServiceUnavailable, apierr.TypeProvider, rej.Reason).
			WithCode("rate_limits_unavailable").WithProvider(provider)
		e.RetryAfter = int(rej.RetryAfterSeconds())
		return e
	}
	info.RateLimitRule = RuleOf(rej.Rule)
	e := apierr.New(http.StatusTooManyRequests, apierr.TypeRateLimit, rej.Reason).
		WithCode("rate_limit_exceeded").WithProvider(provider)
	e.RetryAfter = int(rej.RetryAfterSeconds())
	return e
}

// RuleOf names the rate-limit rule k for the request's record.
func RuleOf(k limits.Key) *reqinfo.Rule {
	return &reqinfo.Rule{Scope: string(k.Scope), Subject: k.Subject, Period: k.PeriodLabel()}
}

// usedTokens is the total token usage recorded for the request so far
// (0 when none is known: errors, disconnects before the usage arrived).
func usedTokens(info *reqinfo.Info) int64 {
	if info == nil {
		return 0
	}
	u, ok := info.Usage()
	if !ok {
		return 0
	}
	return u.TotalTokens
}

// DecidesBudget reports whether the service itself refuses an over-budget
// request of routes of shape, once it has resolved the request's model:
// the model endpoints it forwards (chat, responses, messages,
// embeddings, speech, transcription), passthrough, whose model is read
// from a JSON body when it has one, and realtime sessions. For these the
// stage in front of it records the verdict (reqinfo.Info.BudgetExceeded)
// and refuses a request whose plan's first target is priced; every
// other call is refused here by the same rule (reqinfo.Info.BudgetRefusal).
// Every other budgeted route is refused there.
func DecidesBudget(shape routes.Shape) bool {
	switch shape {
	case routes.ShapeChat, routes.ShapeResponses, routes.ShapeMessages, routes.ShapeEmbeddings,
		routes.ShapeSpeech, routes.ShapeTranscription, routes.ShapePassthrough, routes.ShapeRealtime:
		return true
	}
	return false
}

// refuseOverBudget answers c with the spent budget's 429 recorded on its
// request and reports true, unless no budget is spent or c's resolved
// model has no price (such a request is never spend, so it is admitted).
// Nothing upstream is called for a refused request, and it is marked so
// that the user-path rate limits give it back.
func refuseOverBudget(w http.ResponseWriter, r *http.Request, c *call) bool {
	e := overBudget(c)
	if e == nil {
		return false
	}
	c.info.RefusedBeforeUpstream = true
	apierr.WriteFor(w, r, e)
	return true
}

// overBudget is the spent budget's 429 when c would be spend (its model
// as its provider serves it has a price), else nil (reqinfo's one rule,
// Info.BudgetRefusal). Each upstream call is checked, failover targets
// included: an unpriced model that fails over to a priced one is refused
// there as a priced request is.
func overBudget(c *call) error {
	if c.info.BudgetExceeded == nil {
		return nil
	}
	return c.info.BudgetRefusal(reqinfo.PricedOn(c.provider.Name(), c.provider.Type(), c.model))
}

// WorstCaseCost is the most a request sent to target t with body can
// cost, which a budget reserves before admitting it: its input tokens,
// estimated as /v1/messages/count_tokens estimates them for models
// without a native counter (a body that is not a list of messages counts
// one token per 4 bytes), at the input price, plus its output ceiling at
// the output price. The ceiling is the request's max_tokens
// (max_completion_tokens, max_output_tokens), else the model's largest
// completion from the catalog, else what the context window leaves; a
// model the catalog knows neither of has none. ok is false when t's model
// has no price (such a request is never spend, so it reserves nothing) or
// body is missing.
func WorstCaseCost(t reqinfo.Target, body *reqinfo.Body) (n catalog.Nanos, ok bool) {
	if body == nil {
		return 0, false
	}
	m, known := catalog.Lookup(t.ProviderType, t.Model)
	if !known || m.Pricing == nil {
		return 0, false
	}
	in, err := anthropic.EstimateMessagesInputTokens(body.Bytes)
	if err != nil {
		in = int64(len(body.Bytes)+3) / 4
	}
	out := int64(-1)
	for _, raw := range [][]byte{body.Fields.MaxTokens, body.Fields.MaxCompletionTokens, body.Fields.MaxOutputTokens} {
		if v, err := strconv.ParseInt(string(raw), 10, 64); err == nil && v >= 0 {
			out = v
			break
		}
	}
	switch {
	case out >= 0:
	case m.MaxOutputTokens > 0:
		out = m.MaxOutputTokens
	case m.ContextWindow > in:
		out = m.ContextWindow - in
	default:
		out = 0
	}
	u := catalog.Usage{InputTokens: in, OutputTokens: out, TotalTokens: in + out}
	b, priced := catalog.RequestCostOn(t.Provider, t.ProviderType, t.Model, catalog.Consumption{Usage: u}, catalog.ReportedCost{})
	if !priced {
		return 0, false
	}
	return catalog.NanosOf(b.Total), true
}
