package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
)

// TestAPIEnvRegisteredProvider: with no provider in the Caddyfile,
// GROQ_API_KEY and GROQ_BASE_URL register provider "groq" (and a suffixed
// pair registers "groq-team-b"), which serves chat with the env key.
func TestAPIEnvRegisteredProvider(t *testing.T) {
	apiClearEnv(t)
	u := apiNewReplay(t, "groq")
	b := apiNewReplay(t, "groq")
	t.Setenv("GROQ_API_KEY", "gsk-from-env-777")
	t.Setenv("GROQ_BASE_URL", u.BaseURL())
	t.Setenv("GROQ_TEAM_B_API_KEY", "gsk-team-b-888")
	t.Setenv("GROQ_TEAM_B_BASE_URL", b.BaseURL())
	g := startGateway(t, "")
	client := apiSDK(g, "no-master-key-set")
	want := apiParseFixtureChat(t, "groq", "chat_completion.json")
	// Both instances list the same models; a bare name routes to the first
	// (groq) once both listings are in. Until then it goes to whichever
	// has listed it, so wait for the steady state.
	deadline := time.Now().Add(5 * time.Second)
	for {
		status, _, body := apiHTTP(t, http.MethodGet, g.URL+"/v1/models", "", "")
		if status == 200 && apiJSONHas(body, "llama-3.3-70b-versatile") && apiJSONHas(body, "groq-team-b/llama-3.3-70b-versatile") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("both env providers' listings never arrived: %s", body)
		}
		time.Sleep(10 * time.Millisecond)
	}

	for _, c := range []struct {
		model string
		up    *apiReplay
		key   string
	}{
		{"llama-3.3-70b-versatile", u, "gsk-from-env-777"},
		{"groq/llama-3.3-70b-versatile", u, "gsk-from-env-777"},
		{"groq-team-b/llama-3.3-70b-versatile", b, "gsk-team-b-888"},
	} {
		t.Run(c.model, func(t *testing.T) {
			resp, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
				Model:    c.model,
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
			})
			if err != nil {
				t.Fatalf("chat through the env provider: %v", err)
			}
			if resp.Choices[0].Message.Content != *want.Choices[0].Message.Content || resp.Usage.TotalTokens != want.Usage.Total {
				t.Errorf("got %q / %d tokens", resp.Choices[0].Message.Content, resp.Usage.TotalTokens)
			}
			r := c.up.LastChat(t)
			if got := r.Header.Get("Authorization"); got != "Bearer "+c.key {
				t.Errorf("upstream Authorization = %q, want the env key", got)
			}
			if m := r.JSON(t)["model"]; m != "llama-3.3-70b-versatile" {
				t.Errorf("upstream model = %v", m)
			}
			apiNoSecret(t, r, "no-master-key-set")
		})
	}

	_, _, body := apiHTTP(t, http.MethodGet, g.URL+"/v1/models", "", "")
	var listing struct {
		Data []struct {
			ID      string `json:"id"`
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &listing); err != nil {
		t.Fatalf("listing: %v\n%s", err, body)
	}
	owners := map[string]string{}
	for _, m := range listing.Data {
		owners[m.ID] = m.OwnedBy
	}
	if owners["llama-3.3-70b-versatile"] != "groq" || owners["groq-team-b/llama-3.3-70b-versatile"] != "groq-team-b" {
		t.Errorf("listing owners: %q / %q", owners["llama-3.3-70b-versatile"], owners["groq-team-b/llama-3.3-70b-versatile"])
	}
	if len(listing.Data) != 40 {
		t.Errorf("listing has %d entries, want 2×20", len(listing.Data))
	}
	if rs := u.Requests("/v1/models"); len(rs) == 0 || rs[0].Header.Get("Authorization") != "Bearer gsk-from-env-777" {
		t.Errorf("env provider listing request missing or without the env key")
	}
}

// apiWriteConfigFile writes a YAML config file for config_file.
func apiWriteConfigFile(t *testing.T, yaml string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "modelgate.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAPIListingFailureFallback: a provider whose model listing fails,
// comes back empty or hangs past the listing timeout does not stop the
// other providers from serving, and its configured models are used.
func TestAPIListingFailureFallback(t *testing.T) {
	cases := []struct {
		name    string
		listing func(hangDone *atomic.Int32) http.HandlerFunc
		hang    bool
	}{
		{"listing 500", func(*atomic.Int32) http.HandlerFunc {
			return func(w http.ResponseWriter, _ *http.Request) {
				http.Error(w, `{"error":{"message":"listing broke"}}`, http.StatusInternalServerError)
			}
		}, false},
		{"listing not JSON", func(*atomic.Int32) http.HandlerFunc {
			return func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				_, _ = w.Write([]byte("<html>gateway error</html>"))
			}
		}, false},
		{"listing empty", func(*atomic.Int32) http.HandlerFunc {
			return func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"object":"list","data":[]}`))
			}
		}, false},
		{"listing hangs past the listing timeout", func(done *atomic.Int32) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
					done.Store(1) // cancelled by the gateway's listing timeout
				case <-time.After(20 * time.Second):
					done.Store(2)
				}
			}
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			apiClearEnv(t)
			var hangDone atomic.Int32
			flaky := apiNewReplay(t, "openai")
			flaky.Handle("/v1/models", c.listing(&hangDone))
			good := apiNewReplay(t, "groq")
			cfg := apiWriteConfigFile(t, "server:\n  models_timeout_seconds: 1\n")
			// flaky comes first: a bare model it does not list must still
			// reach the next provider.
			g := startGateway(t, "config_file "+cfg+"\n"+
				apiProvider("flaky", "openai", "sk-flaky", flaky.BaseURL(), "models flaky-a flaky-b")+
				apiProvider("good", "groq", "gsk-good", good.BaseURL()))
			client := apiSDK(g, "x")
			chat := func(model string) error {
				_, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
					Model:    model,
					Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
				})
				return err
			}

			// The good provider's listing arrives and serves at once.
			deadline := time.Now().Add(5 * time.Second)
			for {
				status, _, body := apiHTTP(t, http.MethodGet, g.URL+"/v1/models", "", "")
				if status == 200 && json.Valid(body) && apiJSONHas(body, "llama-3.3-70b-versatile") {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the good provider's models never appeared: %s", body)
				}
				time.Sleep(10 * time.Millisecond)
			}
			start := time.Now()
			if err := chat("llama-3.3-70b-versatile"); err != nil {
				t.Fatalf("good provider while the other's listing fails: %v", err)
			}
			if c.hang {
				if hangDone.Load() != 0 {
					t.Fatalf("hang ended before the check (%d)", hangDone.Load())
				}
				if took := time.Since(start); took > 700*time.Millisecond {
					t.Errorf("good provider's chat took %v while the other listing hung", took)
				}
			}
			// The configured fallback list routes to the failing provider.
			for _, m := range []string{"flaky-a", "flaky/flaky-b"} {
				flaky.Reset()
				if err := chat(m); err != nil {
					t.Fatalf("%s: %v", m, err)
				}
				if got := flaky.LastChat(t).JSON(t)["model"]; got != m[len(m)-7:] {
					t.Errorf("%s: flaky upstream saw model %v", m, got)
				}
			}
			if c.hang {
				deadline := time.Now().Add(5 * time.Second)
				for hangDone.Load() == 0 && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if hangDone.Load() != 1 {
					t.Fatalf("the hanging listing was not cancelled by the 1s listing timeout (state %d)", hangDone.Load())
				}
				if err := chat("flaky-a"); err != nil {
					t.Fatalf("fallback model after the listing timed out: %v", err)
				}
			}
			// After the first listing round an unknown model is refused
			// promptly.
			start = time.Now()
			status, _, body := apiHTTP(t, http.MethodPost, g.URL+"/v1/chat/completions", "",
				`{"model":"not-listed-anywhere","messages":[{"role":"user","content":"hi"}]}`)
			if status != 404 {
				t.Fatalf("unknown model: %d %s", status, body)
			}
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("unknown model answered after %v", took)
			}
			// The listing shows the fallback models under the failing
			// provider.
			_, _, body = apiHTTP(t, http.MethodGet, g.URL+"/v1/models", "", "")
			var listing struct {
				Data []struct {
					ID      string `json:"id"`
					OwnedBy string `json:"owned_by"`
				} `json:"data"`
			}
			if err := json.Unmarshal(body, &listing); err != nil {
				t.Fatal(err)
			}
			owners := map[string]string{}
			for _, m := range listing.Data {
				owners[m.ID] = m.OwnedBy
			}
			if owners["flaky-a"] != "flaky" || owners["flaky-b"] != "flaky" || owners["llama-3.3-70b-versatile"] != "good" {
				t.Errorf("listing owners: flaky-a=%q flaky-b=%q llama=%q", owners["flaky-a"], owners["flaky-b"], owners["llama-3.3-70b-versatile"])
			}
			if len(listing.Data) != 22 {
				t.Errorf("listing has %d entries, want 2 fallback + 20", len(listing.Data))
			}
		})
	}
}

// apiJSONHas reports whether the listing body names id.
func apiJSONHas(body []byte, id string) bool {
	var l struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &l) != nil {
		return false
	}
	for _, m := range l.Data {
		if m.ID == id {
			return true
		}
	}
	return false
}
