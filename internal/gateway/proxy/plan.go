package proxy

import (
	"context"
	"errors"
	"net/http"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
)

// Plan returns the plan of r (reqinfo.Plan), making it when no stage did
// yet: for the JSON model endpoints (chat completions, embeddings,
// messages, count_tokens, responses, speech) of a request that carries a
// reqinfo.Info; nil for every other request. Making it reads the body
// unless an earlier stage did (it then stays on the Info for the later
// stages), resolves the model to its target through the virtual models
// when the virtual-model stage ran (reqinfo.Info.VirtualModels), applies
// the model access policies and names the failover targets. A request
// that cannot be resolved gets a plan whose Err the proxy answers with.
func (s *Service) Plan(r *http.Request) *reqinfo.Plan {
	info := reqinfo.From(r.Context())
	if info == nil {
		return nil
	}
	if p := info.Plan(); p != nil {
		return p
	}
	rt, ok := reqinfo.Route(r)
	if !ok {
		return nil
	}
	in, ok := ingressOf(rt.Shape)
	if !ok {
		return nil
	}
	return s.makePlan(r, info, in, false)
}

// Plans reports whether requests to routes of shape have a plan (Plan):
// the JSON model endpoints.
func Plans(shape routes.Shape) bool {
	_, ok := ingressOf(shape)
	return ok
}

// ingressOf is the ingress of a JSON model endpoint's shape.
func ingressOf(shape routes.Shape) (ingress, bool) {
	switch shape {
	case routes.ShapeChat:
		return ingressChat, true
	case routes.ShapeEmbeddings:
		return ingressEmbeddings, true
	case routes.ShapeMessages:
		return ingressMessages, true
	case routes.ShapeResponses:
		return ingressResponses, true
	case routes.ShapeCountTokens:
		return ingressCountTokens, true
	case routes.ShapeSpeech:
		return ingressSpeech, true
	}
	return ingress{}, false
}

// makePlan resolves r, a request of ingress in, into its plan and records
// it on info. own reports that the proxy itself makes it, as the stage
// that answers: a body read here is then the proxy's alone, and may be
// edited in place.
func (s *Service) makePlan(r *http.Request, info *reqinfo.Info, in ingress, own bool) *reqinfo.Plan {
	p := &reqinfo.Plan{VirtualModels: info.VirtualModels}
	info.SetPlan(p)
	fields, err := s.planBody(r, info, own)
	if err == nil {
		p.Requested, err = fields.modelName()
	}
	if err == nil {
		fields, err = s.applySecretPolicy(info, fields)
	}
	if err == nil && in == ingressMessages && fields.MaxTokens == nil {
		// Anthropic's API requires max_tokens; so does the gateway, whatever
		// the target, in Anthropic's own wording.
		err = apierr.InvalidRequest("max_tokens: Field required").WithParam("max_tokens").WithCode(apierr.CodeMissingParameter)
	}
	if err != nil {
		p.Err = err
		return p
	}
	// Recorded before routing, so that a request refused for its model
	// (unknown, denied) still shows which model it asked for.
	info.RequestedModel = p.Requested
	p.Unrouted = !info.VirtualModels && s.VirtualModels.IsAlias(p.Requested)
	t, err := s.route(r.Context(), info, p.Requested)
	if err != nil {
		p.Err = err
		return p
	}
	p.Target = t.target()
	p.Stream = in.streams && fields.streamOn()
	if info.VirtualModels && in != ingressCountTokens {
		p.Fallbacks = s.VirtualModels.FailoverTargets(p.Requested, t.provider.Name(), t.model)
	}
	return p
}

// planBody returns the top-level fields of r's JSON body: the body an
// earlier stage read (reqinfo.Info.Body), checked as one read here is,
// else the body read here and left on info. own marks a body read here
// as the proxy's own (reqinfo.Body.Editable).
func (s *Service) planBody(r *http.Request, info *reqinfo.Info, own bool) (requestFields, error) {
	b := info.Body()
	if b == nil {
		body, err := readBody(r, s.MaxBodyBytes)
		if err != nil {
			return requestFields{}, err
		}
		info.SetBody(body)
		b = info.Body()
		b.Editable = own
	} else if err := checkSharedBody(r, b.Bytes, s.MaxBodyBytes); err != nil {
		return requestFields{}, err
	}
	if b.ScanErr != nil {
		return requestFields{}, scanError(b.ScanErr)
	}
	return requestFields{b.Fields}, nil
}

// routed is the target a request was routed to.
type routed struct {
	provider providers.Provider
	model    string  // upstream model id
	slowdown float64 // factor the answer is delayed by; 0 none
	alias    bool    // the requested model is a virtual model
}

// target is t as a plan records it.
func (t routed) target() reqinfo.Target {
	return reqinfo.Target{Provider: t.provider.Name(), ProviderType: t.provider.Type(), Model: t.model,
		Slowdown: t.slowdown, Alias: t.alias}
}

// planned is the first target of plan p, a target the plan's provider
// still serves; ok is false when the provider is gone (a reload between
// the plan and the call).
func (s *Service) planned(p *reqinfo.Plan) (routed, bool) {
	prov, ok := s.Registry.Provider(p.Target.Provider)
	return routed{provider: prov, model: p.Target.Model, slowdown: p.Target.Slowdown, alias: p.Target.Alias}, ok
}

// route maps the model requested by the caller info describes to its
// target. When the virtual-model stage ran (info.VirtualModels), a
// virtual model's source resolves through its row (info.AliasUsed is
// set); otherwise, and for a model that is no virtual model, the model
// routes as a provider model, which the model access policies may keep
// from the caller.
func (s *Service) route(ctx context.Context, info *reqinfo.Info, requested string) (routed, error) {
	if info.VirtualModels {
		ch, isAlias, err := s.VirtualModels.Resolve(requested, info.UserPath, info.SessionID, availability{s})
		if isAlias {
			if err != nil {
				return routed{}, accessDenied(requested)
			}
			p, ok := s.Registry.Provider(ch.Provider)
			if !ok { // rows are checked against the providers; kept as a guard
				return routed{}, apierr.NotFound("virtual model " + requested + " names no configured provider").
					WithParam("model").WithCode("model_not_found")
			}
			info.AliasUsed = true
			return routed{provider: p, model: ch.Model, slowdown: ch.Slowdown, alias: true}, nil
		}
	}
	p, model, err := s.resolve(ctx, requested)
	if err != nil {
		var unknown *providers.ErrUnknownModel
		if errors.As(err, &unknown) {
			return routed{}, apierr.NotFound(unknown.Error()).WithParam("model").WithCode("model_not_found")
		}
		return routed{}, apierr.New(http.StatusServiceUnavailable, apierr.TypeProvider, "model listings are not ready: "+err.Error())
	}
	t := routed{provider: p, model: model}
	if t.slowdown, err = s.VirtualModels.Access(info.UserPath, p.Name(), model); err != nil {
		return routed{}, accessDenied(requested)
	}
	return t, nil
}

// accessDenied is the 403 for a model the caller may not use.
func accessDenied(model string) *apierr.Error {
	return apierr.New(http.StatusForbidden, apierr.TypeInvalidRequest, "access to model "+model+" is denied").
		WithParam("model").WithCode("model_access_denied")
}

// availability tells the virtual models which targets can take a request:
// no saturated provider or model rule, and a provider whose last model
// listing did not fail.
type availability struct{ s *Service }

// Available implements vmodels.Availability.
func (a availability) Available(provider, model string) bool {
	if a.s.Registry.ListingFailed(provider) {
		return false
	}
	_, ok := a.s.TargetAvailable(provider, model)
	return ok
}

var _ vmodels.Availability = availability{}

// failoverTargets returns the failover route's targets after c, the
// first call of req; nil when the virtual-model stage did not run or no
// route applies.
func (s *Service) failoverTargets(req *request, c *call) []string {
	if !req.info.VirtualModels || c.in == ingressCountTokens {
		return nil
	}
	return s.VirtualModels.FailoverTargets(req.requested, c.provider.Name(), c.model)
}

// planner makes the call of a request on one failover target (sub, a
// copy of the request naming that target): it routes it and checks that
// the target's provider can take it; an error skips the target.
type planner func(sub *request) (*call, error)

// failoverCall plans req on the failover target selector (a virtual model
// or a provider model) with plan, or returns nil when it cannot be tried
// there (the reason is logged): unknown, denied, or a request its
// provider cannot take. Routing a target does not mark the request as
// served through an alias.
func (s *Service) failoverCall(req *request, selector string, plan planner) *call {
	sub := *req
	sub.requested = selector
	aliasUsed := req.info.AliasUsed
	c, err := plan(&sub)
	req.info.AliasUsed = aliasUsed
	if err != nil {
		s.logger().Warn("failover target skipped", zap.String("target", selector), zap.Error(err))
		return nil
	}
	return c
}

// failover answers with c's call, then, while a call fails in a way
// failover covers before anything reached the client, with the failover
// targets in order (fallbacks, each planned by plan). try makes one call:
// it answers the client and returns nil, or, when last is false, may
// return the failure instead, writing nothing. When no further target can
// be planned the last failure is the answer.
func (s *Service) failover(w http.ResponseWriter, r *http.Request, req *request, c *call, fallbacks []string,
	plan planner, try func(c *call, last bool) error) {
	for next := 0; ; {
		failure := try(c, next == len(fallbacks))
		if failure == nil {
			return // answered
		}
		c = nil
		for c == nil && next < len(fallbacks) {
			c = s.failoverCall(req, fallbacks[next], plan)
			next++
		}
		if c == nil {
			apierr.WriteFor(w, r, failure)
			return
		}
	}
}
