package handlers

import (
	"context"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

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

// BenchmarkTraceRequestOn is traceRequest on a recording span (an SDK
// tracer provider without exporters) for an answered chat request with
// one upstream call.
func BenchmarkTraceRequestOn(b *testing.B) {
	tp := sdktrace.NewTracerProvider()
	defer func() { _ = tp.Shutdown(context.Background()) }()
	info := reqinfo.New()
	info.RequestedModel, info.ResolvedModel, info.ProviderName, info.ProviderType = "gpt-4o-mini", "gpt-4o-mini", "oa", "openai"
	info.UserPath, info.SessionID = "/team", "sess"
	info.SetBody([]byte(`{"model":"gpt-4o-mini","max_tokens":50,"temperature":0.5,"messages":[{"role":"user","content":"hi"}]}`))
	info.AddAttempt(reqinfo.Attempt{Provider: "oa", ProviderType: "openai", Model: "gpt-4o-mini", StatusCode: 200,
		StartedAt: info.Start, Duration: time.Millisecond})
	response := []byte(`{"id":"chatcmpl-1","choices":[{"finish_reason":"stop"}]}`)
	b.ReportAllocs()
	for b.Loop() {
		ctx, span := tp.Tracer("bench").Start(context.Background(), "request")
		traceRequest(ctx, routes.ShapeChat, info, 200, "", response)
		span.End()
	}
}
