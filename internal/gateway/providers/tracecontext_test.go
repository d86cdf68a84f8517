package providers

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

// TestTraceContextGoesUpstreamOnlyWhenMarked: a model call carries the
// caller's traceparent only with a context marked by
// WithTracePropagation.
func TestTraceContextGoesUpstreamOnlyWhenMarked(t *testing.T) {
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6},
		TraceFlags: trace.FlagsSampled})
	ctx := trace.ContextWithSpanContext(context.Background(), sc)
	for _, marked := range []bool{false, true} {
		c := ctx
		if marked {
			c = WithTracePropagation(ctx)
		}
		req, _ := http.NewRequestWithContext(c, http.MethodPost, "http://upstream.invalid/v1/chat/completions", nil)
		injectTrace(req)
		tp := req.Header.Get("Traceparent")
		if marked != (tp != "") || (marked && !strings.Contains(tp, sc.TraceID().String())) {
			t.Fatalf("marked %v: traceparent %q", marked, tp)
		}
	}
}
