package e2e

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
)

const lockedKey = "sk-locked-prov-SECRET-9999"

// failingUpstream answers chat completions according to the requested
// model: each model name stands for one upstream failure.
func failingUpstream(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	model := ""
	if i := strings.Index(string(body), `"model":"`); i >= 0 {
		rest := string(body)[i+len(`"model":"`):]
		model = rest[:strings.IndexByte(rest, '"')]
	}
	jsonErr := func(status int, body string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
	switch model {
	case "slow-model":
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
			return
		}
		jsonErr(200, `{"id":"late","object":"chat.completion","choices":[]}`)
	case "limited-model":
		w.Header().Set("Retry-After", "7")
		jsonErr(429, `{"error":{"message":"Rate limit reached for gpt-4o-mini in organization org-x on requests per min (RPM): Limit 3, Used 3.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
	case "broken-model":
		jsonErr(500, `{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`)
	case "overloaded-model":
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(503)
		_, _ = io.WriteString(w, "upstream overloaded, try later")
	case "picky-model":
		jsonErr(400, `{"error":{"message":"bad thing","code":"bad_code","param":"temperature"}}`)
	case "locked-model":
		jsonErr(401, `{"error":{"message":"Incorrect API key provided: `+lockedKey+`. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
	case "forbidden-model":
		jsonErr(403, `{"error":{"message":"Key `+lockedKey+` may not access this project","type":"invalid_request_error","code":"forbidden"}}`)
	case "gone-model":
		jsonErr(404, `{"error":{"message":"The model gone-model does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`)
	default:
		jsonErr(500, `{"error":{"message":"test upstream: unexpected model `+model+`"}}`)
	}
}

// TestAPIErrors checks status, type, code, param, provider and shape of
// every error the gateway produces or maps from an upstream.
func TestAPIErrors(t *testing.T) {
	clearEnv(t)
	u := newReplay(t, "openai")
	u.Handle("/v1/chat/completions", failingUpstream)
	failing := []string{"limited", "broken", "overloaded", "picky", "forbidden", "gone"}
	block := "master_key " + masterKey + "\nmax_request_body 1KB\n" +
		providerBlock("mocky", "mock", "", "") +
		providerBlock("down", "openai", "sk-down", closedURL(t), "models down-model", "models_mode allowlist") +
		providerBlock("slow", "openai", "sk-slow", u.BaseURL(), "models slow-model", "models_mode allowlist", "timeout 1s") +
		providerBlock("locked", "openai", lockedKey, u.BaseURL(), "models locked-model", "models_mode allowlist")
	for _, name := range failing {
		block += providerBlock(name, "openai", "sk-"+name, u.BaseURL(), "models "+name+"-model", "models_mode allowlist")
	}
	g := startGateway(t, block)
	chatURL := g.URL + "/v1/chat/completions"
	chatBody := func(model string) string {
		return `{"model":"` + model + `","messages":[{"role":"user","content":"hi"}]}`
	}
	// exactly 1000 bytes (1KB), the largest accepted body.
	fill := `{"model":"mock-chat","messages":[{"role":"user","content":"` + "%s" + `"}]}`
	atLimit := strings.Replace(fill, "%s", strings.Repeat("a", 1000-len(fill)+2), 1)
	if len(atLimit) != 1000 {
		t.Fatalf("test body is %d bytes", len(atLimit))
	}

	type tc struct {
		name        string
		method, url string
		body        string
		chunked     bool // send the body without Content-Length
		status      int
		typ, code   string // code "<null>" for none
		param       string // "<null>" for none
		provider    string
		msgHas      string
		msgHasNot   []string
		header      map[string]string
		maxDuration time.Duration
	}
	cases := []tc{
		{name: "malformed JSON", method: "POST", url: chatURL, body: `{"model":"mock-chat",`, status: 400, typ: "invalid_request_error", code: "invalid_json", param: "<null>"},
		{name: "body not an object", method: "POST", url: chatURL, body: `["mock-chat"]`, status: 400, typ: "invalid_request_error", code: "invalid_json", param: "<null>"},
		{name: "empty body", method: "POST", url: chatURL, body: "", status: 400, typ: "invalid_request_error", code: "invalid_json", param: "<null>"},
		{name: "missing model", method: "POST", url: chatURL, body: `{"messages":[{"role":"user","content":"hi"}]}`, status: 400, typ: "invalid_request_error", code: "missing_required_parameter", param: "model"},
		{name: "model not a string", method: "POST", url: chatURL, body: `{"model":7,"messages":[]}`, status: 400, typ: "invalid_request_error", param: "model"},
		{name: "missing model on embeddings", method: "POST", url: g.URL + "/v1/embeddings", body: `{"input":"x"}`, status: 400, typ: "invalid_request_error", code: "missing_required_parameter", param: "model"},
		{name: "unknown model", method: "POST", url: chatURL, body: chatBody("no-such-model"), status: 404, typ: "not_found_error", code: "model_not_found", param: "model", msgHas: "no-such-model"},
		{name: "unknown provider prefix", method: "POST", url: chatURL, body: chatBody("nosuch/gpt-4o"), status: 404, typ: "not_found_error", code: "model_not_found", param: "model"},
		{name: "model unknown to a known provider", method: "POST", url: chatURL, body: chatBody("mocky/not-a-mock-model"), status: 404, typ: "not_found_error", provider: "mocky"},
		{name: "body over max_request_body", method: "POST", url: chatURL, body: atLimit[:len(atLimit)-4] + `,"x":1}]}`, status: 413, typ: "invalid_request_error", code: "request_too_large"},
		{name: "chunked body over max_request_body", method: "POST", url: chatURL, body: strings.Repeat(" ", 1500) + chatBody("mock-chat"), chunked: true, status: 413, typ: "invalid_request_error", code: "request_too_large"},
		{name: "GET chat completions", method: "GET", url: chatURL, status: 405, typ: "invalid_request_error", code: "method_not_allowed", header: map[string]string{"Allow": "POST"}},
		{name: "GET embeddings", method: "GET", url: g.URL + "/v1/embeddings", status: 405, typ: "invalid_request_error", code: "method_not_allowed", header: map[string]string{"Allow": "POST"}},
		{name: "POST models", method: "POST", url: g.URL + "/v1/models", body: `{}`, status: 405, typ: "invalid_request_error", code: "method_not_allowed", header: map[string]string{"Allow": "GET, HEAD"}},
		{name: "unknown route", method: "POST", url: g.URL + "/v1/nope", body: `{}`, status: 404, typ: "invalid_request_error", code: "unknown_route"},
		{name: "unknown route GET", method: "GET", url: g.URL + "/v2/models", status: 404, typ: "invalid_request_error", code: "unknown_route"},
		{name: "unreachable upstream", method: "POST", url: chatURL, body: chatBody("down-model"), status: 502, typ: "provider_error", code: "upstream_unreachable", provider: "down", msgHasNot: []string{"sk-down"}},
		{name: "upstream timeout", method: "POST", url: chatURL, body: chatBody("slow-model"), status: 504, typ: "provider_error", code: "upstream_timeout", provider: "slow", maxDuration: 2800 * time.Millisecond},
		{name: "upstream 429", method: "POST", url: chatURL, body: chatBody("limited-model"), status: 429, typ: "rate_limit_error", code: "rate_limit_exceeded", provider: "limited",
			msgHas: "provider limited: Rate limit reached for gpt-4o-mini", header: map[string]string{"Retry-After": "7"}},
		{name: "upstream 429 on a stream request", method: "POST", url: chatURL, body: `{"model":"limited-model","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			status: 429, typ: "rate_limit_error", code: "rate_limit_exceeded", provider: "limited", header: map[string]string{"Retry-After": "7"}},
		{name: "upstream 500", method: "POST", url: chatURL, body: chatBody("broken-model"), status: 500, typ: "provider_error", provider: "broken", msgHas: "provider broken: The server had an error"},
		{name: "upstream 503 plain text", method: "POST", url: chatURL, body: chatBody("overloaded-model"), status: 503, typ: "provider_error", provider: "overloaded", msgHas: "provider overloaded: Service Unavailable", msgHasNot: []string{"upstream overloaded"}},
		{name: "upstream 400", method: "POST", url: chatURL, body: chatBody("picky-model"), status: 400, typ: "invalid_request_error", code: "bad_code", param: "temperature", provider: "picky", msgHas: "provider picky: bad thing"},
		{name: "upstream 404", method: "POST", url: chatURL, body: chatBody("gone-model"), status: 404, typ: "not_found_error", code: "model_not_found", provider: "gone"},
		{name: "upstream 401", method: "POST", url: chatURL, body: chatBody("locked-model"), status: 401, typ: "authentication_error", code: "upstream_auth_failed", provider: "locked",
			msgHasNot: []string{lockedKey, "SECRET-9999", "sk-locked"}},
		{name: "upstream 403", method: "POST", url: chatURL, body: chatBody("forbidden-model"), status: 403, typ: "authentication_error", code: "upstream_auth_failed", provider: "forbidden",
			msgHasNot: []string{lockedKey, "SECRET-9999"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var rd io.Reader
			if c.body != "" {
				rd = strings.NewReader(c.body)
				if c.chunked {
					rd = io.MultiReader(strings.NewReader(c.body))
				}
			}
			req, err := http.NewRequest(c.method, c.url, rd)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+masterKey)
			if c.method == http.MethodPost {
				req.Header.Set("Content-Type", "application/json")
			}
			start := time.Now()
			resp, err := (&http.Client{Timeout: 15 * time.Second}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			took := time.Since(start)
			if c.chunked && req.ContentLength > 0 {
				t.Fatalf("request was sent with a Content-Length")
			}
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.status, body)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q", ct)
			}
			e := decodeError(t, c.status, body)
			if e.Type != c.typ {
				t.Errorf("type = %q, want %q", e.Type, c.typ)
			}
			if c.code != "" && orNull(e.Code) != c.code {
				t.Errorf("code = %s, want %s", orNull(e.Code), c.code)
			}
			if c.param != "" && orNull(e.Param) != c.param {
				t.Errorf("param = %s, want %s", orNull(e.Param), c.param)
			}
			if e.Provider != c.provider {
				t.Errorf("provider = %q, want %q", e.Provider, c.provider)
			}
			if c.msgHas != "" && !strings.Contains(e.Message, c.msgHas) {
				t.Errorf("message %q does not contain %q", e.Message, c.msgHas)
			}
			for _, bad := range c.msgHasNot {
				if strings.Contains(string(body), bad) {
					t.Errorf("response leaks %q: %s", bad, body)
				}
			}
			for k, v := range c.header {
				if got := resp.Header.Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
			if c.maxDuration > 0 && took > c.maxDuration {
				t.Errorf("answered after %v, want within %v", took, c.maxDuration)
			}
		})
	}

	t.Run("body exactly at max_request_body is accepted", func(t *testing.T) {
		res := request(t, "POST", chatURL, atLimit, bearer(masterKey)...)
		if res.Status != 200 {
			t.Fatalf("a %d-byte body under max_request_body 1KB: status %d: %s", len(atLimit), res.Status, res.Body)
		}
	})
	t.Run("one byte over is refused", func(t *testing.T) {
		over := strings.Replace(atLimit, `"content":"`, `"content":"b`, 1)
		res := request(t, "POST", chatURL, over, bearer(masterKey)...)
		if res.Status != 413 {
			t.Fatalf("a %d-byte body: status %d: %s", len(over), res.Status, res.Body)
		}
		decodeError(t, res.Status, res.Body)
	})

	t.Run("SDK sees typed errors", func(t *testing.T) {
		client := openaiClient(g, masterKey)
		for _, c := range []struct {
			model  string
			status int
			typ    string
			code   string
		}{
			{"no-such-model", 404, "not_found_error", "model_not_found"},
			{"limited-model", 429, "rate_limit_error", "rate_limit_exceeded"},
			{"picky-model", 400, "invalid_request_error", "bad_code"},
			{"down-model", 502, "provider_error", "upstream_unreachable"},
		} {
			_, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
				Model:    c.model,
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
			})
			var oe *openai.Error
			if !errors.As(err, &oe) {
				t.Errorf("%s: SDK error %v (%T), want *openai.Error", c.model, err, err)
				continue
			}
			if oe.StatusCode != c.status || oe.Type != c.typ || oe.Code != c.code {
				t.Errorf("%s: SDK error status %d type %q code %q, want %d %q %q", c.model,
					oe.StatusCode, oe.Type, oe.Code, c.status, c.typ, c.code)
			}
			if c.model == "no-such-model" && oe.Param != "model" {
				t.Errorf("SDK error param = %q", oe.Param)
			}
		}
	})
}
