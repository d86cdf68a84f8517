package e2e

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestAPIAuth checks the credential rules with a master key configured.
func TestAPIAuth(t *testing.T) {
	g := apiMockGateway(t)
	chat := `{"model":"mock-chat","messages":[{"role":"user","content":"auth"}]}`
	cases := []struct {
		name         string
		method, path string
		body         string
		headers      []string
		status       int
		code         string
	}{
		{"no credential", "POST", "/v1/chat/completions", chat, nil, 401, "missing_api_key"},
		{"wrong bearer", "POST", "/v1/chat/completions", chat, []string{"Authorization", "Bearer wrong-key"}, 401, "invalid_api_key"},
		{"wrong x-api-key", "POST", "/v1/chat/completions", chat, []string{"X-Api-Key", "wrong-key"}, 401, "invalid_api_key"},
		{"master key with a suffix", "POST", "/v1/chat/completions", chat, []string{"Authorization", "Bearer " + apiMasterKey + "x"}, 401, "invalid_api_key"},
		{"basic scheme", "POST", "/v1/chat/completions", chat, []string{"Authorization", "Basic " + apiMasterKey}, 401, "invalid_api_key"},
		{"bearer master key", "POST", "/v1/chat/completions", chat, []string{"Authorization", "Bearer " + apiMasterKey}, 200, ""},
		{"lower-case bearer scheme", "POST", "/v1/chat/completions", chat, []string{"Authorization", "bearer " + apiMasterKey}, 200, ""},
		{"x-api-key master key", "POST", "/v1/chat/completions", chat, []string{"X-Api-Key", apiMasterKey}, 200, ""},
		{"models without credential", "GET", "/v1/models", "", nil, 401, "missing_api_key"},
		{"models with x-api-key", "GET", "/v1/models", "", []string{"X-Api-Key", apiMasterKey}, 200, ""},
		{"embeddings without credential", "POST", "/v1/embeddings", `{"model":"mock-embedding","input":"x"}`, nil, 401, "missing_api_key"},
		{"embeddings with bearer", "POST", "/v1/embeddings", `{"model":"mock-embedding","input":"x"}`, []string{"Authorization", "Bearer " + apiMasterKey}, 200, ""},
		{"health without credential", "GET", "/health", "", nil, 200, ""},
		{"health with a wrong credential", "GET", "/health", "", []string{"Authorization", "Bearer wrong"}, 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, _, body := apiHTTP(t, c.method, g.URL+c.path, "", c.body, c.headers...)
			if status != c.status {
				t.Fatalf("status %d, want %d: %s", status, c.status, body)
			}
			if c.status == 401 {
				e := apiDecodeErr(t, 401, body)
				if e.Type != "authentication_error" || apiStr(e.Code) != c.code {
					t.Errorf("type %q code %s, want authentication_error %s", e.Type, apiStr(e.Code), c.code)
				}
				if strings.Contains(string(body), apiMasterKey) {
					t.Errorf("error echoes the master key: %s", body)
				}
			}
			if c.path == "/health" && strings.TrimSpace(string(body)) != `{"status":"ok"}` {
				t.Errorf("health body = %s", body)
			}
		})
	}

	t.Run("SDK", func(t *testing.T) {
		p := openai.ChatCompletionNewParams{Model: "mock-chat", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("auth")}}
		bad := apiSDK(g, "not-the-key")
		_, err := bad.Chat.Completions.New(context.Background(), p)
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 || apiErr.Code != "invalid_api_key" || apiErr.Type != "authentication_error" {
			t.Fatalf("wrong key: %v", err)
		}
		good := apiSDK(g, apiMasterKey)
		resp, err := good.Chat.Completions.New(context.Background(), p)
		if err != nil || resp.Choices[0].Message.Content != "Echo: auth" {
			t.Fatalf("master key: %v %+v", err, resp)
		}
	})
}

// TestAPIAuthMasterKeyFromEnv: GATEWAY_MASTER_KEY alone makes the model
// endpoints need it.
func TestAPIAuthMasterKeyFromEnv(t *testing.T) {
	apiClearEnv(t)
	t.Setenv("GATEWAY_MASTER_KEY", "env-master-key-42")
	g := startGateway(t, apiProvider("mocky", "mock", "", ""))
	chat := `{"model":"mock-chat","messages":[{"role":"user","content":"x"}]}`
	if status, _, body := apiHTTP(t, http.MethodPost, g.URL+"/v1/chat/completions", "", chat); status != 401 {
		t.Fatalf("no credential: %d %s", status, body)
	}
	if status, _, body := apiHTTP(t, http.MethodPost, g.URL+"/v1/chat/completions", "env-master-key-42", chat); status != 200 {
		t.Fatalf("env master key: %d %s", status, body)
	}
	if status, _, body := apiHTTP(t, http.MethodGet, g.URL+"/health", "", ""); status != 200 {
		t.Fatalf("health: %d %s", status, body)
	}
}

// TestAPIAuthClientKeyNotForwarded: whichever header the client
// authenticates with, the upstream sees only the provider's key.
func TestAPIAuthClientKeyNotForwarded(t *testing.T) {
	apiClearEnv(t)
	u := apiNewReplay(t, "openai")
	g := startGateway(t, "master_key "+apiMasterKey+"\n"+apiProvider("openai", "openai", "sk-prov-only", u.BaseURL()))
	for _, hdr := range [][]string{
		{"Authorization", "Bearer " + apiMasterKey},
		{"X-Api-Key", apiMasterKey},
	} {
		t.Run(hdr[0], func(t *testing.T) {
			u.Reset()
			status, _, body := apiHTTP(t, http.MethodPost, g.URL+"/v1/chat/completions", "",
				`{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`, hdr...)
			if status != 200 {
				t.Fatalf("status %d: %s", status, body)
			}
			r := u.LastChat(t)
			if r.Header.Get("Authorization") != "Bearer sk-prov-only" {
				t.Errorf("upstream Authorization = %q", r.Header.Get("Authorization"))
			}
			if r.Header.Get("X-Api-Key") != "" {
				t.Errorf("upstream got x-api-key %q", r.Header.Get("X-Api-Key"))
			}
			apiNoSecret(t, r, apiMasterKey)
		})
	}
}
