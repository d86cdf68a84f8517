package providers

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// fixedTransport answers every request in memory with an empty JSON body,
// so benchmarks measure the adapter, not a network.
type fixedTransport struct{}

func (fixedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(`{}`)), Request: r}, nil
}

func benchDo(b *testing.B, p Provider, ep Endpoint) {
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		resp, err := p.Do(ctx, ep, "m", body)
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		if !p.Supports(ep) || p.Shape() != p.Shape() || p.StreamUsageOption() != p.StreamUsageOption() {
			b.Fatal("capabilities changed")
		}
	}
}

func BenchmarkOpenAICompatDo(b *testing.B) {
	p := mustNew(b, Options{Name: "o", Type: "openai", BaseURL: "http://up.invalid/v1", APIKey: "sk-test",
		Client: &http.Client{Transport: fixedTransport{}}, UserAgent: "modelgate/bench"})
	benchDo(b, p, EndpointChat)
}

func BenchmarkAzureDo(b *testing.B) {
	p := mustNew(b, Options{Name: "az", Type: "azure", BaseURL: "http://up.invalid", APIKey: "k",
		APIVersion: "2024-10-21", Client: &http.Client{Transport: fixedTransport{}}, UserAgent: "modelgate/bench"})
	benchDo(b, p, EndpointChat)
}

func BenchmarkAnthropicDo(b *testing.B) {
	p := mustNew(b, Options{Name: "a", Type: "anthropic", BaseURL: "http://up.invalid/v1", APIKey: "k",
		Client: &http.Client{Transport: fixedTransport{}}, UserAgent: "modelgate/bench"})
	benchDo(b, p, EndpointMessages)
}
