package handlers

import (
	"context"

	"github.com/tidwall/gjson"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/glue/reqmetrics"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
)

// tracerName names the tracer of the upstream attempts' spans.
const tracerName = "github.com/modelgate/modelgate"

// genAIProviders are the OpenTelemetry GenAI gen_ai.provider.name values
// of the provider types that have one; other types are named by their
// type.
var genAIProviders = map[string]string{
	"openai": "openai", "azure": "azure.ai.openai", "anthropic": "anthropic", "gemini": "gcp.gemini",
	"groq": "groq", "xai": "x_ai", "deepseek": "deepseek", "mistral": "mistral_ai",
}

// genAIProvider is the gen_ai.provider.name of a provider type.
func genAIProvider(providerType string) string {
	if name, ok := genAIProviders[providerType]; ok {
		return name
	}
	return providerType
}

// traceRequest puts what the gateway learned about a finished request to
// a route of shape on the request's span (the one Caddy's tracing handler
// started, a child of the incoming traceparent), following the
// OpenTelemetry GenAI conventions, and adds one child span per upstream
// call, failover targets included. status is the status the request
// ended with and errCode its error code ("" for a success); response is
// the answer's body as recorded (nil when not kept). Nothing is done when
// no span records: without tracing it costs one context lookup. Prompts
// and completions never go on spans.
func traceRequest(ctx context.Context, shape routes.Shape, info *reqinfo.Info, status int, errCode string, response []byte) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() || info == nil {
		return
	}
	op := reqmetrics.Operation(shape)
	attrs := make([]attribute.KeyValue, 0, 24)
	attrs = append(attrs, attribute.String("gen_ai.operation.name", op))
	if info.ProviderType != "" {
		attrs = append(attrs, attribute.String("gen_ai.provider.name", genAIProvider(info.ProviderType)),
			attribute.String("modelgate.provider", info.ProviderName))
	}
	if info.RequestedModel != "" {
		attrs = append(attrs, attribute.String("gen_ai.request.model", info.RequestedModel))
	}
	if info.ResolvedModel != "" {
		attrs = append(attrs, attribute.String("gen_ai.response.model", info.ResolvedModel))
	}
	if b := info.Body(); b != nil && b.ScanErr == nil {
		fields := gjson.GetManyBytes(b.Bytes, "max_tokens", "max_completion_tokens", "max_output_tokens", "temperature")
		for _, f := range fields[:3] {
			if f.Type == gjson.Number {
				attrs = append(attrs, attribute.Int64("gen_ai.request.max_tokens", f.Int()))
				break
			}
		}
		if fields[3].Type == gjson.Number {
			attrs = append(attrs, attribute.Float64("gen_ai.request.temperature", fields[3].Float()))
		}
	}
	attrs = appendResponse(attrs, response)
	if u, ok := info.Usage(); ok {
		attrs = append(attrs, attribute.Int64("gen_ai.usage.input_tokens", u.InputTokens),
			attribute.Int64("gen_ai.usage.output_tokens", u.OutputTokens))
	}
	if c, ok := info.Cost(); ok {
		attrs = append(attrs, attribute.Float64("modelgate.cost", c.Total))
	}
	cache := "miss"
	if info.CacheHit {
		cache = "hit"
	}
	attrs = append(attrs, attribute.String("modelgate.cache", cache), attribute.String("modelgate.user_path", info.UserPath))
	if info.KeyID != "" {
		attrs = append(attrs, attribute.String("modelgate.key_id", info.KeyID))
	}
	if info.SessionID != "" {
		attrs = append(attrs, attribute.String("modelgate.session_id", info.SessionID))
	}
	if r := info.RateLimitRule; r != nil {
		attrs = append(attrs, attribute.String("modelgate.refused_by", "rate_limit "+r.Scope+" "+r.Subject+" "+r.Period))
	} else if r := info.BudgetRule; r != nil {
		attrs = append(attrs, attribute.String("modelgate.refused_by", "budget "+r.Subject+" "+r.Period))
	}
	if errCode != "" {
		attrs = append(attrs, attribute.String("error.type", errCode))
		span.SetStatus(codes.Error, info.ErrorMessage)
	}
	span.SetAttributes(attrs...)
	traceAttempts(ctx, span.TracerProvider().Tracer(tracerName), op, info)
}

// appendResponse adds the answer's id and finish reasons, read from its
// recorded body in any of the three API shapes.
func appendResponse(attrs []attribute.KeyValue, response []byte) []attribute.KeyValue {
	if len(response) == 0 || !gjson.ValidBytes(response) {
		return attrs
	}
	r := gjson.ParseBytes(response)
	if id := r.Get("id"); id.Type == gjson.String {
		attrs = append(attrs, attribute.String("gen_ai.response.id", id.Str))
	}
	var reasons []string
	r.Get("choices.#.finish_reason").ForEach(func(_, v gjson.Result) bool {
		if v.Type == gjson.String {
			reasons = append(reasons, v.Str)
		}
		return true
	})
	if v := r.Get("stop_reason"); v.Type == gjson.String {
		reasons = append(reasons, v.Str)
	}
	if v := r.Get("status"); v.Type == gjson.String && r.Get("object").Str == "response" {
		reasons = append(reasons, v.Str)
	}
	if len(reasons) > 0 {
		attrs = append(attrs, attribute.StringSlice("gen_ai.response.finish_reasons", reasons))
	}
	return attrs
}

// traceAttempts adds a client span for each upstream call of info, with
// its own start and end, under the request's span in ctx. The answering
// call of a stream carries the time to its first token.
func traceAttempts(ctx context.Context, tracer trace.Tracer, op string, info *reqinfo.Info) {
	firstToken, streamed := info.FirstToken()
	info.EachAttempt(func(a *reqinfo.Attempt) {
		if a.NotCalled {
			return
		}
		attrs := []attribute.KeyValue{
			attribute.String("gen_ai.operation.name", op),
			attribute.String("gen_ai.provider.name", genAIProvider(a.ProviderType)),
			attribute.String("gen_ai.request.model", a.Model),
			attribute.String("modelgate.provider", a.Provider),
		}
		if a.StatusCode != 0 {
			attrs = append(attrs, attribute.Int("http.response.status_code", a.StatusCode))
		}
		if a.ServerAddress != "" {
			attrs = append(attrs, attribute.String("server.address", a.ServerAddress))
		}
		end := a.StartedAt.Add(a.Duration)
		if streamed && a.Err == "" && !firstToken.Before(a.StartedAt) && !firstToken.After(end) {
			attrs = append(attrs, attribute.Float64("modelgate.time_to_first_token", firstToken.Sub(a.StartedAt).Seconds()))
		}
		_, s := tracer.Start(ctx, op+" "+a.Model, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithTimestamp(a.StartedAt), trace.WithAttributes(attrs...))
		if a.Err != "" {
			code := a.ErrCode
			if code == "" {
				code = a.ErrType
			}
			if code == "" {
				code = "_OTHER"
			}
			s.SetAttributes(attribute.String("error.type", code))
			s.SetStatus(codes.Error, a.Err)
		}
		s.End(trace.WithTimestamp(end))
	})
}

// maxTracedContent caps each message attribute traceContent adds.
const maxTracedContent = 64 << 10

// traceContent puts the request's messages (gen_ai.input.messages: the
// body's messages, else its input) and the recorded answer
// (gen_ai.output.messages) on the request's span, with credentials masked
// as in stored bodies and each cut at maxTracedContent bytes
// (tracing.capture_content; off by default).
func traceContent(ctx context.Context, red *audit.Redactor, info *reqinfo.Info, response []byte) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	add := func(key string, b []byte) {
		if len(b) == 0 {
			return
		}
		b, _ = red.MaskSecrets(b)
		if len(b) > maxTracedContent {
			b = b[:maxTracedContent]
		}
		span.SetAttributes(attribute.String(key, string(b)))
	}
	if body := info.Body(); body != nil {
		in := gjson.GetBytes(body.Bytes, "messages")
		if !in.Exists() {
			in = gjson.GetBytes(body.Bytes, "input")
		}
		add("gen_ai.input.messages", []byte(in.Raw))
	}
	add("gen_ai.output.messages", response)
}
