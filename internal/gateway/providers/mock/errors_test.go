package mock

import (
	"net/http"
	"testing"

	"github.com/tidwall/gjson"
)

// checkErrorBody checks the OpenAI error shape.
func checkErrorBody(t *testing.T, body string) gjson.Result {
	t.Helper()
	e := mustJSON(t, body).Get("error")
	if e.Get("message").Type != gjson.String || e.Get("message").Str == "" || e.Get("type").Type != gjson.String {
		t.Errorf("error body lacks message/type: %s", body)
	}
	for _, k := range []string{"param", "code"} {
		if v := e.Get(k); !v.Exists() || (v.Type != gjson.Null && v.Type != gjson.String) {
			t.Errorf("error.%s = %q in %s", k, v.Raw, body)
		}
	}
	return e
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"missing model", "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}]}`, 400, ""},
		{"model not a string", "POST", "/v1/chat/completions", `{"model":1,"messages":[{"role":"user","content":"x"}]}`, 400, ""},
		{"unknown model", "POST", "/v1/chat/completions", `{"model":"gpt-9","messages":[{"role":"user","content":"x"}]}`, 404, "model_not_found"},
		{"embedding model for chat", "POST", "/v1/chat/completions", `{"model":"mock-embedding","messages":[{"role":"user","content":"x"}]}`, 404, "model_not_found"},
		{"missing messages", "POST", "/v1/chat/completions", `{"model":"mock-chat"}`, 400, ""},
		{"empty messages", "POST", "/v1/chat/completions", `{"model":"mock-chat","messages":[]}`, 400, ""},
		{"messages not an array", "POST", "/v1/chat/completions", `{"model":"mock-chat","messages":"hi"}`, 400, ""},
		{"message without role", "POST", "/v1/chat/completions", `{"model":"mock-chat","messages":[{"content":"hi"}]}`, 400, ""},
		{"bad max_tokens", "POST", "/v1/chat/completions", `{"model":"mock-chat","max_tokens":0,"messages":[{"role":"user","content":"x"}]}`, 400, ""},
		{"fractional max_tokens", "POST", "/v1/chat/completions", `{"model":"mock-chat","max_tokens":1.5,"messages":[{"role":"user","content":"x"}]}`, 400, ""},
		{"bad stream", "POST", "/v1/chat/completions", `{"model":"mock-chat","stream":"yes","messages":[{"role":"user","content":"x"}]}`, 400, ""},
		{"bad JSON", "POST", "/v1/chat/completions", `{"model":"mock-chat",`, 400, ""},
		{"JSON array body", "POST", "/v1/chat/completions", `[1]`, 400, ""},
		{"empty body", "POST", "/v1/chat/completions", ``, 400, ""},
		{"GET on chat", "GET", "/v1/chat/completions", ``, 405, ""},
		{"POST on models", "POST", "/v1/models", `{}`, 405, ""},
		{"GET on embeddings", "GET", "/embeddings", ``, 405, ""},
		{"unknown path", "GET", "/v1/nope", ``, 404, ""},
		{"unknown path without prefix", "POST", "/completions", `{}`, 404, ""},
		{"v2 prefix", "GET", "/v2/models", ``, 404, ""},
		{"unknown model id", "GET", "/v1/models/gpt-9", ``, 404, "model_not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(t, Options{}, tt.method, tt.path, tt.body)
			if rec.Code != tt.status {
				t.Fatalf("status = %d, want %d; body %s", rec.Code, tt.status, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			e := checkErrorBody(t, rec.Body.String())
			if got := e.Get("code").String(); got != tt.code {
				t.Errorf("code = %q, want %q", got, tt.code)
			}
			if tt.status == http.StatusMethodNotAllowed && rec.Header().Get("Allow") == "" {
				t.Errorf("405 without Allow header")
			}
		})
	}
}

func TestModels(t *testing.T) {
	for _, path := range []string{"/v1/models", "/models", "/v1/models/"} {
		rec := do(t, Options{}, http.MethodGet, path, "")
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: status %d", path, rec.Code)
		}
		resp := mustJSON(t, rec.Body.String())
		if resp.Get("object").Str != "list" {
			t.Errorf("object = %s", resp.Get("object").Raw)
		}
		var ids []string
		for _, m := range resp.Get("data").Array() {
			ids = append(ids, m.Get("id").Str)
			if m.Get("object").Str != "model" || m.Get("owned_by").Str != "mock" || m.Get("created").Int() != modelCreated {
				t.Errorf("model entry %s", m.Raw)
			}
		}
		want := []string{"mock-chat", "mock-reasoner", "mock-embedding", "mock-tts", "mock-transcribe"}
		if len(ids) != len(want) {
			t.Fatalf("ids = %q, want %q", ids, want)
		}
		for i := range want {
			if ids[i] != want[i] {
				t.Errorf("ids = %q, want %q", ids, want)
			}
		}
	}
	rec := do(t, Options{}, http.MethodGet, "/v1/models/mock-embedding", "")
	if m := mustJSON(t, rec.Body.String()); rec.Code != 200 || m.Get("id").Str != "mock-embedding" || m.Get("object").Str != "model" {
		t.Errorf("retrieve model: %d %s", rec.Code, rec.Body)
	}
}
