package proxy

import (
	"net/http"

	"github.com/modelgate/modelgate/apierr"
	"github.com/modelgate/modelgate/reqinfo"
	"github.com/modelgate/modelgate/routes"
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
}

// ResolveTarget reads the model and stream flag of body, the body of r, a
// request to a model endpoint of shape, and resolves the model to its
// provider the way the proxy does when it forwards the request. ok is
// false when the proxy would refuse the request before resolving it (its
// media type, body or model), the model does not resolve, or the shape is
// not one the proxy forwards, or the caller may not use the model: the
// proxy then answers the request itself.
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
	p, model, err := s.resolve(r.Context(), t.Requested)
	if err != nil {
		return t, false
	}
	// A model the caller may not use is refused by the proxy (403), not
	// served from anything stored before a policy disabled it.
	if info := reqinfo.From(r.Context()); info != nil {
		if _, err := s.VirtualModels.Access(info.UserPath, p.Name(), model); err != nil {
			return t, false
		}
	}
	t.Provider, t.ProviderType, t.Model = p.Name(), p.Type(), model
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
