package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP trace receiver on loopback that keeps the
// spans it is sent.
type otlpReceiver struct {
	srv   *httptest.Server
	mu    sync.Mutex
	spans []*tracepb.Span
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	o := &otlpReceiver{}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
			http.Error(w, "bad export", http.StatusBadRequest)
			return
		}
		o.mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				o.spans = append(o.spans, ss.Spans...)
			}
		}
		o.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(o.srv.Close)
	return o
}

// find returns the spans whose attribute key has value.
func (o *otlpReceiver) find(key, value string) []*tracepb.Span {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []*tracepb.Span
	for _, s := range o.spans {
		if attr(s, key) == value {
			out = append(out, s)
		}
	}
	return out
}

// children returns the spans whose parent is s.
func (o *otlpReceiver) children(s *tracepb.Span) []*tracepb.Span {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []*tracepb.Span
	for _, c := range o.spans {
		if string(c.ParentSpanId) == string(s.SpanId) && string(c.TraceId) == string(s.TraceId) {
			out = append(out, c)
		}
	}
	return out
}

// attr is the value of s's attribute key as text, "" when absent.
func attr(s *tracepb.Span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return anyText(kv.Value)
		}
	}
	return ""
}

func anyText(v *commonpb.AnyValue) string {
	switch x := v.Value.(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *commonpb.AnyValue_ArrayValue:
		var out []string
		for _, e := range x.ArrayValue.Values {
			out = append(out, anyText(e))
		}
		return fmt.Sprint(out)
	}
	return v.String()
}

// startTracedGateway loads a gateway whose site has Caddy's tracing
// directive, with modelgateBlock in its global option, exporting to recv;
// loading it again (after changing the environment) reloads it.
func startTracedGateway(t *testing.T, recv *otlpReceiver, modelgateBlock string) (url string, load func()) {
	t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", recv.srv.URL+"/v1/traces")
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	ports := freePorts(t, 2)
	cf := siteCaddyfile("master_key "+masterKey+"\n"+modelgateBlock, "\ttracing {\n\t\tspan modelgate\n\t}", ports[0], ports[1], t.TempDir())
	load = func() {
		if err := caddy.Load(adapt(t, cf), true); err != nil {
			t.Fatal(err)
		}
	}
	load()
	t.Cleanup(func() { _ = caddy.Stop() })
	url = fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	waitHealthy(t, url)
	return url, load
}

// TestTracingContentAndUpstreamPropagation: by default no trace context
// reaches the provider and no prompt reaches the trace; with
// tracing.propagate_upstream the provider gets the request's traceparent,
// and with tracing.capture_content the span carries the messages and the
// answer, a pasted key masked.
func TestTracingContentAndUpstreamPropagation(t *testing.T) {
	clearEnv(t)
	recv := newOTLPReceiver(t)
	up := newReplay(t, "openai")
	url, reload := startTracedGateway(t, recv, providerBlock("oa", "openai", "sk-oa-upstream-key", up.BaseURL()))
	secret := "sk-proj-" + strings.Repeat("Ab1", 12)
	body := `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"my key is ` + secret + `"}]}`
	if res := request(t, "POST", url+"/v1/chat/completions", body, append(bearer(masterKey), "X-Session-Id", "sess-off")...); res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	if tp := up.Last(t, "/v1/chat/completions").Header.Get("Traceparent"); tp != "" {
		t.Fatalf("traceparent sent upstream by default: %s", tp)
	}
	poll(t, 10*time.Second, "the first span", func() bool { return len(recv.find("modelgate.session_id", "sess-off")) > 0 })
	if s := recv.find("modelgate.session_id", "sess-off")[0]; attr(s, "gen_ai.input.messages") != "" {
		t.Fatal("messages on the span by default")
	}

	t.Setenv("TRACING_PROPAGATE_UPSTREAM", "true")
	t.Setenv("TRACING_CAPTURE_CONTENT", "true")
	reload()
	if res := request(t, "POST", url+"/v1/chat/completions", body, append(bearer(masterKey), "X-Session-Id", "sess-on")...); res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	tp := up.Last(t, "/v1/chat/completions").Header.Get("Traceparent")
	poll(t, 10*time.Second, "the second span", func() bool {
		for _, s := range recv.find("modelgate.session_id", "sess-on") {
			if s.Kind == tracepb.Span_SPAN_KIND_SERVER {
				return true
			}
		}
		return false
	})
	var span *tracepb.Span
	for _, s := range recv.find("modelgate.session_id", "sess-on") {
		if s.Kind == tracepb.Span_SPAN_KIND_SERVER {
			span = s
		}
	}
	if parts := strings.Split(tp, "-"); len(parts) != 4 || parts[1] != fmt.Sprintf("%x", span.TraceId) {
		t.Fatalf("upstream traceparent %q, span trace %x", tp, span.TraceId)
	}
	in, out := attr(span, "gen_ai.input.messages"), attr(span, "gen_ai.output.messages")
	if !strings.Contains(in, "my key is [REDACTED:openai_key]") || strings.Contains(in, secret) || out == "" {
		t.Fatalf("captured content: input %s, output %.200s", in, out)
	}
}

// TestTracingGenAIAttributes: with Caddy's tracing directive on the site
// and an OTLP/HTTP receiver configured the standard way, a chat request's
// span carries the GenAI attributes and the gateway's own, with a child
// span for its upstream call; a translated stream records its first token
// on that call; a refused request carries error.type.
func TestTracingGenAIAttributes(t *testing.T) {
	clearEnv(t)
	recv := newOTLPReceiver(t)
	url, _ := startTracedGateway(t, recv, "provider demo {\n type mock\n}")

	chat := request(t, "POST", url+"/v1/chat/completions",
		`{"model":"mock-chat","max_tokens":50,"temperature":0.5,"messages":[{"role":"user","content":"trace me"}]}`,
		append(bearer(masterKey), userPathHeader, "/team/obs", "X-Session-Id", "sess-trace")...)
	stream := request(t, "POST", url+"/v1/messages",
		`{"model":"mock-chat","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"stream me"}]}`,
		append(bearer(masterKey), "anthropic-version", "2023-06-01")...)
	missing := request(t, "POST", url+"/v1/chat/completions", `{"model":"no-such-model","messages":[{"role":"user","content":"x"}]}`, bearer(masterKey)...)
	if chat.Status != 200 || stream.Status != 200 || missing.Status != 404 {
		t.Fatalf("answers %d %d %d", chat.Status, stream.Status, missing.Status)
	}
	poll(t, 10*time.Second, "the three request spans exported", func() bool {
		return len(recv.find("gen_ai.operation.name", "chat")) >= 4 // two requests' spans, their upstream calls
	})
	var chatSpan *tracepb.Span
	for _, s := range recv.find("modelgate.session_id", "sess-trace") {
		if s.Kind == tracepb.Span_SPAN_KIND_SERVER {
			chatSpan = s
		}
	}
	if chatSpan == nil {
		t.Fatal("no server span for the chat request")
	}
	for key, want := range map[string]string{
		"gen_ai.operation.name": "chat", "gen_ai.provider.name": "mock", "gen_ai.request.model": "mock-chat",
		"gen_ai.response.model": "mock-chat", "gen_ai.request.max_tokens": "50", "gen_ai.request.temperature": "0.5",
		"modelgate.user_path": "/team/obs", "modelgate.cache": "miss", "modelgate.provider": "demo",
	} {
		if got := attr(chatSpan, key); got != want {
			t.Errorf("chat span %s = %q, want %q", key, got, want)
		}
	}
	for _, key := range []string{"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.response.id", "gen_ai.response.finish_reasons"} {
		if attr(chatSpan, key) == "" {
			t.Errorf("chat span has no %s", key)
		}
	}
	calls := recv.children(chatSpan)
	if len(calls) != 1 || calls[0].Kind != tracepb.Span_SPAN_KIND_CLIENT || calls[0].Name != "chat mock-chat" ||
		attr(calls[0], "http.response.status_code") != "200" {
		t.Fatalf("upstream call spans %v", calls)
	}
	var streamCall *tracepb.Span
	for _, s := range recv.find("gen_ai.request.model", "mock-chat") {
		if s.Kind == tracepb.Span_SPAN_KIND_CLIENT && attr(s, "modelgate.time_to_first_token") != "" {
			streamCall = s
		}
	}
	if streamCall == nil {
		t.Error("the streamed request's upstream call has no time to first token")
	}
	refused := recv.find("gen_ai.request.model", "no-such-model")
	if len(refused) != 1 || attr(refused[0], "error.type") != "model_not_found" || refused[0].Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Fatalf("refused request spans %v", refused)
	}
}

// TestTracingFailoverSpans: a request that fails over has one client span
// per upstream call under its span: the failed call with its status and
// error, then the call that answered.
func TestTracingFailoverSpans(t *testing.T) {
	clearEnv(t)
	recv := newOTLPReceiver(t)
	down, upB := newReplay(t, "openai"), newReplay(t, "openai")
	down.Handle("/v1/chat/completions", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":{"message":"down","type":"server_error"}}`))
	})
	cfg := writeFile(t, "failover.yaml", "failover:\n  oa/gpt-4o-mini: [ob/gpt-4o-mini]\n")
	url, _ := startTracedGateway(t, recv, "config_file "+cfg+"\n"+
		providerBlock("oa", "openai", "sk-oa-upstream-key", down.BaseURL())+providerBlock("ob", "openai", "sk-ob-upstream-key", upB.BaseURL()))
	res := request(t, "POST", url+"/v1/chat/completions", `{"model":"oa/gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`,
		append(bearer(masterKey), "X-Session-Id", "sess-failover")...)
	if res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	var span *tracepb.Span
	poll(t, 10*time.Second, "the request's span and its two calls", func() bool {
		for _, s := range recv.find("modelgate.session_id", "sess-failover") {
			if s.Kind == tracepb.Span_SPAN_KIND_SERVER {
				span = s
			}
		}
		return span != nil && len(recv.children(span)) == 2
	})
	if attr(span, "modelgate.provider") != "ob" || attr(span, "error.type") != "" {
		t.Fatalf("request span: provider %q error %q", attr(span, "modelgate.provider"), attr(span, "error.type"))
	}
	calls := recv.children(span)
	if calls[0].StartTimeUnixNano > calls[1].StartTimeUnixNano {
		calls[0], calls[1] = calls[1], calls[0]
	}
	if attr(calls[0], "modelgate.provider") != "oa" || attr(calls[0], "http.response.status_code") != "500" ||
		calls[0].Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || attr(calls[0], "error.type") == "" {
		t.Errorf("failed call span %v", calls[0])
	}
	if attr(calls[1], "modelgate.provider") != "ob" || attr(calls[1], "http.response.status_code") != "200" ||
		attr(calls[1], "server.address") != "127.0.0.1" {
		t.Errorf("answering call span %v", calls[1])
	}
}
