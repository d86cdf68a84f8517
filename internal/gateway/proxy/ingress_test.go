package proxy

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate/anthropic"
	"github.com/modelgate/modelgate/internal/platform/sse"
)

// anthropicError decodes an Anthropic error envelope, failing on any
// other body.
func anthropicError(t *testing.T, rec *httptest.ResponseRecorder) (typ, message string) {
	t.Helper()
	var e struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Type != "error" || e.Error.Type == "" {
		t.Fatalf("not an Anthropic error envelope: %s", rec.Body.String())
	}
	return e.Error.Type, e.Error.Message
}

func TestMessagesWithoutMaxTokensRefusedOnAnyTarget(t *testing.T) {
	called := false
	p := &stubProvider{name: "up", answer: func(providers.Endpoint, string, []byte) *http.Response {
		called = true
		return jsonResponse(200, chatAnswer)
	}}
	s := newService(t, p)
	rec, _ := serve(s, "POST", "/v1/messages", `{"model":"m1","messages":[{"role":"user","content":"hi"}]}`)
	typ, msg := anthropicError(t, rec)
	if rec.Code != 400 || typ != "invalid_request_error" || msg != "max_tokens: Field required" {
		t.Fatalf("%d %s %q", rec.Code, typ, msg)
	}
	if called {
		t.Fatal("the request went upstream")
	}
}

func TestTranslatedMessagesIDsAndStreamUsage(t *testing.T) {
	stream := strings.Join(chatUpstream, "")
	p := &stubProvider{name: "up", streamOpt: true, answer: func(_ providers.Endpoint, _ string, body []byte) *http.Response {
		if gjson.GetBytes(body, "stream").Bool() {
			return sseResponse(stream)
		}
		return jsonResponse(200, `{"id":"chatcmpl-42","object":"chat.completion","model":"m1","choices":[{"index":0,
			"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`)
	}}
	s := newService(t, p)
	req := `{"model":"m1","max_tokens":16,"system":"Be brief and friendly.","messages":[{"role":"user","content":"Say hello to the whole wide world"}]}`
	rec, _ := serve(s, "POST", "/v1/messages", req)
	if id := gjson.Get(rec.Body.String(), "id").Str; rec.Code != 200 || id != "msg_42" {
		t.Fatalf("%d id %q: %s", rec.Code, id, rec.Body.String())
	}

	streamReq := strings.Replace(req, `"max_tokens":16,`, `"max_tokens":16,"stream":true,`, 1)
	est, err := anthropic.EstimateMessagesInputTokens([]byte(streamReq))
	if err != nil || est == 0 {
		t.Fatalf("estimate %d %v", est, err)
	}
	rec, info := serve(s, "POST", "/v1/messages", streamReq)
	var start, delta gjson.Result
	for _, ev := range sse.Split(rec.Body.Bytes()) {
		switch ev.Name {
		case "message_start":
			start = gjson.GetBytes(ev.Data, "message")
		case "message_delta":
			delta = gjson.GetBytes(ev.Data, "usage")
		}
	}
	if start.Get("id").Str != "msg_1" {
		t.Fatalf("message_start id %q", start.Get("id").Str)
	}
	if start.Get("usage.input_tokens").Int() != est || start.Get("usage.output_tokens").Int() != 0 {
		t.Fatalf("message_start usage %s, want the estimate %d and output 0", start.Get("usage").Raw, est)
	}
	if delta.Get("input_tokens").Int() != 9 || delta.Get("output_tokens").Int() != 2 {
		t.Fatalf("message_delta usage %s, want the upstream's 9 in, 2 out", delta.Raw)
	}
	if u, ok := info.Usage(); !ok || u.InputTokens != 9 || u.OutputTokens != 2 {
		t.Fatalf("recorded usage %+v %v", u, ok)
	}
}

// truncatedBody is an upstream body that ends before its Content-Length.
type truncatedBody struct{ r io.Reader }

func (b truncatedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func TestNativeMessagesTruncatedBodyAnswersInAnthropicShape(t *testing.T) {
	p := &messagesStub{stubProvider{name: "anth", answer: func(providers.Endpoint, string, []byte) *http.Response {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(truncatedBody{strings.NewReader(`{"id":"msg_1","content":[{"ty`)}), ContentLength: 400}
	}}}
	reg := providers.NewRegistry([]providers.Entry{{Provider: p, Models: []string{"claude"}, Allowlist: true}}, providers.RegistryOptions{})
	reg.Start(context.Background())
	<-reg.Ready()
	s := &Service{Registry: reg, MaxBodyBytes: 1 << 20}
	rec, _ := serve(s, "POST", "/v1/messages", `{"model":"claude","max_tokens":10,"messages":[]}`)
	if typ, _ := anthropicError(t, rec); rec.Code != http.StatusBadGateway || typ != "api_error" {
		t.Fatalf("%d %s", rec.Code, typ)
	}
}

func TestLargeMalformedTranslatedBodyIsInvalidJSON(t *testing.T) {
	p := &stubProvider{name: "up", answer: func(providers.Endpoint, string, []byte) *http.Response { return jsonResponse(200, chatAnswer) }}
	s := newService(t, p)
	body := `{"model":"m1","input":"` + strings.Repeat("x", fullValidationLimit+1024) + `",]`
	rec, _ := serve(s, "POST", "/v1/responses", body)
	if e := errorOf(t, rec); rec.Code != 400 || e["code"] != "invalid_json" {
		t.Fatalf("%d %v", rec.Code, e)
	}
}

func TestNativeMessagesWithoutMaxTokensRefused(t *testing.T) {
	called := false
	p := &messagesStub{stubProvider{name: "an", answer: func(providers.Endpoint, string, []byte) *http.Response {
		called = true
		return jsonResponse(200, `{"id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":1,"output_tokens":1}}`)
	}}}
	s := newService(t, p)
	rec, _ := serve(s, "POST", "/v1/messages", `{"model":"m1","messages":[{"role":"user","content":"hi"}]}`)
	typ, msg := anthropicError(t, rec)
	if rec.Code != 400 || typ != "invalid_request_error" || msg != "max_tokens: Field required" || called {
		t.Fatalf("%d %s %q (upstream called: %v)", rec.Code, typ, msg, called)
	}
	rec, _ = serve(s, "POST", "/v1/messages", `{"model":"m1","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}`)
	if rec.Code != 200 || !called {
		t.Fatalf("with max_tokens: %d %s", rec.Code, rec.Body.String())
	}
}
