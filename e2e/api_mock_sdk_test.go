package e2e

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestAPISDKEmbeddingsMock gets embeddings through the SDK from the mock
// provider in every encoding: 16 dimensions, deterministic, and the same
// vector whichever encoding carried it.
func TestAPISDKEmbeddingsMock(t *testing.T) {
	g := startMockGateway(t)
	client := openaiClient(g, masterKey)
	embed := func(t *testing.T, model string, format openai.EmbeddingNewParamsEncodingFormat, input ...string) []openai.Embedding {
		t.Helper()
		p := openai.EmbeddingNewParams{Model: model, EncodingFormat: format}
		if len(input) == 1 {
			p.Input = openai.EmbeddingNewParamsInputUnion{OfString: openai.String(input[0])}
		} else {
			p.Input = openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: input}
		}
		resp, err := client.Embeddings.New(context.Background(), p)
		if err != nil {
			t.Fatalf("SDK embeddings (%q): %v", format, err)
		}
		if len(resp.Data) != len(input) {
			t.Fatalf("got %d embeddings for %d inputs", len(resp.Data), len(input))
		}
		if resp.Usage.PromptTokens <= 0 || resp.Usage.TotalTokens < resp.Usage.PromptTokens {
			t.Errorf("embedding usage = %+v", resp.Usage)
		}
		for i, d := range resp.Data {
			if d.Index != int64(i) {
				t.Errorf("data[%d].index = %d", i, d.Index)
			}
			if len(d.Embedding) != 16 {
				t.Fatalf("data[%d] has %d dimensions, want 16 (format %q)", i, len(d.Embedding), format)
			}
		}
		return resp.Data
	}
	same := func(a, b []float64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-6*math.Max(1, math.Abs(a[i])) {
				return false
			}
		}
		return true
	}

	ref := embed(t, "mock-embedding", openai.EmbeddingNewParamsEncodingFormatFloat, "the quick brown fox")[0].Embedding
	nonZero := false
	for _, v := range ref {
		if v != 0 {
			nonZero = true
		}
	}
	if !nonZero {
		t.Fatal("embedding is all zeros")
	}
	cases := []struct {
		name   string
		model  string
		format openai.EmbeddingNewParamsEncodingFormat
	}{
		{"float again", "mock-embedding", openai.EmbeddingNewParamsEncodingFormatFloat},
		{"base64 decoded by the SDK", "mock-embedding", openai.EmbeddingNewParamsEncodingFormatBase64},
		{"SDK default encoding", "mock-embedding", ""},
		{"provider-prefixed model", "demo/mock-embedding", openai.EmbeddingNewParamsEncodingFormatBase64},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := embed(t, c.model, c.format, "the quick brown fox")[0].Embedding
			if !same(got, ref) {
				t.Fatalf("same input gave a different vector:\n got %v\nwant %v", got, ref)
			}
		})
	}
	t.Run("batch", func(t *testing.T) {
		data := embed(t, "mock-embedding", openai.EmbeddingNewParamsEncodingFormatBase64, "the quick brown fox", "something else entirely")
		if !same(data[0].Embedding, ref) {
			t.Errorf("batched input 0 differs from the single embedding")
		}
		if same(data[1].Embedding, ref) {
			t.Errorf("different inputs gave the same vector")
		}
	})
	t.Run("raw base64 on the wire", func(t *testing.T) {
		res := request(t, "POST", g.URL+"/v1/embeddings",
			`{"model":"mock-embedding","input":"the quick brown fox","encoding_format":"base64"}`, bearer(masterKey)...)
		if res.Status != 200 {
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
		var resp struct {
			Data []struct {
				Embedding json.RawMessage `json:"embedding"`
			} `json:"data"`
		}
		if err := json.Unmarshal(res.Body, &resp); err != nil || len(resp.Data) != 1 {
			t.Fatalf("body: %v %s", err, res.Body)
		}
		var s string
		if err := json.Unmarshal(resp.Data[0].Embedding, &s); err != nil || len(s) == 0 {
			t.Fatalf("embedding is not a base64 string: %s", resp.Data[0].Embedding)
		}
	})
}

// TestAPISDKToolCallsMock runs a full tool round trip through the SDK
// against the mock provider: a tool call, then the tool's result back,
// then a final answer containing it; and the same tool call streamed.
func TestAPISDKToolCallsMock(t *testing.T) {
	g := startMockGateway(t)
	client := openaiClient(g, masterKey)

	// The mock calls a tool when the last user message carries its trigger.
	question := "What is the weather in Paris? mock:call"
	params := openai.ChatCompletionNewParams{
		Model:    "mock-chat",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(question)},
		Tools:    []openai.ChatCompletionToolUnionParam{weatherTool},
	}
	first, err := client.Chat.Completions.New(context.Background(), params)
	if err != nil {
		t.Fatalf("first turn: %v", err)
	}
	if len(first.Choices) != 1 {
		t.Fatalf("%d choices", len(first.Choices))
	}
	msg := first.Choices[0].Message
	if first.Choices[0].FinishReason != "tool_calls" || len(msg.ToolCalls) != 1 {
		t.Fatalf("want one tool call, got finish %q and %d calls (content %q)", first.Choices[0].FinishReason, len(msg.ToolCalls), msg.Content)
	}
	call := msg.ToolCalls[0]
	if call.Type != "function" || call.Function.Name != "get_weather" || call.ID == "" {
		t.Fatalf("tool call = %+v", call)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(call.Function.Arguments), &args); err != nil {
		t.Fatalf("arguments are not JSON: %q", call.Function.Arguments)
	}
	if _, ok := args["location"].(string); !ok {
		t.Fatalf("arguments lack the required string location: %q", call.Function.Arguments)
	}
	if first.Usage.PromptTokens <= 0 || first.Usage.CompletionTokens <= 0 || first.Usage.TotalTokens != first.Usage.PromptTokens+first.Usage.CompletionTokens {
		t.Errorf("usage = %+v", first.Usage)
	}

	result := "Sunny and 22 degrees in Paris"
	params.Messages = append(params.Messages, msg.ToParam(), openai.ToolMessage(result, call.ID))
	second, err := client.Chat.Completions.New(context.Background(), params)
	if err != nil {
		t.Fatalf("second turn: %v", err)
	}
	if len(second.Choices) != 1 || len(second.Choices[0].Message.ToolCalls) != 0 {
		t.Fatalf("second turn should answer in text: %+v", second.Choices)
	}
	if !strings.Contains(second.Choices[0].Message.Content, result) {
		t.Fatalf("final answer %q does not contain the tool result %q", second.Choices[0].Message.Content, result)
	}
	if second.Choices[0].FinishReason != "stop" {
		t.Errorf("final finish_reason = %q", second.Choices[0].FinishReason)
	}

	t.Run("streamed", func(t *testing.T) {
		p := params
		p.Messages = params.Messages[:1]
		stream := client.Chat.Completions.NewStreaming(context.Background(), p)
		var acc openai.ChatCompletionAccumulator
		var finished []openai.FinishedChatCompletionToolCall
		for stream.Next() {
			if !acc.AddChunk(stream.Current()) {
				t.Fatal("accumulator refused a chunk")
			}
			if tc, ok := acc.JustFinishedToolCall(); ok {
				finished = append(finished, tc)
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatalf("stream: %v", err)
		}
		if len(finished) != 1 || finished[0].Name != "get_weather" || finished[0].Arguments != call.Function.Arguments {
			t.Fatalf("streamed tool calls = %+v, want get_weather(%s)", finished, call.Function.Arguments)
		}
		if acc.Usage.TotalTokens != 0 {
			t.Errorf("client did not ask for usage but the accumulator saw %+v", acc.Usage)
		}
	})
}
