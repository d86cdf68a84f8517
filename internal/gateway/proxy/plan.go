package proxy

import (
	"net/http"

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
