package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// reasoningToolsStream is a chat stream (Groq style: delta.reasoning)
// with reasoning, text and two parallel tool calls, the second one's
// arguments in a later chunk.
func reasoningToolsStream(w http.ResponseWriter, _ *http.Request) {
	head := `{"id":"chatcmpl-shp-p","object":"chat.completion.chunk","created":1,"model":"llama-3.3-70b-versatile","choices":`
	writeEvents(w,
		head+`[{"index":0,"delta":{"role":"assistant","reasoning":"Two cities, "},"finish_reason":null}]}`,
		head+`[{"index":0,"delta":{"reasoning":"two calls."},"finish_reason":null}]}`,
		head+`[{"index":0,"delta":{"content":"Checking both."},"finish_reason":null}]}`,
		head+`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_p1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}}]},"finish_reason":null}]}`,
		head+`[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_p2","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}`,
		head+`[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"location\":\"Rome\"}"}}]},"finish_reason":null}]}`,
		head+`[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":55,"completion_tokens":40,"total_tokens":95}}`,
		"[DONE]")
}

// TestShapesStreamReasoningAndParallelTools: one chat stream with
// reasoning and two tool calls, translated for a /v1/messages client
// (thinking block, text, two tool_use blocks) and a /v1/responses client
// (reasoning item, message, two function_call items).
func TestShapesStreamReasoningAndParallelTools(t *testing.T) {
	g, ups := startMatrixGateway(t)
	ups.groq.Handle("/v1/chat/completions", reasoningToolsStream)
	model := "groq/" + familyOf(t, "groq").model

	t.Run("messages", func(t *testing.T) {
		client := anthropicClient(g, masterKey)
		stream := client.Messages.NewStreaming(context.Background(), anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: 256,
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Paris and Rome?"))},
			Tools:    []anthropic.ToolUnionParam{anthropicWeatherTool}})
		m, _ := accumulateMessage(t, stream)
		var kinds []string
		for _, b := range m.Content {
			kinds = append(kinds, b.Type)
		}
		if strings.Join(kinds, ",") != "thinking,text,tool_use,tool_use" {
			t.Fatalf("blocks = %v", kinds)
		}
		if m.Content[0].Thinking != "Two cities, two calls." || m.Content[1].Text != "Checking both." {
			t.Errorf("thinking %q text %q", m.Content[0].Thinking, m.Content[1].Text)
		}
		for i, want := range []struct{ id, args string }{{"call_p1", `{"location":"Paris"}`}, {"call_p2", `{"location":"Rome"}`}} {
			b := m.Content[2+i]
			if b.ID != want.id || b.Name != "get_weather" || !jsonEqual(string(b.Input), want.args) {
				t.Errorf("tool_use %d = %s %s(%s)", i, b.ID, b.Name, b.Input)
			}
		}
		if m.StopReason != anthropic.StopReasonToolUse || m.Usage.InputTokens != 55 || m.Usage.OutputTokens != 40 {
			t.Errorf("stop %q usage %d/%d", m.StopReason, m.Usage.InputTokens, m.Usage.OutputTokens)
		}
	})

	t.Run("responses", func(t *testing.T) {
		client := openaiClient(g, masterKey)
		text, final, types := streamResponse(t, client, responses.ResponseNewParams{Model: model,
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Weather in Paris and Rome?")},
			Tools: []responses.ToolUnionParam{responsesWeatherTool}})
		if text != "Checking both." || final == nil {
			t.Fatalf("text %q, final %v, events %v", text, final != nil, types)
		}
		var kinds []string
		for _, it := range final.Output {
			kinds = append(kinds, it.Type)
		}
		if strings.Join(kinds, ",") != "reasoning,message,function_call,function_call" {
			t.Fatalf("output items = %v", kinds)
		}
		if final.Output[0].Content[0].Text != "Two cities, two calls." {
			t.Errorf("reasoning = %s", final.Output[0].RawJSON())
		}
		for i, want := range []struct{ id, args string }{{"call_p1", `{"location":"Paris"}`}, {"call_p2", `{"location":"Rome"}`}} {
			it := final.Output[2+i]
			if it.CallID != want.id || it.Name != "get_weather" || !jsonEqual(it.Arguments.OfString, want.args) {
				t.Errorf("function_call %d = %s %s(%s)", i, it.CallID, it.Name, it.Arguments.OfString)
			}
		}
		if final.Usage.InputTokens != 55 || final.Usage.OutputTokens != 40 || final.Usage.TotalTokens != 95 {
			t.Errorf("usage = %s", final.Usage.RawJSON())
		}
	})
}

// TestShapesChatThinkingOntoAnthropic: an Anthropic extended-thinking
// stream reaches a chat client as reasoning_content deltas plus the signed
// block in thinking_blocks; sent back on the assistant turn, the signed
// block reaches Anthropic as a thinking block before the tool_use.
func TestShapesChatThinkingOntoAnthropic(t *testing.T) {
	g, ups := startMatrixGateway(t)
	ups.anth.Script(func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		writeEvents(w,
			"message_start\x00"+`{"type":"message_start","message":{"id":"msg_shp_t","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"cache_read_input_tokens":4,"output_tokens":1}}}`,
			"content_block_start\x00"+`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
			"content_block_delta\x00"+`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me \"think\"."}}`,
			"content_block_delta\x00"+`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"SIG=="}}`,
			"content_block_stop\x00"+`{"type":"content_block_stop","index":0}`,
			"content_block_start\x00"+`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
			"content_block_delta\x00"+`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Done."}}`,
			"content_block_stop\x00"+`{"type":"content_block_stop","index":1}`,
			"message_delta\x00"+`{"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":30}}`,
			"message_stop\x00"+`{"type":"message_stop"}`)
	})
	client := openaiClient(g, masterKey)
	stream := client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{Model: "anth/" + claudeModel,
		ReasoningEffort: "low", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}})
	var acc openai.ChatCompletionAccumulator
	reasoning, blocks := "", ""
	for stream.Next() {
		ch := stream.Current()
		if !acc.AddChunk(ch) {
			t.Fatalf("accumulator refused %s", ch.RawJSON())
		}
		if len(ch.Choices) > 0 {
			var s string
			if raw := ch.Choices[0].Delta.JSON.ExtraFields["reasoning_content"].Raw(); raw != "" && json.Unmarshal([]byte(raw), &s) == nil {
				reasoning += s
			}
			blocks += ch.Choices[0].Delta.JSON.ExtraFields["thinking_blocks"].Raw()
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream error: %v", err)
	}
	_ = stream.Close()
	if reasoning != `Let me "think".` || !jsonEqual(blocks, `[{"type":"thinking","thinking":"Let me \"think\".","signature":"SIG=="}]`) {
		t.Errorf("reasoning_content %q, thinking_blocks %s", reasoning, blocks)
	}
	if acc.Choices[0].Message.Content != "Done." || acc.Choices[0].FinishReason != "length" {
		t.Errorf("content %q finish %q", acc.Choices[0].Message.Content, acc.Choices[0].FinishReason)
	}
	if acc.Usage.PromptTokens != 14 || acc.Usage.PromptTokensDetails.CachedTokens != 4 || acc.Usage.CompletionTokens != 30 {
		t.Errorf("usage %d prompt (%d cached) %d completion; want 14 (4) 30", acc.Usage.PromptTokens,
			acc.Usage.PromptTokensDetails.CachedTokens, acc.Usage.CompletionTokens)
	}

	// The signed block goes back with the tool call it preceded.
	ups.anth.Respond("messages.json")
	res := request(t, "POST", g.URL+"/v1/chat/completions", `{"model":"anth/`+claudeModel+`","reasoning_effort":"low",`+
		`"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}],"messages":[`+
		`{"role":"user","content":"hi"},`+
		`{"role":"assistant","content":null,"reasoning_content":"Let me think.","thinking_blocks":[{"type":"thinking","thinking":"Let me think.","signature":"SIG=="}],`+
		`"tool_calls":[{"id":"toolu_1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},`+
		`{"role":"tool","tool_call_id":"toolu_1","content":"sunny"}]}`, bearer(masterKey)...)
	if res.Status != 200 {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	up := ups.anth.LastMessages(t).JSON(t)
	asst := jsonAt(up, "messages.1")
	if jsonAt(asst, "content.0.type") != "thinking" || jsonAt(asst, "content.0.signature") != "SIG==" ||
		jsonAt(asst, "content.1.type") != "tool_use" || jsonAt(up, "messages.2.content.0.tool_use_id") != "toolu_1" {
		t.Errorf("upstream messages = %v", up["messages"])
	}
}
