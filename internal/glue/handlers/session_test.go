package handlers

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/sessions"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
)

// answered returns an Info whose request reached a provider.
func answeredInfo() *reqinfo.Info {
	info := reqinfo.New()
	info.AddAttempt(reqinfo.Attempt{Provider: "p", StatusCode: 200})
	return info
}

// writeAnswer writes status, content type and body through a
// sessionWriter and returns it.
func writeAnswer(status int, contentType, body string) *sessionWriter {
	sw := &sessionWriter{ResponseWriter: httptest.NewRecorder()}
	sw.Header().Set("Content-Type", contentType)
	sw.WriteHeader(status)
	_, _ = sw.Write([]byte(body))
	return sw
}

func TestSessionOutcome(t *testing.T) {
	want := `tool:ls {"path":"."}`
	for name, tc := range map[string]struct {
		shape       routes.Shape
		ct, body    string
		wantSig     string
		status      int
		uncalled    bool
		wantUncount bool
	}{
		"chat": {shape: routes.ShapeChat, ct: "application/json", status: 200, wantSig: want,
			body: `{"choices":[{"message":{"tool_calls":[{"id":"a","function":{"name":"ls","arguments":"{ \"path\": \".\" }"}}]}}]}`},
		"chat stream": {shape: routes.ShapeChat, ct: "text/event-stream", status: 200, wantSig: want,
			body: "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"ls\",\"arguments\":\"{\\\"path\\\":\"}}]}}]}\n\n" +
				"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\".\\\"}\"}}]}}]}\n\ndata: [DONE]\n\n"},
		"messages stream": {shape: routes.ShapeMessages, ct: "text/event-stream", status: 200, wantSig: want,
			body: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"content\":[]}}\n\n" +
				"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"ls\",\"input\":{}}}\n\n" +
				"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\":\\\".\\\"}\"}}\n\n" +
				"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
				"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"},
		"responses": {shape: routes.ShapeResponses, ct: "application/json", status: 200, wantSig: want,
			body: `{"output":[{"type":"function_call","name":"ls","arguments":"{\"path\":\".\"}"}]}`},
		"text": {shape: routes.ShapeChat, ct: "application/json", status: 200,
			body: `{"choices":[{"message":{"content":"hello"}}]}`},
		"upstream error": {shape: routes.ShapeChat, ct: "application/json", status: 400,
			wantSig: sessions.ErrorSignature(400, "bad_tool", "no such tool"),
			body:    `{"error":{"type":"invalid_request_error","code":"bad_tool","message":"no such tool"}}`},
		"not called": {shape: routes.ShapeChat, ct: "application/json", status: 429, uncalled: true, wantUncount: true,
			body: `{"error":{"type":"rate_limit_error","message":"x"}}`},
	} {
		t.Run(name, func(t *testing.T) {
			info := reqinfo.New()
			if !tc.uncalled {
				info = answeredInfo()
			}
			o := sessionOutcome(info, writeAnswer(tc.status, tc.ct, tc.body), tc.shape)
			if o.Uncounted != tc.wantUncount || o.Signature != tc.wantSig {
				t.Fatalf("outcome %+v, want signature %q uncounted %v", o, tc.wantSig, tc.wantUncount)
			}
		})
	}
}

func TestSessionOutcomeGatewayError(t *testing.T) {
	info := answeredInfo()
	info.ErrorStatus, info.ErrorCode, info.ErrorMessage = 502, "upstream_error", "the provider failed"
	o := sessionOutcome(info, writeAnswer(200, "text/event-stream", "data: {}\n\n"), routes.ShapeChat)
	if o.Signature != sessions.ErrorSignature(502, "upstream_error", "the provider failed") {
		t.Fatalf("signature %q", o.Signature)
	}
	hit := answeredInfo()
	hit.CacheHit = true
	if o := sessionOutcome(hit, writeAnswer(200, "application/json", "{}"), routes.ShapeChat); !o.Uncounted {
		t.Fatal("a cache hit counts")
	}
}

func TestSessionWriterCapsCapture(t *testing.T) {
	sw := writeAnswer(200, "application/json", string(make([]byte, maxSessionCapture+1)))
	if !sw.over || sw.buf != nil {
		t.Fatal("an answer past the cap is kept")
	}
	if o := sessionOutcome(answeredInfo(), sw, routes.ShapeChat); o.Signature != "" || o.Uncounted {
		t.Fatalf("outcome %+v", o)
	}
	rec := httptest.NewRecorder()
	w := &sessionWriter{ResponseWriter: rec}
	if http.NewResponseController(w).Flush() != nil || !rec.Flushed {
		t.Fatal("flush does not reach the client")
	}
}
