package e2e

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestAPIAuth checks the credential rules with a master key configured.
func TestAPIAuth(t *testing.T) {
	g := startMockGateway(t)
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
		{"master key with a suffix", "POST", "/v1/chat/completions", chat, []string{"Authorization", "Bearer " + masterKey + "x"}, 401, "invalid_api_key"},
		{"basic scheme", "POST", "/v1/chat/completions", chat, []string{"Authorization", "Basic " + masterKey}, 401, "invalid_api_key"},
		{"bearer master key", "POST", "/v1/chat/completions", chat, []string{"Authorization", "Bearer " + masterKey}, 200, ""},
		{"lower-case bearer scheme", "POST", "/v1/chat/completions", chat, []string{"Authorization", "bearer " + masterKey}, 200, ""},
		{"x-api-key master key", "POST", "/v1/chat/completions", chat, []string{"X-Api-Key", masterKey}, 200, ""},
		{"models without credential", "GET", "/v1/models", "", nil, 401, "missing_api_key"},
		{"models with x-api-key", "GET", "/v1/models", "", []string{"X-Api-Key", masterKey}, 200, ""},
		{"embeddings without credential", "POST", "/v1/embeddings", `{"model":"mock-embedding","input":"x"}`, nil, 401, "missing_api_key"},
		{"embeddings with bearer", "POST", "/v1/embeddings", `{"model":"mock-embedding","input":"x"}`, []string{"Authorization", "Bearer " + masterKey}, 200, ""},
		{"health without credential", "GET", "/health", "", nil, 200, ""},
		{"health with a wrong credential", "GET", "/health", "", []string{"Authorization", "Bearer wrong"}, 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := request(t, c.method, g.URL+c.path, c.body, c.headers...)
			if res.Status != c.status {
				t.Fatalf("status %d, want %d: %s", res.Status, c.status, res.Body)
			}
			if c.status == 401 {
				e := decodeError(t, 401, res.Body)
				if e.Type != "authentication_error" || orNull(e.Code) != c.code {
					t.Errorf("type %q code %s, want authentication_error %s", e.Type, orNull(e.Code), c.code)
				}
				if strings.Contains(string(res.Body), masterKey) {
					t.Errorf("error echoes the master key: %s", res.Body)
				}
			}
			if c.path == "/health" && strings.TrimSpace(string(res.Body)) != `{"status":"ok"}` {
				t.Errorf("health body = %s", res.Body)
			}
		})
	}

	t.Run("SDK", func(t *testing.T) {
		p := openai.ChatCompletionNewParams{Model: "mock-chat", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("auth")}}
		bad := openaiClient(g, "not-the-key")
		_, err := bad.Chat.Completions.New(context.Background(), p)
		var oe *openai.Error
		if !errors.As(err, &oe) || oe.StatusCode != 401 || oe.Code != "invalid_api_key" || oe.Type != "authentication_error" {
			t.Fatalf("wrong key: %v", err)
		}
		good := openaiClient(g, masterKey)
		resp, err := good.Chat.Completions.New(context.Background(), p)
		if err != nil || resp.Choices[0].Message.Content != "Echo: auth" {
			t.Fatalf("master key: %v %+v", err, resp)
		}
	})
}

// TestAPIAuthMasterKeyFromEnv: GATEWAY_MASTER_KEY alone makes the model
// endpoints need it.
func TestAPIAuthMasterKeyFromEnv(t *testing.T) {
	clearEnv(t)
	t.Setenv("GATEWAY_MASTER_KEY", "env-master-key-42")
	g := startGateway(t, providerBlock("mocky", "mock", "", ""))
	chat := `{"model":"mock-chat","messages":[{"role":"user","content":"x"}]}`
	if res := request(t, "POST", g.URL+"/v1/chat/completions", chat); res.Status != 401 {
		t.Fatalf("no credential: %d %s", res.Status, res.Body)
	}
	if res := request(t, "POST", g.URL+"/v1/chat/completions", chat, bearer("env-master-key-42")...); res.Status != 200 {
		t.Fatalf("env master key: %d %s", res.Status, res.Body)
	}
	if res := request(t, "GET", g.URL+"/health", ""); res.Status != 200 {
		t.Fatalf("health: %d %s", res.Status, res.Body)
	}
}

// TestAPIAuthClientKeyNotForwarded: whichever header the client
// authenticates with, the upstream sees only the provider's key.
func TestAPIAuthClientKeyNotForwarded(t *testing.T) {
	clearEnv(t)
	u := newReplay(t, "openai")
	g := startGateway(t, "master_key "+masterKey+"\n"+providerBlock("openai", "openai", "sk-prov-only", u.BaseURL()))
	for _, hdr := range [][]string{
		{"Authorization", "Bearer " + masterKey},
		{"X-Api-Key", masterKey},
	} {
		t.Run(hdr[0], func(t *testing.T) {
			u.Reset()
			res := request(t, "POST", g.URL+"/v1/chat/completions",
				`{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`, hdr...)
			if res.Status != 200 {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			r := u.LastChat(t)
			if r.Header.Get("Authorization") != "Bearer sk-prov-only" {
				t.Errorf("upstream Authorization = %q", r.Header.Get("Authorization"))
			}
			if r.Header.Get("X-Api-Key") != "" {
				t.Errorf("upstream got x-api-key %q", r.Header.Get("X-Api-Key"))
			}
			noSecret(t, r, masterKey)
		})
	}
}
