package mock

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestChatAnswers(t *testing.T) {
	tests := []struct {
		name       string
		body       string
		wantText   string
		wantFinish string
	}{
		{
			name:       "echo string content",
			body:       `{"model":"mock-chat","messages":[{"role":"system","content":"be nice"},{"role":"user","content":"hello there"}]}`,
			wantText:   "Echo: hello there",
			wantFinish: "stop",
		},
		{
			name:       "echo last user message",
			body:       `{"model":"mock-chat","messages":[{"role":"user","content":"first"},{"role":"assistant","content":"Echo: first"},{"role":"user","content":"second"}]}`,
			wantText:   "Echo: second",
			wantFinish: "stop",
		},
		{
			name:       "multipart content",
			body:       `{"model":"mock-chat","messages":[{"role":"user","content":[{"type":"text","text":"look at"},{"type":"image_url","image_url":{"url":"data:x"}},{"type":"text","text":"this"}]}]}`,
			wantText:   "Echo: look at this",
			wantFinish: "stop",
		},
		{
			name:       "user text is escaped",
			body:       `{"model":"mock-chat","messages":[{"role":"user","content":"quote \" backslash \\ <tag> & \n newline \u2028"}]}`,
			wantText:   "Echo: quote \" backslash \\ <tag> & \n newline \u2028",
			wantFinish: "stop",
		},
		{
			name:       "max_tokens truncates",
			body:       `{"model":"mock-chat","max_tokens":2,"messages":[{"role":"user","content":"one two three four"}]}`,
			wantText:   "Echo: one two",
			wantFinish: "length",
		},
		{
			name:       "max_completion_tokens truncates",
			body:       `{"model":"mock-chat","max_completion_tokens":3,"messages":[{"role":"user","content":"  one   two three four"}]}`,
			wantText:   "Echo:   one   two three",
			wantFinish: "length",
		},
		{
			name:       "max_tokens not reached",
			body:       `{"model":"mock-chat","max_tokens":5,"messages":[{"role":"user","content":"one two"}]}`,
			wantText:   "Echo: one two",
			wantFinish: "stop",
		},
		{
			name:       "tool result",
			body:       `{"model":"mock-chat","tools":[{"type":"function","function":{"name":"f"}}],"messages":[{"role":"user","content":"weather?"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"sunny, 21C"}]}`,
			wantText:   "Tool result received: sunny, 21C",
			wantFinish: "stop",
		},
		{
			name:       "tool result in parts",
			body:       `{"model":"mock-chat","messages":[{"role":"user","content":"x"},{"role":"tool","tool_call_id":"c","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}`,
			wantText:   "Tool result received: a b",
			wantFinish: "stop",
		},
		{
			name:       "tool_choice none echoes",
			body:       `{"model":"mock-reasoner","tool_choice":"none","tools":[{"type":"function","function":{"name":"f"}}],"messages":[{"role":"user","content":"hi"}]}`,
			wantText:   "Echo: hi",
			wantFinish: "stop",
		},
		{
			name:       "empty tools echoes",
			body:       `{"model":"mock-chat","tools":[],"messages":[{"role":"user","content":"hi"}]}`,
			wantText:   "Echo: hi",
			wantFinish: "stop",
		},
		{
			name:       "no user message",
			body:       `{"model":"mock-chat","messages":[{"role":"system","content":"sys"}]}`,
			wantText:   "Echo: ",
			wantFinish: "stop",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(t, Options{}, http.MethodPost, "/v1/chat/completions", tt.body)
			if rec.Code != http.StatusOK {
				t.Fatalf("status = %d, body %s", rec.Code, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			resp := mustJSON(t, rec.Body.String())
			msg := resp.Get("choices.0.message")
			if got := msg.Get("content").String(); got != tt.wantText {
				t.Errorf("content = %q, want %q", got, tt.wantText)
			}
			if got := msg.Get("role").String(); got != "assistant" {
				t.Errorf("role = %q", got)
			}
			if msg.Get("tool_calls").Exists() {
				t.Errorf("unexpected tool_calls: %s", msg.Get("tool_calls").Raw)
			}
			if got := resp.Get("choices.0.finish_reason").String(); got != tt.wantFinish {
				t.Errorf("finish_reason = %q, want %q", got, tt.wantFinish)
			}
			if got := resp.Get("usage.completion_tokens").Int(); got != int64(estimateTokens(tt.wantText)) {
				t.Errorf("completion_tokens = %d, want %d", got, estimateTokens(tt.wantText))
			}
		})
	}
}

func TestChatResponseShape(t *testing.T) {
	body := `{"model":"mock-reasoner","messages":[{"role":"system","content":"abcdefgh"},{"role":"user","content":"hello world"}]}`
	before := time.Now().Unix()
	rec := do(t, Options{}, http.MethodPost, "/chat/completions", body) // no /v1 prefix
	if rec.Code != http.StatusOK {
		t.Fatalf("status = %d, body %s", rec.Code, rec.Body)
	}
	resp := mustJSON(t, rec.Body.String())
	id := resp.Get("id").String()
	if !strings.HasPrefix(id, "chatcmpl-mock-") || len(id) <= len("chatcmpl-mock-") {
		t.Errorf("id = %q", id)
	}
	if got := resp.Get("object").String(); got != "chat.completion" {
		t.Errorf("object = %q", got)
	}
	if got := resp.Get("model").String(); got != "mock-reasoner" {
		t.Errorf("model = %q", got)
	}
	if c := resp.Get("created").Int(); c < before || c > time.Now().Unix() {
		t.Errorf("created = %d, not now", c)
	}
	if n := len(resp.Get("choices").Array()); n != 1 {
		t.Errorf("%d choices", n)
	}
	if got := resp.Get("choices.0.index"); got.Raw != "0" {
		t.Errorf("index = %s", got.Raw)
	}

	// prompt: "abcdefgh" + "hello world" = 19 chars → 5, plus 3 per message → 11.
	// completion: "Echo: hello world" = 17 chars → 5.
	u := resp.Get("usage")
	for path, want := range map[string]int64{
		"prompt_tokens":                              11,
		"completion_tokens":                          5,
		"total_tokens":                               16,
		"prompt_tokens_details.cached_tokens":        0,
		"completion_tokens_details.reasoning_tokens": 0,
	} {
		if v := u.Get(path); !v.Exists() || v.Int() != want {
			t.Errorf("usage.%s = %s, want %d", path, v.Raw, want)
		}
	}

	// Identical requests give identical ids; different ones do not.
	again := mustJSON(t, do(t, Options{}, http.MethodPost, "/v1/chat/completions", body).Body.String())
	if again.Get("id").String() != id {
		t.Errorf("id not deterministic: %q vs %q", again.Get("id").String(), id)
	}
	other := mustJSON(t, do(t, Options{}, http.MethodPost, "/v1/chat/completions", strings.Replace(body, "world", "moon", 1)).Body.String())
	if other.Get("id").String() == id {
		t.Errorf("different requests share id %q", id)
	}
}

func TestChatCustomModels(t *testing.T) {
	opts := Options{Models: []string{"my-model"}}
	ok := do(t, opts, http.MethodPost, "/v1/chat/completions", `{"model":"my-model","messages":[{"role":"user","content":"x"}]}`)
	if ok.Code != http.StatusOK {
		t.Errorf("custom model: status %d", ok.Code)
	}
	gone := do(t, opts, http.MethodPost, "/v1/chat/completions", `{"model":"mock-chat","messages":[{"role":"user","content":"x"}]}`)
	if gone.Code != http.StatusNotFound {
		t.Errorf("default model with custom list: status %d", gone.Code)
	}
}

func TestAPIKey(t *testing.T) {
	h := NewHandler(Options{APIKey: "sk-test"})
	body := `{"model":"mock-chat","messages":[{"role":"user","content":"x"}]}`
	for _, tt := range []struct {
		auth string
		want int
	}{
		{"", http.StatusUnauthorized},
		{"Bearer wrong", http.StatusUnauthorized},
		{"sk-test", http.StatusUnauthorized},
		{"Bearer sk-test", http.StatusOK},
	} {
		req, _ := http.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body))
		if tt.auth != "" {
			req.Header.Set("Authorization", tt.auth)
		}
		rec := serveRequest(h, req)
		if rec.Code != tt.want {
			t.Errorf("Authorization %q: status %d, want %d", tt.auth, rec.Code, tt.want)
		}
		if tt.want == http.StatusUnauthorized {
			e := mustJSON(t, rec.Body.String())
			if e.Get("error.code").String() != "invalid_api_key" {
				t.Errorf("401 body = %s", rec.Body)
			}
		}
	}
}
