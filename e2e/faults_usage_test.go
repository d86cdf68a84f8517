package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// fltMaxInt is the largest int64, the count a broken upstream reported
// that wrapped the usage totals.
const fltMaxInt = "9223372036854775807"

// fltUsageUpstream answers every shape normally but for its usage, which
// the prompt picks: "usage-negative" reports negative counts,
// "usage-huge" counts of 2^63-1, anything else plausible ones.
func fltUsageUpstream(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Model  string `json:"model"`
			Stream bool   `json:"stream"`
		}
		_ = json.Unmarshal(body, &req)
		in, out := "3", "2"
		switch {
		case strings.Contains(string(body), "usage-negative"):
			in, out = "-50", "-7"
		case strings.Contains(string(body), "usage-huge"):
			in, out = fltMaxInt, fltMaxInt
		}
		var ctype, answer string
		switch r.URL.Path {
		case "/v1/responses":
			usage := `{"input_tokens":` + in + `,"output_tokens":` + out + `,"total_tokens":` + out +
				`,"input_tokens_details":{"cached_tokens":` + in + `}}`
			resp := `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"` + req.Model + `",` +
				`"output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"ok","annotations":[]}]}],` +
				`"usage":` + usage + `}`
			ctype, answer = "application/json", resp
			if req.Stream {
				ctype = "text/event-stream"
				answer = "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\",\"output\":[]}}\n\n" +
					"event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":1,\"response\":" + resp + "}\n\n"
			}
		case "/v1/messages":
			usage := `{"input_tokens":` + in + `,"cache_read_input_tokens":` + in + `,"output_tokens":` + out + `}`
			ctype, answer = "application/json", `{"id":"msg_1","type":"message","role":"assistant","model":"`+req.Model+`","content":[{"type":"text","text":"ok"}],`+
				`"stop_reason":"end_turn","stop_sequence":null,"usage":`+usage+`}`
			if req.Stream {
				ctype = "text/event-stream"
				answer = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"" + req.Model + "\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":" + in + ",\"output_tokens\":1}}}\n\n" +
					"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
					"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\n" +
					"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
					"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":" + usage + "}\n\n" +
					"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
			}
		default:
			usage := `{"prompt_tokens":` + in + `,"completion_tokens":` + out + `,"prompt_tokens_details":{"cached_tokens":` + in + `}}`
			ctype, answer = "application/json", `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"`+req.Model+`",`+
				`"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":`+usage+`}`
			if req.Stream {
				ctype = "text/event-stream"
				answer = "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n" +
					"data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":" + usage + "}\n\n" +
					"data: [DONE]\n\n"
			}
		}
		w.Header().Set("Content-Type", ctype)
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestFaultUpstreamUsage: an upstream reporting negative token counts
// and counts of 2^63-1, on every ingress shape, whole and streamed,
// leaves sane records: the usage summary has no negative or wrapped
// total and a cost of cents at most, a $100 budget is charged as little
// and keeps admitting, and the refusals are counted in
// modelgate_usage_rejected_total.
func TestFaultUpstreamUsage(t *testing.T) {
	fltClearEnv(t)
	up := fltUsageUpstream(t)
	provider := func(name, typ, key, model string) string {
		return "provider " + name + " {\n type " + typ + "\n api_key " + key + "\n base_url " + up.URL + "/v1\n models " + model +
			"\n models_mode allowlist\n}\n"
	}
	g := startGateway(t, "master_key "+fltMasterKey+"\n"+provider("uo", "openai", fltOpenAIKey, "gpt-4o-mini")+
		provider("ua", "anthropic", fltAnthropicKey, "claude-haiku-4-5"))
	admin := func(method, path, body string) response {
		return request(t, method, g.URL+path, body, bearer(fltMasterKey)...)
	}
	if res := admin("PUT", "/admin/budgets/%2Ffaults/daily", `{"amount":100}`); res.Status != 200 {
		t.Fatalf("budget: %d %s", res.Status, res.Body)
	}
	shapes := []struct{ path, model string }{
		{"/v1/chat/completions", "uo/gpt-4o-mini"},
		{"/v1/responses", "uo/gpt-4o-mini"},
		{"/v1/messages", "ua/claude-haiku-4-5"},
		{"/v1/messages", "uo/gpt-4o-mini"},              // translated
		{"/v1/chat/completions", "ua/claude-haiku-4-5"}, // translated
	}
	body := func(path, model, prompt string, stream bool) string {
		switch path {
		case "/v1/responses":
			return fmt.Sprintf(`{"model":%q,"stream":%v,"input":%q}`, model, stream, prompt)
		case "/v1/messages":
			return fmt.Sprintf(`{"model":%q,"stream":%v,"max_tokens":16,"messages":[{"role":"user","content":%q}]}`, model, stream, prompt)
		}
		return fmt.Sprintf(`{"model":%q,"stream":%v,"messages":[{"role":"user","content":%q}]}`, model, stream, prompt)
	}
	sent := 0
	for _, sh := range shapes {
		for _, stream := range []bool{false, true} {
			for _, prompt := range []string{"usage-negative", "usage-huge", "usage-huge"} {
				a := fltPost(t, g, sh.path, body(sh.path, sh.model, prompt, stream))
				if a.status != 200 || a.readErr != nil {
					t.Fatalf("%s %s stream=%v %s: %d %v %.300s", sh.path, sh.model, stream, prompt, a.status, a.readErr, a.body)
				}
				sent++
			}
		}
	}

	sum := admin("GET", "/admin/usage/summary", "")
	if sum.Status != 200 {
		t.Fatalf("summary: %d %s", sum.Status, sum.Body)
	}
	s := sum.JSON(t)
	if s["total_requests"] != float64(sent) {
		t.Errorf("summary counts %v requests, want %d: %s", s["total_requests"], sent, sum.Body)
	}
	for _, k := range []string{"total_input_tokens", "total_output_tokens", "total_tokens", "cached_input_tokens", "cache_write_input_tokens"} {
		if v, _ := s[k].(float64); v < 0 || v > 1000 {
			t.Errorf("summary %s = %v, want a small count: %s", k, s[k], sum.Body)
		}
	}
	if c, _ := s["total_cost"].(float64); c < 0 || c > 0.01 {
		t.Errorf("summary total_cost = %v, want cents at most: %s", s["total_cost"], sum.Body)
	}
	spent := -1.0
	for _, b := range admin("GET", "/admin/budgets", "").JSON(t)["budgets"].([]any) {
		if m := b.(map[string]any); m["user_path"] == fltUserPath {
			spent, _ = m["spent"].(float64)
		}
	}
	if spent < 0 || spent > 0.01 {
		t.Errorf("the $100 budget on %s was charged %v, want cents at most", fltUserPath, spent)
	}
	if a := fltPost(t, g, "/v1/chat/completions", body("/v1/chat/completions", "uo/gpt-4o-mini", "hi", false)); a.status != 200 {
		t.Errorf("after the faults the budget refuses: %d %.300s", a.status, a.body)
	}

	metrics := string(request(t, "GET", g.AdminURL+"/metrics", "").Body)
	for _, want := range []struct {
		provider, reason string
		min              int
	}{{"uo", "too_large", 12}, {"ua", "too_large", 8}, {"uo", "negative", 6}, {"ua", "negative", 4}} {
		re := regexp.MustCompile(`modelgate_usage_rejected_total\{provider="` + want.provider + `",reason="` + want.reason + `"\} (\d+)`)
		m := re.FindStringSubmatch(metrics)
		if m == nil {
			t.Errorf("metrics lack modelgate_usage_rejected_total for %s %s", want.provider, want.reason)
			continue
		}
		if n, _ := strconv.Atoi(m[1]); n < want.min {
			t.Errorf("modelgate_usage_rejected_total{provider=%q,reason=%q} = %d, want at least %d", want.provider, want.reason, n, want.min)
		}
	}
}
