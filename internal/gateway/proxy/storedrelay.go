package proxy

import (
	"context"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// storedRelayTimeout bounds one relayed read or delete of a stored
// response.
const storedRelayTimeout = 60 * time.Second

// RelayStoredResponse relays r, a read or delete of a response that the
// provider instance named provider keeps (GET or DELETE
// /v1/responses/{id}, GET /v1/responses/{id}/input_items), to that
// provider with its credential, and answers with the provider's answer,
// read whole, with every provider credential removed. The caller has
// checked that the response is the caller's. A provider that is gone or
// cannot relay is 404 response_not_found, as the id can no longer be
// found.
func (s *Service) RelayStoredResponse(w http.ResponseWriter, r *http.Request, provider string) {
	id := strings.TrimPrefix(r.URL.EscapedPath(), "/v1/responses/")
	p, ok := s.Registry.Provider(provider)
	rl, relays := p.(providers.Relayer)
	if !ok || !relays || !p.Supports(providers.EndpointResponses) {
		apierr.WriteFor(w, r, apierr.New(http.StatusNotFound, apierr.TypeInvalidRequest,
			"the provider that kept this response ("+provider+") is no longer configured").WithCode("response_not_found"))
		return
	}
	if info := reqinfo.From(r.Context()); info != nil {
		info.ProviderName, info.ProviderType = p.Name(), p.Type()
	}
	ctx, cancel := context.WithTimeout(r.Context(), storedRelayTimeout)
	defer cancel()
	h := make(http.Header)
	h.Set("Accept", "application/json")
	resp, err := rl.Relay(ctx, providers.RawRequest{Method: r.Method, Path: "responses/" + strings.TrimSuffix(id, "/"),
		RawQuery: r.URL.RawQuery, Header: h})
	if err != nil {
		apierr.WriteFor(w, r, transportError(p.Name(), err))
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		apierr.WriteFor(w, r, upstreamError(p.Name(), resp, s.Upstreams))
		return
	}
	limits := s.Upstreams.limitsFor(p.Name())
	body, err := io.ReadAll(io.LimitReader(resp.Body, limits.MaxResponseBytes+1))
	if err != nil || int64(len(body)) > limits.MaxResponseBytes {
		apierr.WriteFor(w, r, apierr.ProviderError(http.StatusBadGateway, p.Name(), "reading the upstream response failed"))
		return
	}
	copyResponseHeaders(w.Header(), resp.Header, s.Upstreams)
	w.Header().Set("X-Modelgate-Provider", p.Name())
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(s.Upstreams.redactBody(body))
}
