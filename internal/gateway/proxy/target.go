package proxy

import (
	"net/http"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
)

// Target is where a model request goes, as the proxy resolves it, found
// without calling any upstream.
type Target struct {
	// Requested is the model name the client sent.
	Requested string
	// Provider is the provider instance the model resolves to.
	Provider string
	// ProviderType is that instance's type.
	ProviderType string
	// Model is the upstream model id.
	Model string
	// Stream reports whether the client asked for a stream.
	Stream bool
	// Alias reports that Requested is a virtual model, resolved to
	// Provider and Model.
	Alias bool
}

// ResolveTarget reads the model and stream flag of body, the body of r, a
// request to a model endpoint of shape, and resolves the model to its
// provider the way the proxy does when it forwards the request. ok is
// false when the proxy would refuse the request before resolving it (its
// media type, body or model), the model does not resolve, or the shape is
// not one the proxy forwards, or the caller may not use the model: the
// proxy then answers the request itself.
//
// A virtual model is resolved to one of its targets here, as the proxy
// would, and the choice is recorded on the request's reqinfo.Info
// (SetRouted): the proxy then sends the request to that target, the one
// the caller keys on, and a weighted pick is made once per request.
func (s *Service) ResolveTarget(r *http.Request, shape routes.Shape, body []byte) (t Target, ok bool) {
	in, ok := ingressOf(shape)
	if !ok || apierr.CheckJSONMediaType(r.Header) != nil {
		return t, false
	}
	var fields requestFields
	var err error
	if b := sharedBody(r); b != nil && sameBytes(b.Bytes, body) {
		fields, err = requestFields{b.Fields}, b.ScanErr
	} else {
		fields, err = scanFields(body)
	}
	if err != nil {
		return t, false
	}
	if t.Requested, err = fields.modelName(); err != nil {
		return t, false
	}
	if in == ingressMessages && fields.MaxTokens == nil {
		return t, false
	}
	info := reqinfo.From(r.Context())
	if ch, isAlias, ok := s.resolveAlias(info, t.Requested); isAlias {
		p, found := s.Registry.Provider(ch.Provider)
		if !ok || !found {
			return t, false
		}
		info.SetRouted(reqinfo.Routed{Requested: t.Requested, Provider: ch.Provider, Model: ch.Model, Slowdown: ch.Slowdown})
		t.Provider, t.ProviderType, t.Model, t.Alias = p.Name(), p.Type(), ch.Model, true
	} else {
		p, model, err := s.resolve(r.Context(), t.Requested)
		if err != nil {
			return t, false
		}
		// A model the caller may not use is refused by the proxy (403),
		// not served from anything stored before a policy disabled it.
		if info != nil {
			if _, err := s.VirtualModels.Access(info.UserPath, p.Name(), model); err != nil {
				return t, false
			}
		}
		t.Provider, t.ProviderType, t.Model = p.Name(), p.Type(), model
	}
	t.Stream = in.streams && fields.streamOn()
	return t, true
}

// ingressOf is the ingress of a forwarded model endpoint's shape.
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
	}
	return ingress{}, false
}

// resolveAlias resolves requested when it is a virtual model's source
// (isAlias), for the caller info describes. ok is false when the caller
// may not use it, or no info says who the caller is: the proxy then
// answers the request itself.
func (s *Service) resolveAlias(info *reqinfo.Info, requested string) (c vmodels.Choice, isAlias, ok bool) {
	if info == nil {
		return c, s.VirtualModels.IsAlias(requested), false
	}
	c, isAlias, err := s.VirtualModels.Resolve(requested, info.UserPath, info.SessionID, availability{s})
	return c, isAlias, err == nil
}
