package providers

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/propagation"
)

// propagateKey marks a context whose trace context goes upstream.
type propagateKey struct{}

// WithTracePropagation returns ctx marked so that the model calls made
// with it send its trace context (traceparent, tracestate) to the
// provider. Unmarked, nothing of the caller's trace leaves the gateway.
func WithTracePropagation(ctx context.Context) context.Context {
	return context.WithValue(ctx, propagateKey{}, true)
}

// injectTrace adds the trace context of req's context to its headers
// when the context is marked by WithTracePropagation.
func injectTrace(req *http.Request) {
	if on, _ := req.Context().Value(propagateKey{}).(bool); on {
		propagation.TraceContext{}.Inject(req.Context(), propagation.HeaderCarrier(req.Header))
	}
}
