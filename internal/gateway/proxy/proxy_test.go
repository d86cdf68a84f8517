package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// stubProvider answers every call from a function, without a network.
type stubProvider struct {
	name      string
	streamOpt bool
	answer    func(ep providers.Endpoint, model string, body []byte) *http.Response
	lastBody  []byte
	lastModel string
	// noCopy skips keeping the body, so benchmarks measure the gateway.
	noCopy bool
}

func (p *stubProvider) Name() string            { return p.name }
func (p *stubProvider) Type() string            { return "openai" }
func (p *stubProvider) StreamUsageOption() bool { return p.streamOpt }
func (p *stubProvider) Shape() providers.Shape  { return providers.ShapeChat }
func (p *stubProvider) Supports(ep providers.Endpoint) bool {
	return ep == providers.EndpointChat || ep == providers.EndpointEmbeddings
}
func (p *stubProvider) ListModels(context.Context) ([]providers.Model, error) {
	return []providers.Model{{ID: "m1"}}, nil
}
func (p *stubProvider) Do(_ context.Context, ep providers.Endpoint, model string, body []byte) (*http.Response, error) {
	if !p.noCopy {
		p.lastBody, p.lastModel = append([]byte(nil), body...), model
	}
	return p.answer(ep, model, body), nil
}

func jsonResponse(status int, body string) *http.Response {
	return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body))}
}

func sseResponse(body string) *http.Response {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(strings.NewReader(body)), ContentLength: -1}
}

func newService(t testing.TB, p providers.Provider) *Service {
	reg := providers.NewRegistry([]providers.Entry{{Provider: p, Models: []string{"m1"}}}, providers.RegistryOptions{})
	reg.Start(context.Background())
	<-reg.Ready()
	return &Service{Registry: reg, MaxBodyBytes: 1 << 20}
}

// jsonContentType is the Content-Type the official SDKs send.
var jsonContentType = []string{"application/json"}

func serve(s *Service, method, path, body string) (*httptest.ResponseRecorder, *reqinfo.Info) {
	info := reqinfo.New()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if method == http.MethodPost {
		req.Header["Content-Type"] = jsonContentType
	}
	req = req.WithContext(reqinfo.With(req.Context(), info))
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return rec, info
}

func errorOf(t *testing.T, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	var e struct {
		Error map[string]any `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == nil {
		t.Fatalf("not a gateway error: %s", rec.Body.String())
	}
	return e.Error
}

const chatAnswer = `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7,"prompt_tokens_details":{"cached_tokens":3}}}`

func TestChatPassthroughAndUsage(t *testing.T) {
	p := &stubProvider{name: "up", answer: func(providers.Endpoint, string, []byte) *http.Response { return jsonResponse(200, chatAnswer) }}
	s := newService(t, p)
	body := `{"model":"m1","messages":[{"role":"user","content":"hi"}],"extra":{"kept":true}}`
	rec, info := serve(s, "POST", "/v1/chat/completions", body)
	if rec.Code != 200 || rec.Body.String() != chatAnswer {
		t.Fatalf("got %d %s", rec.Code, rec.Body.String())
	}
	if string(p.lastBody) != body {
		t.Fatalf("body not forwarded byte for byte: %s", p.lastBody)
	}
	u, ok := info.Usage()
	if !ok || u.InputTokens != 5 || u.OutputTokens != 2 || u.TotalTokens != 7 || u.CachedInputTokens != 3 {
		t.Fatalf("usage %+v %v", u, ok)
	}
	if info.ProviderName != "up" || info.ResolvedModel != "m1" {
		t.Fatalf("info %+v", info)
	}
}

func TestProviderPrefixIsStripped(t *testing.T) {
	p := &stubProvider{name: "up", answer: func(providers.Endpoint, string, []byte) *http.Response { return jsonResponse(200, chatAnswer) }}
	s := newService(t, p)
	rec, _ := serve(s, "POST", "/v1/chat/completions", `{"model":"up/some-model","messages":[]}`)
	if rec.Code != 200 || p.lastModel != "some-model" || !bytes.Contains(p.lastBody, []byte(`"model":"some-model"`)) {
		t.Fatalf("got %d, upstream model %q body %s", rec.Code, p.lastModel, p.lastBody)
	}
}

func TestStreamUsageChunkHandling(t *testing.T) {
	stream := "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}],\"usage\":null}\n\n" +
		"data:{\"choices\":[{\"delta\":{\"content\":\"b\"}}],\"usage\":null}\r\n\r\n" +
		"data: {\"usage\":null,\"choices\":[{\"delta\":{\"content\":\"c\"}}]}\n\n" +
		"event: x\nid: 1\ndata: {\"choices\":[{\"delta\":{\"content\":\"d\"}}],\"usage\":null,\"obfuscation\":\"Rm8d\"}\nid: 2\n\n" +
		"data: {\"a\":1,\"usage\":null,\"b\":2}\n\n" +
		"data: {\"a\":1,\"usage\":null,\"b\":\"x\\\"y\"}\n\n" +
		"data: {\"a\":1,\"usage\":null,\"b\":\"x\",\"c\":\"y\"}\n\n" +
		"data: {\"a\":{\"b\":1,\"usage\":null}\ndata: }\n\n" +
		": keep-alive comment\n\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":1,\"total_tokens\":5}}\r\n\r\n" +
		"data: [DONE]\n\n"
	for _, asked := range []bool{false, true} {
		p := &stubProvider{name: "up", streamOpt: true, answer: func(providers.Endpoint, string, []byte) *http.Response { return sseResponse(stream) }}
		s := newService(t, p)
		req := `{"model":"m1","stream":true,"messages":[]}`
		if asked {
			req = `{"model":"m1","stream":true,"stream_options":{"include_usage":true},"messages":[]}`
		}
		rec, info := serve(s, "POST", "/v1/chat/completions", req)
		if !bytes.Contains(p.lastBody, []byte(`"include_usage":true`)) {
			t.Fatalf("upstream not asked for usage: %s", p.lastBody)
		}
		got := rec.Body.String()
		hasUsageChunk := strings.Contains(got, `"choices":[]`)
		if hasUsageChunk != asked {
			t.Fatalf("asked=%v but usage chunk forwarded=%v:\n%s", asked, hasUsageChunk, got)
		}
		if !strings.Contains(got, ": keep-alive comment\n\n") || !strings.HasSuffix(got, "data: [DONE]\n\n") {
			t.Fatalf("events not passed through as sent:\n%q", got)
		}
		// The "usage":null that the gateway's request brought ends each
		// chunk; a client that did not ask gets its chunks without it. One
		// anywhere else in a chunk is left alone.
		// OpenAI pads each chunk with a last string member after it.
		want := "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n" +
			"data:{\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\r\n\r\n" +
			"data: {\"usage\":null,\"choices\":[{\"delta\":{\"content\":\"c\"}}]}\n\n" +
			"event: x\nid: 1\ndata: {\"choices\":[{\"delta\":{\"content\":\"d\"}}],\"obfuscation\":\"Rm8d\"}\nid: 2\n\n" +
			"data: {\"a\":1,\"usage\":null,\"b\":2}\n\n" +
			"data: {\"a\":1,\"usage\":null,\"b\":\"x\\\"y\"}\n\n" +
			"data: {\"a\":1,\"usage\":null,\"b\":\"x\",\"c\":\"y\"}\n\n" +
			"data: {\"a\":{\"b\":1,\"usage\":null}\ndata: }\n\n"
		if asked {
			want = stream[:strings.Index(stream, ": keep-alive")]
		}
		if !strings.HasPrefix(got, want) {
			t.Fatalf("asked=%v: chunks\n%q\nwant them to start\n%q", asked, got, want)
		}
		if u, ok := info.Usage(); !ok || u.TotalTokens != 5 {
			t.Fatalf("usage %+v %v", u, ok)
		}
		if rec.Header().Get("Content-Type") != "text/event-stream" {
			t.Fatalf("content type %q", rec.Header().Get("Content-Type"))
		}
	}
}

// A usage chunk is recorded also when a nested "usage":null comes
// before the chunk's own usage, and a chunk's "usage":null is cut also
// when "usage" appears elsewhere in it.
func TestStreamUsageAfterNestedNull(t *testing.T) {
	stream := "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"usage\":null}],\"usage\":null}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"usage\"}}],\"usage\":null,\"obfuscation\":\"usage\"}\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{},\"usage\":null}],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":1,\"total_tokens\":5}}\n\n" +
		"data: [DONE]\n\n"
	p := &stubProvider{name: "up", streamOpt: true, answer: func(providers.Endpoint, string, []byte) *http.Response { return sseResponse(stream) }}
	rec, info := serve(newService(t, p), "POST", "/v1/chat/completions", `{"model":"m1","stream":true,"messages":[]}`)
	if u, ok := info.Usage(); !ok || u.TotalTokens != 5 {
		t.Fatalf("usage %+v %v", u, ok)
	}
	// Each chunk's own "usage":null is the gateway's asking and is cut,
	// also when "usage" is in a string too; the nested one stays. The
	// usage chunk has a choice, so the client gets it.
	want := "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"usage\":null}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"usage\"}}],\"obfuscation\":\"usage\"}\n\n" +
		stream[strings.Index(stream, "data: {\"choices\":[{\"index\":0"):]
	if got := rec.Body.String(); got != want {
		t.Fatalf("chunks\n%q\nwant\n%q", got, want)
	}
}

func TestUpstreamErrorMapping(t *testing.T) {
	cases := []struct {
		status             int
		body               string
		retryAfter         string
		wantType, wantCode string
		wantInMsg          string
		notInMsg           string
	}{
		{400, `{"error":{"message":"bad thing","type":"invalid_request_error","param":"temperature","code":"bad_code"}}`, "", "invalid_request_error", "bad_code", "bad thing", ""},
		{429, `{"error":{"message":"slow down","type":"rate_limit"}}`, "7", "rate_limit_error", "rate_limit", "slow down", ""},
		{500, `oops not json`, "", "provider_error", "", "Internal Server Error", "oops"},
		{401, `{"error":{"message":"Incorrect API key provided: sk-abc***wxyz"}}`, "", "authentication_error", "", "refused", "sk-abc"},
		{404, `{"error":{"message":"no such model","code":"model_not_found"}}`, "", "not_found_error", "model_not_found", "no such model", ""},
		{503, `[{"error":{"code":503,"message":"overloaded","status":"UNAVAILABLE"}}]`, "", "provider_error", "", "overloaded", ""},
	}
	for _, c := range cases {
		p := &stubProvider{name: "up", answer: func(providers.Endpoint, string, []byte) *http.Response {
			r := jsonResponse(c.status, c.body)
			if c.retryAfter != "" {
				r.Header.Set("Retry-After", c.retryAfter)
			}
			return r
		}}
		rec, _ := serve(newService(t, p), "POST", "/v1/chat/completions", `{"model":"m1","messages":[]}`)
		e := errorOf(t, rec)
		if rec.Code != c.status || e["type"] != c.wantType || e["provider"] != "up" {
			t.Errorf("%d: got %d %v", c.status, rec.Code, e)
		}
		if c.wantCode != "" && e["code"] != c.wantCode {
			t.Errorf("%d: code %v", c.status, e["code"])
		}
		msg, _ := e["message"].(string)
		if !strings.Contains(msg, c.wantInMsg) || (c.notInMsg != "" && strings.Contains(msg, c.notInMsg)) {
			t.Errorf("%d: message %q", c.status, msg)
		}
		if c.retryAfter != "" && rec.Header().Get("Retry-After") != c.retryAfter {
			t.Errorf("%d: Retry-After %q", c.status, rec.Header().Get("Retry-After"))
		}
	}
}

func TestRequestErrors(t *testing.T) {
	p := &stubProvider{name: "up", answer: func(providers.Endpoint, string, []byte) *http.Response { return jsonResponse(200, chatAnswer) }}
	s := newService(t, p)
	s.MaxBodyBytes = 64
	cases := []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"POST", "/v1/chat/completions", `{"model":`, 400, "invalid_json"},
		{"POST", "/v1/chat/completions", ``, 400, "invalid_json"},
		{"POST", "/v1/chat/completions", `[1,2]`, 400, "invalid_json"},
		{"POST", "/v1/chat/completions", `{"messages":[]}`, 400, "missing_required_parameter"},
		{"POST", "/v1/chat/completions", `{"model":"nope"}`, 404, "model_not_found"},
		{"POST", "/v1/chat/completions", `{"model":"m1","pad":"` + strings.Repeat("x", 100) + `"}`, 413, "request_too_large"},
		{"GET", "/v1/chat/completions", ``, 405, "method_not_allowed"},
		{"POST", "/v1/nothing", `{}`, 404, "unknown_route"},
	}
	for _, c := range cases {
		rec, _ := serve(s, c.method, c.path, c.body)
		e := errorOf(t, rec)
		if rec.Code != c.status || e["code"] != c.code || int(e["status_code"].(float64)) != c.status {
			t.Errorf("%s %s %q: got %d %v", c.method, c.path, c.body, rec.Code, e)
		}
	}
}

func TestModelsListing(t *testing.T) {
	a := &stubProvider{name: "a"}
	b := &stubProvider{name: "b"}
	reg := providers.NewRegistry([]providers.Entry{
		{Provider: a, Models: []string{"shared", "only-a", "b/x"}, Allowlist: true},
		{Provider: b, Models: []string{"shared", "x"}, Allowlist: true},
	}, providers.RegistryOptions{})
	s := &Service{Registry: reg}
	rec, _ := serve(s, "GET", "/v1/models", "")
	var out struct {
		Data []modelObject `json:"data"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range out.Data {
		ids = append(ids, m.ID+"@"+m.OwnedBy)
	}
	want := "shared@a only-a@a a/b/x@a b/shared@b x@b"
	if strings.Join(ids, " ") != want {
		t.Fatalf("ids %v, want %s", ids, want)
	}
	// Every listed id routes back to the entry it names.
	for _, m := range out.Data {
		p, _, err := reg.Resolve(context.Background(), m.ID)
		if err != nil || p.Name() != m.OwnedBy {
			t.Fatalf("%s routes to %v (%v)", m.ID, p, err)
		}
	}
}

func TestRequestUsageChunk(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"model":"m","stream":true}`, `{"model":"m","stream":true,"stream_options":{"include_usage":true}}`},
		{"{\"model\":\"m\"}\n", "{\"model\":\"m\",\"stream_options\":{\"include_usage\":true}}\n"},
		{`{}`, `{"stream_options":{"include_usage":true}}`},
		{`{"stream_options":{"include_usage":false},"m":1}`, `{"stream_options":{"include_usage":true},"m":1}`},
		{`{"stream_options":{"include_usage":true}}`, `{"stream_options":{"include_usage":true}}`},
		{`{"stream_options":{}}`, `{"stream_options":{"include_usage":true}}`},
	}
	for _, c := range cases {
		got, parts, err := requestUsageChunk([]byte(c.in), gjson.Get(c.in, "stream_options"), false)
		if err != nil || string(got) != c.want || parts != nil {
			t.Errorf("%s: got %s + %q (%v), want %s", c.in, got, parts, err, c.want)
		}
		// With spare capacity (as readBody leaves it) the member is
		// written in place, with the same result, splice or not.
		for _, splice := range []bool{false, true} {
			roomy := append(make([]byte, 0, len(c.in)+memberHeadroom), c.in...)
			got, parts, err = requestUsageChunk(roomy, gjson.Get(c.in, "stream_options"), splice)
			if err != nil || string(got) != c.want || parts != nil {
				t.Errorf("%s in place: got %s + %q (%v), want %s", c.in, got, parts, err, c.want)
			}
		}
		// A body without room (shared with the audit) is left as it is
		// when the provider can send the member beside it.
		tight := []byte(c.in)
		got, parts, err = requestUsageChunk(tight[:len(tight):len(tight)], gjson.Get(c.in, "stream_options"), true)
		if err != nil || string(tight) != c.in {
			t.Fatalf("%s spliced: %v, body now %s", c.in, err, tight)
		}
		if parts != nil {
			got = bytes.Join(parts, nil)
		}
		if string(got) != c.want {
			t.Errorf("%s spliced: got %s, want %s", c.in, got, c.want)
		}
	}
}

func TestAppendMemberReusesSpareCapacity(t *testing.T) {
	body := append(make([]byte, 0, 64), `{"model":"m"}`...)
	got := appendMember(body, `"x":1`)
	if string(got) != `{"model":"m","x":1}` {
		t.Fatalf("got %s", got)
	}
	if &got[0] != &body[0] {
		t.Error("a body with room was copied")
	}
	tight := []byte(`{"model":"m"}`)
	got = appendMember(tight[:len(tight):len(tight)], `"x":1`)
	if string(got) != `{"model":"m","x":1}` || string(tight) != `{"model":"m"}` {
		t.Errorf("without room: got %s, original now %s", got, tight)
	}
}

// messagesStub is a provider that speaks Anthropic Messages natively.
type messagesStub struct{ stubProvider }

func (p *messagesStub) Shape() providers.Shape { return providers.ShapeMessages }
func (p *messagesStub) Supports(ep providers.Endpoint) bool {
	return ep == providers.EndpointMessages
}

func TestNativeMessagesUsageIsCaptured(t *testing.T) {
	stream := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":10,\"cache_read_input_tokens\":4,\"cache_creation_input_tokens\":2,\"output_tokens\":1}}}\n\n" +
		"event: ping\ndata: {\"type\": \"ping\"}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":7}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	p := &messagesStub{stubProvider{name: "anth", answer: func(providers.Endpoint, string, []byte) *http.Response { return sseResponse(stream) }}}
	reg := providers.NewRegistry([]providers.Entry{{Provider: p, Models: []string{"claude"}, Allowlist: true}}, providers.RegistryOptions{})
	reg.Start(context.Background())
	<-reg.Ready()
	s := &Service{Registry: reg, MaxBodyBytes: 1 << 20}
	rec, info := serve(s, "POST", "/v1/messages", `{"model":"claude","max_tokens":10,"stream":true,"messages":[]}`)
	if rec.Body.String() != stream {
		t.Fatalf("native stream not passed through:\n%q", rec.Body.String())
	}
	u, ok := info.Usage()
	if !ok || u.InputTokens != 16 || u.CachedInputTokens != 4 || u.CacheWriteInputTokens != 2 || u.OutputTokens != 7 || u.TotalTokens != 23 {
		t.Fatalf("usage %+v %v", u, ok)
	}
	body := `{"usage":{"input_tokens":3,"cache_read_input_tokens":1,"output_tokens":2},"content":[]}`
	p.answer = func(providers.Endpoint, string, []byte) *http.Response { return jsonResponse(200, body) }
	_, info = serve(s, "POST", "/v1/messages", `{"model":"claude","max_tokens":10,"messages":[]}`)
	if u, ok := info.Usage(); !ok || u.InputTokens != 4 || u.OutputTokens != 2 || u.TotalTokens != 6 {
		t.Fatalf("body usage %+v %v", u, ok)
	}
}

// TestUnknownModelIsRecorded: a request refused for its model still
// records which model it asked for, so its audit entry shows it.
func TestUnknownModelIsRecorded(t *testing.T) {
	p := &stubProvider{name: "up", answer: func(providers.Endpoint, string, []byte) *http.Response { return jsonResponse(200, chatAnswer) }}
	s := newService(t, p)
	rec, info := serve(s, "POST", "/v1/chat/completions", `{"model":"no-such-model","messages":[]}`)
	if rec.Code != http.StatusNotFound {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	if info.RequestedModel != "no-such-model" || info.ResolvedModel != "" {
		t.Fatalf("requested %q resolved %q", info.RequestedModel, info.ResolvedModel)
	}
}
