package anthropic

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
)

func TestErrorToGateway(t *testing.T) {
	body := func(typ, msg string) []byte {
		return []byte(`{"type":"error","error":{"type":"` + typ + `","message":"` + msg + `"},"request_id":"req_1"}`)
	}
	cases := []struct {
		status      int
		body        []byte
		typ, substr string
	}{
		{400, body("invalid_request_error", "max_tokens: Field required"), "invalid_request_error", "max_tokens: Field required"},
		{413, body("request_too_large", "Request exceeds the maximum size"), "invalid_request_error", "maximum size"},
		{401, body("authentication_error", "invalid x-api-key"), "authentication_error", "x-api-key"},
		{403, body("permission_error", "no access"), "authentication_error", "no access"},
		{404, body("not_found_error", "model: claude-9"), "not_found_error", "claude-9"},
		{429, body("rate_limit_error", "Number of request tokens has exceeded"), "rate_limit_error", "exceeded"},
		{500, body("api_error", "Internal server error"), "provider_error", "Internal"},
		{529, body("overloaded_error", "Overloaded"), "provider_error", "Overloaded"},
		{402, body("billing_error", "credit balance is too low"), "provider_error", "credit"},
		{504, body("timeout_error", "timed out"), "provider_error", "timed out"},
		{418, body("teapot_error", "short and stout"), "invalid_request_error", "stout"},
		{429, []byte(`upstream busy`), "rate_limit_error", "upstream busy"},
		{503, nil, "provider_error", "Service Unavailable"},
		{401, []byte(`{"message":"bad key"}`), "authentication_error", "bad key"},
		{404, []byte(`{}`), "not_found_error", "Not Found"},
	}
	for _, c := range cases {
		typ, msg := ErrorToGateway(c.status, c.body)
		if typ != c.typ || !strings.Contains(msg, c.substr) {
			t.Errorf("%d %s → %q %q, want %q containing %q", c.status, c.body, typ, msg, c.typ, c.substr)
		}
	}
	if _, msg := ErrorToGateway(500, bytes.Repeat([]byte("x"), 2000)); len(msg) > 512 {
		t.Errorf("message not bounded: %d bytes", len(msg))
	}
}

func TestEstimateMessagesInputTokens(t *testing.T) {
	est := func(body string) int64 {
		t.Helper()
		n, err := EstimateMessagesInputTokens([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// 3 (request) + 4 (one message) + ceil(len("Hello there!")=12 / 4) = 10
	if n := est(`{"model":"m","messages":[{"role":"user","content":"Hello there!"}]}`); n != 10 {
		t.Fatalf("simple: %d", n)
	}
	// system (8 bytes) + two messages (16 + 4 bytes) = 28 bytes = 7 tokens
	if n := est(`{"model":"m","system":[{"type":"text","text":"12345678"}],"messages":[{"role":"user","content":[{"type":"text","text":"0123456789abcdef"}]},{"role":"assistant","content":"abcd"}]}`); n != 3+8+7 {
		t.Fatalf("system: %d", n)
	}
	base := est(`{"model":"m","messages":[{"role":"user","content":"x"}]}`)
	withTools := est(`{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"name":"f","description":"d","input_schema":{"type":"object"}}]}`)
	if withTools-base < estToolsOverhead {
		t.Fatalf("tools add %d", withTools-base)
	}
	withImage := est(`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"x"},{"type":"image","source":{"type":"url","url":"https://x"}}]}]}`)
	if withImage-base != estImageTokens {
		t.Fatalf("image adds %d", withImage-base)
	}
	pdf := base64.StdEncoding.EncodeToString([]byte("%PDF-1.4\n1 0 obj << /Type /Pages /Count 3 >>\n2 0 obj << /Type /Page >>\n3 0 obj << /Type/Page >>\n4 0 obj <</Type /Page>>\n"))
	withPDF := est(`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"x"},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` + pdf + `"}}]}]}`)
	if withPDF-base != 3*estPDFPageTokens {
		t.Fatalf("3-page PDF adds %d", withPDF-base)
	}
	toolTurn := est(`{"model":"m","messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{"a":"12345678"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"result text here"}]}]}]}`)
	if toolTurn <= 3+8 {
		t.Fatalf("tool turn: %d", toolTurn)
	}
	for _, bad := range []string{`x`, `[]`, `{"model":"m"}`} {
		if _, err := EstimateMessagesInputTokens([]byte(bad)); err == nil {
			t.Errorf("%s: want error", bad)
		}
	}
}

func TestSanitizeToolID(t *testing.T) {
	for in, want := range map[string]string{"toolu_01A-b": "toolu_01A-b", "call:1": "call_1", "a.b/c d": "a_b_c_d", "é": "__"} {
		if got := sanitizeToolID(in); got != want {
			t.Errorf("sanitizeToolID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitDataURL(t *testing.T) {
	for _, c := range []struct{ url, media, data string }{
		{"data:image/png;base64,AAA", "image/png", "AAA"},
		{"data:image/JPG;name=x.jpg;base64,BBB", "image/jpeg", "BBB"},
		{"data:text/plain,hello", "", ""},
		{"https://x/y.png", "", ""},
		{"data:image/png;base64", "", ""},
	} {
		media, data, ok := splitDataURL(c.url)
		if media != c.media || data != c.data || ok != (c.media != "") {
			t.Errorf("%s → %q %q %v", c.url, media, data, ok)
		}
	}
}
