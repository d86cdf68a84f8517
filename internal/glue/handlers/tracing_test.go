package handlers

import (
	"context"
	"testing"

	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
)

// TestTraceRequestWithoutTracingAllocatesNothing: without a recording
// span (no tracing configured) annotating a request costs no allocation.
func TestTraceRequestWithoutTracingAllocatesNothing(t *testing.T) {
	info := reqinfo.New()
	info.RequestedModel, info.ResolvedModel, info.ProviderName, info.ProviderType = "m", "m", "p", "openai"
	ctx := context.Background()
	if n := testing.AllocsPerRun(100, func() { traceRequest(ctx, routes.ShapeChat, info, 200, "", nil) }); n != 0 {
		t.Fatalf("%v allocations without tracing", n)
	}
}

// BenchmarkTraceRequestOff is traceRequest with no tracing configured.
func BenchmarkTraceRequestOff(b *testing.B) {
	info := reqinfo.New()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		traceRequest(ctx, routes.ShapeChat, info, 200, "", nil)
	}
}

func TestGenAIProviderNames(t *testing.T) {
	for typ, want := range map[string]string{"xai": "x_ai", "gemini": "gcp.gemini", "openai": "openai", "ollama": "ollama", "mock": "mock"} {
		if got := genAIProvider(typ); got != want {
			t.Errorf("%s: %s, want %s", typ, got, want)
		}
	}
}
