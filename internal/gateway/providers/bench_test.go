package providers

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// fixedTransport answers every request in memory with an empty JSON body,
// naming the path it was sent to in X-Path, so benchmarks measure the
// adapter, not a network.
type fixedTransport struct{}

func (fixedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"X-Path": {r.URL.Path}}, Body: io.NopCloser(strings.NewReader(`{}`)),
		Request: r}, nil
}

// benchDo measures p.Do on ep, after checking that p is of shape and
// serves ep, and that a call reaches the upstream at path: the benchmark
// measures the call it names.
func benchDo(b *testing.B, p Provider, ep Endpoint, shape Shape, path string) {
	if !p.Supports(ep) || p.Shape() != shape {
		b.Fatalf("provider %s: supports %s %v, shape %v; want true, %v", p.Name(), ep, p.Supports(ep), p.Shape(), shape)
	}
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	ctx := context.Background()
	resp, err := p.Do(ctx, ep, "m", body)
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("X-Path"); resp.StatusCode != 200 || got != path {
		b.Fatalf("the call reached %s (status %d), want %s", got, resp.StatusCode, path)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		resp, err := p.Do(ctx, ep, "m", body)
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
}

func BenchmarkOpenAICompatDo(b *testing.B) {
	p := mustNew(b, Options{Name: "o", Type: "openai", BaseURL: "http://up.invalid/v1", APIKey: "sk-test",
		Client: &http.Client{Transport: fixedTransport{}}, UserAgent: "modelgate/bench"})
	benchDo(b, p, EndpointChat, ShapeChat, "/v1/chat/completions")
}

func BenchmarkAzureDo(b *testing.B) {
	p := mustNew(b, Options{Name: "az", Type: "azure", BaseURL: "http://up.invalid", APIKey: "k",
		APIVersion: "2024-10-21", Client: &http.Client{Transport: fixedTransport{}}, UserAgent: "modelgate/bench"})
	benchDo(b, p, EndpointChat, ShapeChat, "/openai/deployments/m/chat/completions")
}

func BenchmarkAnthropicDo(b *testing.B) {
	p := mustNew(b, Options{Name: "a", Type: "anthropic", BaseURL: "http://up.invalid/v1", APIKey: "k",
		Client: &http.Client{Transport: fixedTransport{}}, UserAgent: "modelgate/bench"})
	benchDo(b, p, EndpointMessages, ShapeMessages, "/v1/messages")
}
