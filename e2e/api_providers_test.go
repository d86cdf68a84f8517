package e2e

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
)

// TestAPIEnvRegisteredProvider: with no provider in the Caddyfile,
// GROQ_API_KEY and GROQ_BASE_URL register provider "groq" (and a suffixed
// pair registers "groq-team-b"), which serves chat with the env key.
func TestAPIEnvRegisteredProvider(t *testing.T) {
	clearEnv(t)
	u := newReplay(t, "groq")
	b := newReplay(t, "groq")
	t.Setenv("GROQ_API_KEY", "gsk-from-env-777")
	t.Setenv("GROQ_BASE_URL", u.BaseURL())
	t.Setenv("GROQ_TEAM_B_API_KEY", "gsk-team-b-888")
	t.Setenv("GROQ_TEAM_B_BASE_URL", b.BaseURL())
	g := startGateway(t, "")
	client := openaiClient(g, "no-master-key-set")
	want := chatFixture(t, "groq", "chat_completion.json")
	// Both instances list the same models; a bare name routes to the first
	// (groq) once both listings are in. Until then it goes to whichever
	// has listed it, so wait for the steady state.
	waitListed(t, g, "", "llama-3.3-70b-versatile", "groq-team-b/llama-3.3-70b-versatile")

	for _, c := range []struct {
		model string
		up    *replay
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
			noSecret(t, r, "no-master-key-set")
		})
	}

	listing := listModels(t, g, "")
	owned := owners(listing)
	if owned["llama-3.3-70b-versatile"] != "groq" || owned["groq-team-b/llama-3.3-70b-versatile"] != "groq-team-b" {
		t.Errorf("listing owners: %q / %q", owned["llama-3.3-70b-versatile"], owned["groq-team-b/llama-3.3-70b-versatile"])
	}
	if len(listing) != 40 {
		t.Errorf("listing has %d entries, want 2×20", len(listing))
	}
	if rs := u.Requests("/v1/models"); len(rs) == 0 || rs[0].Header.Get("Authorization") != "Bearer gsk-from-env-777" {
		t.Errorf("env provider listing request missing or without the env key")
	}
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
			clearEnv(t)
			var hangDone atomic.Int32
			flaky := newReplay(t, "openai")
			flaky.Handle("/v1/models", c.listing(&hangDone))
			good := newReplay(t, "groq")
			cfg := writeFile(t, "modelgate.yaml", "server:\n  models_timeout_seconds: 1\n")
			// flaky comes first: a bare model it does not list must still
			// reach the next provider.
			g := startGateway(t, "config_file "+cfg+"\n"+
				providerBlock("flaky", "openai", "sk-flaky", flaky.BaseURL(), "models flaky-a flaky-b")+
				providerBlock("good", "groq", "gsk-good", good.BaseURL()))
			client := openaiClient(g, "x")
			chat := func(model string) error {
				_, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
					Model:    model,
					Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
				})
				return err
			}

			// The good provider's listing arrives and serves at once.
			waitListed(t, g, "", "llama-3.3-70b-versatile")

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
				poll(t, 5*time.Second, "the hanging listing ends", func() bool { return hangDone.Load() != 0 })
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
			res := request(t, "POST", g.URL+"/v1/chat/completions",
				`{"model":"not-listed-anywhere","messages":[{"role":"user","content":"hi"}]}`)
			if res.Status != 404 {
				t.Fatalf("unknown model: %d %s", res.Status, res.Body)
			}
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("unknown model answered after %v", took)
			}
			// The listing shows the fallback models under the failing
			// provider.
			listing := listModels(t, g, "")
			owned := owners(listing)
			if owned["flaky-a"] != "flaky" || owned["flaky-b"] != "flaky" || owned["llama-3.3-70b-versatile"] != "good" {
				t.Errorf("listing owners: flaky-a=%q flaky-b=%q llama=%q", owned["flaky-a"], owned["flaky-b"], owned["llama-3.3-70b-versatile"])
			}
			if len(listing) != 22 {
				t.Errorf("listing has %d entries, want 2 fallback + 20", len(listing))
			}
		})
	}
}
