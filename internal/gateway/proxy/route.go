package proxy

import (
	"context"
	"errors"
	"net/http"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// routed is the target a request was routed to.
type routed struct {
	provider providers.Provider
	model    string  // upstream model id
	slowdown float64 // factor the answer is delayed by; 0 none
}

// route maps req's model to its target. When the virtual-model stage ran
// (info.VirtualModels), a virtual model's source resolves through its row
// (info.AliasUsed is set) and a provider model is checked against the
// access policies; otherwise the model routes as a provider model.
func (s *Service) route(ctx context.Context, req *request) (routed, error) {
	info := req.info
	vm := s.VirtualModels
	if !info.VirtualModels {
		vm = nil
	}
	if vm != nil {
		ch, isAlias, err := s.aliasChoice(req)
		if isAlias {
			if err != nil {
				return routed{}, accessDenied(req.requested)
			}
			p, ok := s.Registry.Provider(ch.Provider)
			if !ok { // rows are checked against the providers; kept as a guard
				return routed{}, apierr.NotFound("virtual model " + req.requested + " names no configured provider").
					WithParam("model").WithCode("model_not_found")
			}
			info.AliasUsed = true
			return routed{provider: p, model: ch.Model, slowdown: ch.Slowdown}, nil
		}
	}
	p, model, err := s.resolve(ctx, req.requested)
	if err != nil {
		var unknown *providers.ErrUnknownModel
		if errors.As(err, &unknown) {
			return routed{}, apierr.NotFound(unknown.Error()).WithParam("model").WithCode("model_not_found")
		}
		return routed{}, apierr.New(http.StatusServiceUnavailable, apierr.TypeProvider, "model listings are not ready: "+err.Error())
	}
	t := routed{provider: p, model: model}
	if vm != nil {
		if t.slowdown, err = vm.Access(info.UserPath, p.Name(), model); err != nil {
			return routed{}, accessDenied(req.requested)
		}
	}
	return t, nil
}

// aliasChoice resolves req's model through the virtual models: to the
// target an earlier stage chose for it (the response cache, which keyed
// on it), else afresh.
func (s *Service) aliasChoice(req *request) (vmodels.Choice, bool, error) {
	if r, ok := req.info.TakeRouted(req.requested); ok {
		return vmodels.Choice{Provider: r.Provider, Model: r.Model, Slowdown: r.Slowdown}, true, nil
	}
	return s.VirtualModels.Resolve(req.requested, req.info.UserPath, req.info.SessionID, availability{s})
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

// failoverTargets returns the failover route's targets for c, the first
// target of req; nil when the virtual-model stage did not run or no route
// applies.
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
