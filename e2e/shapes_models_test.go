package e2e

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
)

// geminiEmbeddings is what Gemini's OpenAI-compatible embeddings
// endpoint answers (no fixture was recorded for it).
const geminiEmbeddings = `{"object":"list","data":[` +
	`{"object":"embedding","index":0,"embedding":[0.0125,-0.5,0.25,0.75]},` +
	`{"object":"embedding","index":1,"embedding":[-0.125,0.5,0.0,-0.875]}],` +
	`"model":"gemini-embedding-001","usage":{"prompt_tokens":7,"total_tokens":7}}`

// TestShapesGeminiEmbeddings: embeddings through the OpenAI SDK reach
// Gemini's OpenAI-compatible endpoint unchanged and come back unchanged;
// embeddings are not a shape an Anthropic provider serves.
func TestShapesGeminiEmbeddings(t *testing.T) {
	g, ups := startMatrixGateway(t)
	ups.gemini.Handle("/v1/embeddings", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(geminiEmbeddings))
	})
	client := openaiClient(g, masterKey)
	f := familyOf(t, "gemini")
	for _, model := range []string{"gemini/gemini-embedding-001", "gemini-embedding-001"} {
		t.Run(model, func(t *testing.T) {
			ups.gemini.Reset()
			resp, err := client.Embeddings.New(context.Background(), openai.EmbeddingNewParams{
				Model:          model,
				Input:          openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: []string{"hello", "world"}},
				EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat,
			})
			if err != nil {
				t.Fatalf("SDK error: %v", err)
			}
			if len(resp.Data) != 2 || resp.Model != "gemini-embedding-001" || resp.Usage.PromptTokens != 7 || resp.Usage.TotalTokens != 7 {
				t.Fatalf("response = %s", resp.RawJSON())
			}
			if got := resp.Data[0].Embedding; len(got) != 4 || got[0] != 0.0125 || got[3] != 0.75 || resp.Data[1].Embedding[3] != -0.875 {
				t.Errorf("vectors = %v / %v", resp.Data[0].Embedding, resp.Data[1].Embedding)
			}
			if resp.RawJSON() != geminiEmbeddings {
				t.Errorf("answer not passed through unchanged: %s", resp.RawJSON())
			}
			rs := ups.gemini.Requests("/v1/embeddings")
			if len(rs) != 1 {
				t.Fatalf("gemini upstream got %d embeddings requests", len(rs))
			}
			if rs[0].Header.Get("Authorization") != "Bearer "+f.key {
				t.Errorf("upstream Authorization = %q", rs[0].Header.Get("Authorization"))
			}
			noSecret(t, rs[0], masterKey)
			body := rs[0].JSON(t)
			if body["model"] != "gemini-embedding-001" || len(body["input"].([]any)) != 2 || body["encoding_format"] != "float" {
				t.Errorf("upstream body = %s", rs[0].Body)
			}
		})
	}
	t.Run("not on anthropic", func(t *testing.T) {
		res := request(t, "POST", g.URL+"/v1/embeddings",
			`{"model":"anth/`+claudeModel+`","input":"hi"}`, bearer(masterKey)...)
		e := decodeError(t, res.Status, res.Body)
		if res.Status != 400 || e.Type != "invalid_request_error" || orNull(e.Code) != "unsupported_endpoint" {
			t.Errorf("status %d error %+v", res.Status, e)
		}
	})
}

// TestShapesConfiguredModelLists: a provider's configured models are its
// list when the upstream listing fails or is empty (fallback), and its only
// models, whatever the upstream lists, with models_mode allowlist. Checked
// for an OpenAI-compatible and an Anthropic provider, through chat and
// messages.
func TestShapesConfiguredModelLists(t *testing.T) {
	clearEnv(t)
	broken := newReplay(t, "openai") // listing 500
	broken.Handle("/v1/models", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"error":{"message":"listing broke"}}`, http.StatusInternalServerError)
	})
	anthEmpty := newAnthropicReplay(t) // listing empty
	anthEmpty.Handle("/v1/models", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":[],"has_more":false,"first_id":null,"last_id":null}`))
	})
	allowed := newReplay(t, "groq")      // lists 20 models
	anthAllowed := newAnthropicReplay(t) // lists two models
	witness := newReplay(t, "gemini")
	g := startGateway(t, "master_key "+masterKey+"\n"+
		providerBlock("fb", "openai", "sk-fb", broken.BaseURL(), "models fb-a fb-b")+
		providerBlock("fbanth", "anthropic", anthropicKey, anthEmpty.BaseURL(), "models claude-fallback-1")+
		providerBlock("al", "groq", "gsk-al", allowed.BaseURL(), "models llama-3.3-70b-versatile my-alias", "models_mode allowlist")+
		providerBlock("alanth", "anthropic", anthropicKey, anthAllowed.BaseURL(), "models claude-3-5-haiku-20241022", "models_mode allowlist")+
		providerBlock("witness", "gemini", "gm-w", witness.BaseURL()))
	waitListed(t, g, masterKey, "gemini-2.5-flash") // the listing round is done
	poll(t, 5*time.Second, "the fallback providers' listings asked for", func() bool {
		return len(broken.Requests("/v1/models")) > 0 && len(anthEmpty.Requests("/v1/models")) > 0
	})
	time.Sleep(50 * time.Millisecond) // let those answers be processed
	oai := openaiClient(g, masterKey)
	anth := anthropicClient(g, masterKey)
	chat := func(model string) error {
		_, err := oai.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
			Model: model, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
		return err
	}
	messages := func(model string) error {
		_, err := anth.Messages.New(context.Background(), anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: 32,
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}})
		return err
	}

	t.Run("listing", func(t *testing.T) {
		for owner, want := range map[string]string{
			"fb":      "fb-a,fb-b",
			"fbanth":  "claude-fallback-1",
			"al":      "llama-3.3-70b-versatile,my-alias",
			"alanth":  "claude-3-5-haiku-20241022",
			"witness": "",
		} {
			got := strings.Join(listedBy(t, g, owner), ",")
			if owner == "witness" {
				if !strings.Contains(got, "gemini-2.5-flash") {
					t.Errorf("witness lists %s", got)
				}
				continue
			}
			if got != want {
				t.Errorf("%s lists %q, want %q", owner, got, want)
			}
		}
		if n := len(allowed.Requests("/v1/models")) + len(anthAllowed.Requests("/v1/models")); n != 0 {
			t.Errorf("allowlisted providers' listings were fetched %d times; the allowlist needs no listing", n)
		}
	})

	t.Run("fallback routing", func(t *testing.T) {
		for _, m := range []string{"fb-a", "fb/fb-b"} {
			broken.Reset()
			if err := chat(m); err != nil {
				t.Fatalf("chat %s: %v", m, err)
			}
			if got := broken.LastChat(t).JSON(t)["model"]; got != strings.TrimPrefix(m, "fb/") {
				t.Errorf("%s reached the upstream as %v", m, got)
			}
		}
		// /v1/messages onto the fallback-listed OpenAI model (translated).
		broken.Reset()
		if err := messages("fb-a"); err != nil {
			t.Fatalf("messages fb-a: %v", err)
		}
		if got := broken.LastChat(t).JSON(t)["model"]; got != "fb-a" {
			t.Errorf("messages fb-a reached the upstream as %v", got)
		}
		// Chat onto the fallback-listed Anthropic model (translated).
		anthEmpty.Reset()
		if err := chat("claude-fallback-1"); err != nil {
			t.Fatalf("chat claude-fallback-1: %v", err)
		}
		r := anthEmpty.LastMessages(t)
		checkAnthropicHeaders(t, r)
		if got := r.JSON(t)["model"]; got != "claude-fallback-1" {
			t.Errorf("claude-fallback-1 reached the upstream as %v", got)
		}
	})

	t.Run("allowlist routing", func(t *testing.T) {
		allowed.Reset()
		for _, m := range []string{"llama-3.3-70b-versatile", "my-alias", "al/my-alias"} {
			if err := chat(m); err != nil {
				t.Errorf("chat %s: %v", m, err)
			}
		}
		if n := len(allowed.Requests("/v1/chat/completions")); n != 3 {
			t.Errorf("allowlisted upstream got %d chat requests, want 3", n)
		}
		anthAllowed.Reset()
		if err := messages("claude-3-5-haiku-20241022"); err != nil {
			t.Errorf("messages claude-3-5-haiku-20241022: %v", err)
		}
		if n := len(anthAllowed.Requests("/v1/messages")); n != 1 {
			t.Errorf("allowlisted anthropic upstream got %d messages requests, want 1", n)
		}
		// Listed by the upstreams, but not allowlisted: unknown.
		for _, m := range []string{"llama-3.1-8b-instant", "openai/gpt-oss-20b", claudeModel} {
			err := chat(m)
			var oe *openai.Error
			if !errors.As(err, &oe) || oe.StatusCode != 404 || oe.Code != "model_not_found" {
				t.Errorf("chat %s: %v, want 404 model_not_found", m, err)
			}
		}
		err := messages(claudeModel)
		var ae *anthropic.Error
		if !errors.As(err, &ae) || ae.StatusCode != 404 || ae.Type() != "not_found_error" {
			t.Errorf("messages %s: %v, want 404 not_found_error", claudeModel, err)
		}
		if n := len(allowed.Requests("/v1/chat/completions")) + len(anthAllowed.Requests("/v1/messages")); n != 4 {
			t.Errorf("upstreams got %d requests, want only the 4 allowed ones", n)
		}
	})
}

// TestShapesAllowlistPrefixedBypass: with models_mode allowlist,
// "instance/model" for a model outside the list must be refused too.
func TestShapesAllowlistPrefixedBypass(t *testing.T) {

	clearEnv(t)
	allowed := newReplay(t, "groq")
	g := startGateway(t, "master_key "+masterKey+"\n"+
		providerBlock("al", "groq", "gsk-al", allowed.BaseURL(), "models my-alias", "models_mode allowlist"))
	res := request(t, "POST", g.URL+"/v1/chat/completions",
		`{"model":"al/llama-3.1-8b-instant","messages":[{"role":"user","content":"hi"}]}`, bearer(masterKey)...)
	if res.Status != 404 {
		t.Errorf("al/llama-3.1-8b-instant (not allowlisted): status %d, want 404: %s", res.Status, res.Body)
	}
	if n := len(allowed.Requests("/v1/chat/completions")); n != 0 {
		t.Errorf("allowlisted upstream got %d chat requests for a model outside its list", n)
	}
}
