package proxy

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"go.uber.org/zap"

	"github.com/modelgate/modelgate/apierr"
	"github.com/modelgate/modelgate/providers"
	"github.com/modelgate/modelgate/reqinfo"
)

// call is one model request on its way upstream.
type call struct {
	ep        providers.Endpoint
	body      []byte
	provider  providers.Provider
	model     string // upstream model id
	stream    bool
	wantUsage bool // the client asked for the usage chunk itself
	info      *reqinfo.Info
}

func (s *Service) chatCompletions(w http.ResponseWriter, r *http.Request) {
	s.forward(w, r, providers.EndpointChat)
}

func (s *Service) embeddings(w http.ResponseWriter, r *http.Request) {
	s.forward(w, r, providers.EndpointEmbeddings)
}

// forward reads and checks the request, resolves its model and relays the
// upstream's answer.
func (s *Service) forward(w http.ResponseWriter, r *http.Request, ep providers.Endpoint) {
	c, err := s.prepare(r, ep)
	if err != nil {
		apierr.Write(w, err)
		return
	}
	started := time.Now()
	resp, err := c.provider.Do(r.Context(), c.ep, c.model, c.body)
	if err != nil {
		c.info.AddAttempt(reqinfo.Attempt{Provider: c.provider.Name(), Model: c.model, StartedAt: started,
			Duration: time.Since(started), Err: err.Error()})
		if r.Context().Err() != nil {
			return // the client went away; nobody to answer
		}
		s.logger().Warn("upstream request failed", zap.String("provider", c.provider.Name()), zap.Error(err))
		apierr.Write(w, transportError(c.provider.Name(), err))
		return
	}
	defer resp.Body.Close()
	defer func() {
		c.info.AddAttempt(reqinfo.Attempt{Provider: c.provider.Name(), Model: c.model, StatusCode: resp.StatusCode,
			StartedAt: started, Duration: time.Since(started)})
	}()
	if resp.StatusCode >= 400 {
		apierr.Write(w, upstreamError(c.provider.Name(), resp))
		return
	}
	copyResponseHeaders(w.Header(), resp.Header)
	w.Header().Set("X-Modelgate-Provider", c.provider.Name())
	if c.stream && isEventStream(resp.Header) {
		relayStream(w, resp, c)
		return
	}
	relayBody(w, resp, c)
}

// prepare reads the body, resolves the model and rewrites the few fields
// that must change for the upstream. An untouched body is forwarded as the
// client sent it.
func (s *Service) prepare(r *http.Request, ep providers.Endpoint) (*call, error) {
	body, err := readBody(r, s.MaxBodyBytes)
	if err != nil {
		return nil, err
	}
	requested, err := modelField(body)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
	p, model, err := s.Registry.Resolve(ctx, requested)
	cancel()
	if err != nil {
		var unknown *providers.ErrUnknownModel
		if errors.As(err, &unknown) {
			return nil, apierr.NotFound(unknown.Error()).WithParam("model").WithCode("model_not_found")
		}
		return nil, apierr.New(http.StatusServiceUnavailable, apierr.TypeProvider, "model listings are not ready: "+err.Error())
	}
	if model != requested {
		if body, err = sjson.SetBytes(body, "model", model); err != nil {
			return nil, apierr.InvalidRequest("could not rewrite model: " + err.Error())
		}
	}
	c := &call{ep: ep, body: body, provider: p, model: model}
	if ep == providers.EndpointChat {
		res := gjson.GetManyBytes(body, "stream", "stream_options.include_usage")
		c.stream = res[0].Bool()
		c.wantUsage = res[1].Bool()
		if c.stream && !c.wantUsage && p.StreamUsageOption() {
			if c.body, err = sjson.SetBytes(c.body, "stream_options.include_usage", true); err != nil {
				return nil, apierr.InvalidRequest("could not set stream_options: " + err.Error())
			}
		}
	}
	c.info = reqinfo.From(r.Context())
	if c.info == nil {
		c.info = reqinfo.New()
	}
	c.info.RequestedModel = requested
	c.info.ResolvedModel = model
	c.info.ProviderName = p.Name()
	c.info.ProviderType = p.Type()
	c.info.Stream = c.stream
	return c, nil
}

// relayBody copies a whole (non-streamed) upstream answer and records its
// usage.
func relayBody(w http.ResponseWriter, resp *http.Response, c *call) {
	body, err := readAllSized(resp.Body, sizeHint(resp.ContentLength))
	if err != nil {
		apierr.Write(w, apierr.ProviderError(http.StatusBadGateway, c.provider.Name(),
			"reading the upstream response failed: "+err.Error()))
		return
	}
	if u, ok := parseUsage(gjson.GetBytes(body, "usage")); ok {
		c.info.SetUsage(u)
	}
	w.Header().Del("Content-Length")
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(body)
}

func sizeHint(n int64) int {
	if n <= 0 || n > 64<<20 {
		return 8192
	}
	return int(n)
}

// passedHeaders are the upstream response headers a client gets.
var passedHeaders = []string{"Content-Type", "X-Request-Id", "Request-Id", "Openai-Processing-Ms", "Openai-Version"}

func copyResponseHeaders(dst, src http.Header) {
	for _, k := range passedHeaders {
		if v := src.Values(k); len(v) > 0 {
			dst[k] = v
		}
	}
}

// isEventStream reports whether the response is a server-sent-event
// stream. Media types compare case-insensitively.
func isEventStream(h http.Header) bool {
	const sse = "text/event-stream"
	ct := h.Get("Content-Type")
	return len(ct) >= len(sse) && strings.EqualFold(ct[:len(sse)], sse)
}
