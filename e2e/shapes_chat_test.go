package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

// TestShapesChatToAnthropic sends every Anthropic fixture through
// /v1/chat/completions with the official OpenAI SDK: the gateway
// translates the request to Anthropic Messages and the answer back; the
// SDK must parse it, and text, tool calls, finish reason and usage must
// survive.
func TestShapesChatToAnthropic(t *testing.T) {
	g, ups := startMatrixGateway(t)
	client := openaiClient(g, masterKey)
	model := "anth/" + claudeModel

	cases := []struct {
		fix    string
		params func(p *openai.ChatCompletionNewParams)
		sent   func(t *testing.T, body map[string]any)
		finish string
		check  func(t *testing.T, got *openai.ChatCompletion)
	}{
		{fix: "messages.json", finish: "stop",
			sent: func(t *testing.T, body map[string]any) {
				if body["max_tokens"] != 4096.0 {
					t.Errorf("upstream max_tokens = %v, want the default 4096 (Anthropic requires one)", body["max_tokens"])
				}
				if jsonAt(body, "messages.0.role") != "user" || !strings.Contains(fmt.Sprint(jsonAt(body, "messages.0.content")), "Say hello world") {
					t.Errorf("upstream messages = %v", body["messages"])
				}
			}},
		{fix: "messages_with_tools.json", finish: "tool_calls",
			params: func(p *openai.ChatCompletionNewParams) {
				p.Messages = []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the weather in Paris?")}
				p.Tools = []openai.ChatCompletionToolUnionParam{weatherTool}
			},
			sent: func(t *testing.T, body map[string]any) {
				if jsonAt(body, "tools.0.name") != "get_weather" || jsonAt(body, "tools.0.input_schema.type") != "object" ||
					jsonAt(body, "tools.0.description") != "Current weather for a location" {
					t.Errorf("upstream tools = %v, want an Anthropic tool with input_schema", body["tools"])
				}
			}},
		{fix: "messages_extended_thinking.json", finish: "stop",
			params: func(p *openai.ChatCompletionNewParams) {
				p.Messages = []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Solve x + 5 = 12")}
				p.ReasoningEffort = shared.ReasoningEffortLow
			},
			sent: func(t *testing.T, body map[string]any) {
				if jsonAt(body, "thinking.type") != "enabled" || jsonAt(body, "thinking.budget_tokens") != 2048.0 {
					t.Errorf("upstream thinking = %v, want enabled with budget 2048 for effort low", body["thinking"])
				}
			},
			check: func(t *testing.T, got *openai.ChatCompletion) {
				f := anthropicFixture(t, "messages_extended_thinking.json")
				rc := got.Choices[0].Message.JSON.ExtraFields["reasoning_content"]
				var reasoning string
				if err := json.Unmarshal([]byte(rc.Raw()), &reasoning); err != nil || reasoning != f.Thinking {
					t.Errorf("reasoning_content = %s, want the fixture's thinking text", rc.Raw())
				}
				tb := got.Choices[0].Message.JSON.ExtraFields["thinking_blocks"].Raw()
				containsAll(t, "thinking_blocks", tb, `"signature":"EoQDCkYICxgC`)
			}},
		{fix: "messages_multimodal.json", finish: "stop",
			params: func(p *openai.ChatCompletionNewParams) {
				p.Messages = []openai.ChatCompletionMessageParamUnion{openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
					openai.TextContentPart("Which colors are in this image?"),
					openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: "data:image/png;base64,iVBORw0KGgo="}),
				})}
			},
			sent: func(t *testing.T, body map[string]any) {
				img := jsonAt(body, "messages.0.content.1")
				if jsonAt(img, "type") != "image" || jsonAt(img, "source.type") != "base64" ||
					jsonAt(img, "source.media_type") != "image/png" || jsonAt(img, "source.data") != "iVBORw0KGgo=" {
					t.Errorf("upstream image block = %v", img)
				}
			}},
		{fix: "messages_multi_turn.json", finish: "stop",
			params: func(p *openai.ChatCompletionNewParams) {
				p.Messages = []openai.ChatCompletionMessageParamUnion{
					openai.SystemMessage("Answer with a number only."),
					openai.UserMessage("What is 2 to the power of 3?"),
					openai.AssistantMessage("8"),
					openai.UserMessage("And doubled?"),
				}
			},
			sent: func(t *testing.T, body map[string]any) {
				if !strings.Contains(fmt.Sprint(body["system"]), "Answer with a number only.") {
					t.Errorf("upstream system = %v", body["system"])
				}
				msgs, _ := body["messages"].([]any)
				if len(msgs) != 3 || jsonAt(msgs, "1.role") != "assistant" || jsonAt(msgs, "2.role") != "user" {
					t.Errorf("upstream messages = %v, want user/assistant/user", body["messages"])
				}
			}},
		{fix: "messages_with_params.json", finish: "stop",
			params: func(p *openai.ChatCompletionNewParams) {
				p.Messages = []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Count from 1 to 10")}
				p.Temperature = openai.Float(0.5)
				p.TopP = openai.Float(0.9)
				p.MaxTokens = openai.Int(50)
				p.Stop = openai.ChatCompletionNewParamsStopUnion{OfStringArray: []string{"3"}}
			},
			sent: func(t *testing.T, body map[string]any) {
				if body["temperature"] != 0.5 || body["top_p"] != 0.9 || body["max_tokens"] != 50.0 ||
					fmt.Sprint(body["stop_sequences"]) != "[3]" {
					t.Errorf("upstream params: temperature=%v top_p=%v max_tokens=%v stop_sequences=%v",
						body["temperature"], body["top_p"], body["max_tokens"], body["stop_sequences"])
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.fix, func(t *testing.T) {
			ups.anth.Reset()
			ups.anth.Respond(c.fix)
			want := anthropicFixture(t, c.fix)
			p := openai.ChatCompletionNewParams{
				Model:    model,
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Say hello world")},
			}
			if c.params != nil {
				c.params(&p)
			}
			got, err := client.Chat.Completions.New(context.Background(), p)
			if err != nil {
				t.Fatalf("SDK error: %v", err)
			}
			if got.Object != "chat.completion" || len(got.Choices) != 1 {
				t.Fatalf("object %q with %d choices", got.Object, len(got.Choices))
			}
			if got.Model != claudeModel {
				t.Errorf("model = %q, want the routed model id %q", got.Model, claudeModel)
			}
			ch := got.Choices[0]
			if ch.Message.Content != want.Text {
				t.Errorf("content = %q, fixture text %q", ch.Message.Content, want.Text)
			}
			if string(ch.FinishReason) != c.finish {
				t.Errorf("finish_reason = %q, want %q (fixture stop_reason %q)", ch.FinishReason, c.finish, want.Stop)
			}
			if want.ToolName != "" {
				if len(ch.Message.ToolCalls) != 1 {
					t.Fatalf("SDK saw %d tool calls, want 1", len(ch.Message.ToolCalls))
				}
				tc := ch.Message.ToolCalls[0]
				if tc.ID != want.ToolID || tc.Function.Name != want.ToolName || !jsonEqual(tc.Function.Arguments, want.ToolInput) {
					t.Errorf("tool call = %s %s(%s), fixture %s %s(%s)", tc.ID, tc.Function.Name, tc.Function.Arguments,
						want.ToolID, want.ToolName, want.ToolInput)
				}
			} else if len(ch.Message.ToolCalls) != 0 {
				t.Errorf("unexpected tool calls: %v", ch.Message.ToolCalls)
			}
			prompt := want.Input + want.CacheRead + want.CacheW
			if got.Usage.PromptTokens != prompt || got.Usage.CompletionTokens != want.Output ||
				got.Usage.TotalTokens != prompt+want.Output || got.Usage.PromptTokensDetails.CachedTokens != want.CacheRead {
				t.Errorf("usage = %d/%d/%d cached %d, fixture %d/%d cached %d", got.Usage.PromptTokens, got.Usage.CompletionTokens,
					got.Usage.TotalTokens, got.Usage.PromptTokensDetails.CachedTokens, prompt, want.Output, want.CacheRead)
			}
			if c.check != nil {
				c.check(t, got)
			}
			r := ups.anth.LastMessages(t)
			checkAnthropicHeaders(t, r)
			body := r.JSON(t)
			if body["model"] != claudeModel {
				t.Errorf("upstream model = %v, want %q", body["model"], claudeModel)
			}
			if _, ok := body["stream"]; ok && body["stream"] != false {
				t.Errorf("upstream stream = %v on a non-streamed request", body["stream"])
			}
			if c.sent != nil {
				c.sent(t, body)
			}
		})
	}

	// Cache reads reported by Anthropic become cached_tokens and count in
	// prompt_tokens (the fixtures all report 0; this variant reports some).
	t.Run("cache tokens", func(t *testing.T) {
		ups.anth.Reset()
		var m map[string]any
		_ = json.Unmarshal(fixtures.Must(t, "anthropic", "messages_multi_turn.json"), &m)
		u := m["usage"].(map[string]any)
		u["cache_read_input_tokens"], u["cache_creation_input_tokens"] = 1200, 30
		cached, _ := json.Marshal(m)
		ups.anth.Script(func(w http.ResponseWriter, _ *http.Request, _ []byte) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(cached)
		})
		defer ups.anth.Respond("messages.json")
		got, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
			Model: model, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
		})
		if err != nil {
			t.Fatalf("SDK error: %v", err)
		}
		if got.Usage.PromptTokens != 28+1200+30 || got.Usage.PromptTokensDetails.CachedTokens != 1200 ||
			got.Usage.CompletionTokens != 5 || got.Usage.TotalTokens != 28+1200+30+5 {
			t.Errorf("usage = %s", got.Usage.RawJSON())
		}
		if cw := gjson.Get(got.Usage.RawJSON(), "prompt_tokens_details.cache_write_tokens").Raw; cw != "30" {
			t.Errorf("prompt_tokens_details.cache_write_tokens = %q, want 30", cw)
		}
	})

	// Streams: the recorded Anthropic stream, translated chunk by chunk.
	for _, includeUsage := range []bool{true, false} {
		t.Run(fmt.Sprintf("stream include_usage=%v", includeUsage), func(t *testing.T) {
			ups.anth.Reset()
			p := openai.ChatCompletionNewParams{
				Model:    model,
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Say hello world")},
			}
			if includeUsage {
				p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
			}
			stream := client.Chat.Completions.NewStreaming(context.Background(), p)
			var acc openai.ChatCompletionAccumulator
			chunks, usageChunks := 0, 0
			for stream.Next() {
				chunks++
				ch := stream.Current()
				if ch.JSON.Usage.Valid() && ch.Usage.TotalTokens > 0 {
					usageChunks++
				}
				if !acc.AddChunk(ch) {
					t.Fatalf("accumulator refused chunk %d: %s", chunks, ch.RawJSON())
				}
			}
			if err := stream.Err(); err != nil {
				t.Fatalf("stream error: %v", err)
			}
			_ = stream.Close()
			if len(acc.Choices) != 1 {
				t.Fatalf("accumulator has %d choices", len(acc.Choices))
			}
			if acc.Choices[0].Message.Content != "Hello World" {
				t.Errorf("accumulated content = %q, want %q", acc.Choices[0].Message.Content, "Hello World")
			}
			if acc.Choices[0].FinishReason != "stop" {
				t.Errorf("finish_reason = %q", acc.Choices[0].FinishReason)
			}
			if includeUsage {
				// message_start: input 10; message_delta: output 5.
				if usageChunks != 1 || acc.Usage.PromptTokens != 10 || acc.Usage.CompletionTokens != 5 || acc.Usage.TotalTokens != 15 {
					t.Errorf("usage chunks %d, accumulated usage %d/%d/%d, want one chunk with 10/5/15", usageChunks,
						acc.Usage.PromptTokens, acc.Usage.CompletionTokens, acc.Usage.TotalTokens)
				}
			} else if usageChunks != 0 {
				t.Errorf("client did not ask for usage but got %d usage chunks", usageChunks)
			}
			r := ups.anth.LastMessages(t)
			checkAnthropicHeaders(t, r)
			body := r.JSON(t)
			if body["stream"] != true {
				t.Errorf("upstream stream = %v", body["stream"])
			}
			if _, ok := body["stream_options"]; ok {
				t.Errorf("stream_options sent to Anthropic: %v", body["stream_options"])
			}
		})
	}
}
