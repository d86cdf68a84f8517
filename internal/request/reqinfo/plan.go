package reqinfo

import (
	"net/http"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/request/routes"
)

// Plan is how a model request is served, resolved once after
// authentication and the one read of its body: the model it asks for,
// the target that model resolves to, the failover targets behind it and
// whether the client wants a stream. Every later stage (the response
// cache, the budgets, the proxy) reads it; none resolves the request
// again. The proxy makes it (proxy.Service.Plan) for the JSON model
// endpoints; a request that cannot be resolved (a malformed body, an
// unknown or denied model) has a plan whose Err the proxy answers with.
type Plan struct {
	// Err is the refusal the request is answered with when it cannot be
	// resolved; nil when Target is set.
	Err error
	// Requested is the model the client asked for ("" when the body
	// names none).
	Requested string
	// Target is where the request goes first.
	Target Target
	// Fallbacks are the failover route's further targets, in the order
	// they are tried, as selectors (a virtual model or a provider model)
	// that the proxy resolves when it tries them.
	Fallbacks []string
	// Stream reports that the client asked for a streamed answer.
	Stream bool
	// VirtualModels reports that the plan was made after the
	// virtual-model stage ran: virtual models resolved to their targets
	// and failover routes applied. Without it a model routes straight
	// to a provider; the model access policies apply either way.
	VirtualModels bool
	// Unrouted reports a plan made without the virtual-model stage for a
	// model that is also a virtual model's name: a virtual-model stage
	// later in the chain makes the plan again with another target, so the
	// stages before it (the cache, the budget decision) leave such a
	// request alone.
	Unrouted bool
}

// Settled reports whether the later stages may act on p's target: it
// resolved, and no virtual-model stage still to come will resolve it
// otherwise (Unrouted).
func (p *Plan) Settled() bool { return p != nil && p.Err == nil && !p.Unrouted }

// Target is one provider model a request is sent to.
type Target struct {
	// Provider is the provider instance's name.
	Provider string
	// ProviderType is that instance's type.
	ProviderType string
	// Model is the upstream model id.
	Model string
	// Slowdown is the factor the answer is delayed by; 0 none.
	Slowdown float64
	// Alias reports that the requested model is a virtual model that
	// resolved to this target.
	Alias bool
}

// Priced reports that the catalog has a price for t's model as a provider
// of its type serves it: only a priced request is spend, which a spent
// budget refuses (Info.BudgetRefusal). It is looked up when asked, which
// is only while a spent budget covers the caller.
func (t Target) Priced() bool { return PricedOn(t.Provider, t.ProviderType, t.Model) }

// Priced reports whether the catalog has a price for model as served by a
// provider of type providerType: a catalogued model whose pricing is
// known (self-hosted types such as ollama and vllm have none), or one
// the operator priced for the type (catalog.OverridePrice).
func Priced(providerType, model string) bool { return PricedOn("", providerType, model) }

// PricedOn is Priced for a provider also known by its name, whose own
// price override counts too.
func PricedOn(providerName, providerType, model string) bool {
	if _, ok := catalog.OverridePrice(providerName, providerType, model); ok {
		return true
	}
	m, ok := catalog.Lookup(providerType, model)
	return ok && m.Pricing != nil
}

// Plan returns the request's plan, or nil while none was made.
func (i *Info) Plan() *Plan { return i.plan }

// SetPlan records p as the request's plan.
func (i *Info) SetPlan(p *Plan) { i.plan = p }

// DropPlan forgets the plan, so that the next stage that needs one makes
// it again: the virtual-model stage does so for a plan made before it ran.
func (i *Info) DropPlan() { i.plan = nil }

// BudgetRefusal is the one rule by which a spent budget refuses a call:
// the 429 budget_exceeded of the spent budget covering the caller
// (BudgetExceeded) when the call would be spend (priced: its model has a
// price), else nil. The rate-limit stage applies it to a plan's first
// target; the proxy to every other target it tries and to the requests
// it resolves itself (passthrough, transcription, realtime).
func (i *Info) BudgetRefusal(priced bool) error {
	if priced {
		return i.BudgetExceeded
	}
	return nil
}

// Route returns the route of r (routes.LookupRequest), looked up once per
// request: the result is kept on r's Info, when it has one, for as long as
// the method and path stay the same.
func Route(r *http.Request) (*routes.Route, bool) {
	i := From(r.Context())
	if i == nil {
		return routes.LookupRequest(r)
	}
	if path := routes.Path(r); i.routeMethod != r.Method || i.routePath != path || i.routePath == "" {
		i.route, i.routeOK = routes.Lookup(r.Method, path)
		i.routeMethod, i.routePath = r.Method, path
	}
	return i.route, i.routeOK
}

// Started returns what SetStarted recorded: the started gateway as the
// first stage that waited for it found it, or nil when no stage has
// waited yet for this request.
func (i *Info) Started() any { return i.started }

// SetStarted records the started gateway v (the Caddy glue's runtime), so
// that the later stages of this request read it instead of waiting again.
func (i *Info) SetStarted(v any) { i.started = v }
