package proxy

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/modelgate/modelgate/internal/gateway/providers"
)

// roundTripFunc is an in-memory upstream transport.
type roundTripFunc func(*http.Request) (*http.Response, error)

// RoundTrip implements http.RoundTripper.
func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// passthroughService serves /p/up/... for an OpenAI adapter whose upstream
// answers in memory with answer().
func passthroughService(b testing.TB, answer func() *http.Response) *Service {
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.Body != nil {
			_, _ = io.Copy(io.Discard, r.Body)
			_ = r.Body.Close()
		}
		return answer(), nil
	})}
	p, err := providers.New(providers.Options{Name: "up", Type: "openai", BaseURL: "http://up.invalid/v1",
		APIKey: "sk-bench-upstream", Client: client})
	if err != nil {
		b.Fatal(err)
	}
	reg := providers.NewRegistry([]providers.Entry{{Provider: p, Models: []string{"m1"}, Allowlist: true}}, providers.RegistryOptions{})
	reg.Start(context.Background())
	<-reg.Ready()
	return &Service{Registry: reg, MaxBodyBytes: 1 << 20, Passthrough: Passthrough{Enabled: []string{"up"}},
		Upstreams: NewUpstreams(nil, []string{"sk-bench-upstream"})}
}

// BenchmarkProxyPassthrough is one passthrough chat completion: the body
// read for its model, relayed with the provider's key, the JSON answer
// read for its usage and relayed.
func BenchmarkProxyPassthrough(b *testing.B) {
	s := passthroughService(b, func() *http.Response { return jsonResponse(200, chatAnswer) })
	benchServe(b, s, "/p/up/chat/completions", chatBody(1<<10, ""))
}

// BenchmarkProxyPassthroughStream relays a 50-event stream through
// passthrough.
func BenchmarkProxyPassthroughStream(b *testing.B) {
	stream := chatStream()
	s := passthroughService(b, func() *http.Response { return sseResponse(stream) })
	benchServe(b, s, "/p/up/chat/completions", chatBody(1<<10, `"stream":true,`))
}
