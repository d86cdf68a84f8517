package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/modelgate/modelgate/internal/gateway/providers"
)

// TestSDKsSeeBrokenTranslatedStreamsAsErrors: an upstream cut in the
// middle of an event reaches the official SDKs as a stream error, after
// the text that came before it, not as a clean end.
func TestSDKsSeeBrokenTranslatedStreamsAsErrors(t *testing.T) {
	for _, k := range []string{"ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_CUSTOM_HEADERS", "ANTHROPIC_PROFILE",
		"ANTHROPIC_FEDERATION_RULE_ID", "ANTHROPIC_IDENTITY_TOKEN_FILE", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"} {
		t.Setenv(k, "")
	}
	cut := func(events []string) func(providers.Endpoint, string, []byte) *http.Response {
		up := strings.Join(events[:3], "") + events[3][:len(events[3])/2]
		return func(providers.Endpoint, string, []byte) *http.Response {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
				Body: io.NopCloser(strings.NewReader(up)), ContentLength: -1}
		}
	}

	t.Run("anthropic SDK on /v1/messages", func(t *testing.T) {
		srv := httptest.NewServer(newService(t, &stubProvider{name: "up", streamOpt: true, answer: cut(chatUpstream)}))
		defer srv.Close()
		client := anthropic.NewClient(aoption.WithBaseURL(srv.URL+"/"), aoption.WithAPIKey("k"),
			aoption.WithMaxRetries(0), aoption.WithRequestTimeout(20*time.Second))
		stream := client.Messages.NewStreaming(context.Background(), anthropic.MessageNewParams{Model: "m1", MaxTokens: 16,
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}})
		var msg anthropic.Message
		for stream.Next() {
			_ = msg.Accumulate(stream.Current())
		}
		err := stream.Err()
		_ = stream.Close()
		text := ""
		for _, b := range msg.Content {
			text += b.Text
		}
		if err == nil || text != "Hello" || strings.HasPrefix(msg.ID, "chatcmpl") {
			t.Fatalf("text %q id %q, stream error %v; want the text so far and an error", text, msg.ID, err)
		}
	})

	t.Run("openai SDK on /v1/chat/completions", func(t *testing.T) {
		p := &messagesStub{stubProvider{name: "anth", answer: cut(messagesUpstream)}}
		reg := providers.NewRegistry([]providers.Entry{{Provider: p, Models: []string{"m1"}, Allowlist: true}}, providers.RegistryOptions{})
		reg.Start(context.Background())
		<-reg.Ready()
		srv := httptest.NewServer(&Service{Registry: reg, MaxBodyBytes: 1 << 20})
		defer srv.Close()
		client := openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("k"),
			option.WithMaxRetries(0), option.WithRequestTimeout(20*time.Second))
		stream := client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{Model: "m1",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
		content := ""
		for stream.Next() {
			if ch := stream.Current(); len(ch.Choices) > 0 {
				content += ch.Choices[0].Delta.Content
			}
		}
		err := stream.Err()
		_ = stream.Close()
		if err == nil || content != "Hello" {
			t.Fatalf("content %q, stream error %v; want the text so far and an error", content, err)
		}
	})
}
