package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// Multi-turn tool use, checked turn by turn against scripted upstreams:
// the model calls a tool, the client runs it and sends the result, the
// model answers.

const (
	weatherArgs   = `{"location":"Paris","unit":"celsius"}`
	weatherResult = "18 degrees C, sunny"
	weatherAnswer = "It is 18 degrees and sunny in Paris."
)

// chatScript is a scripted OpenAI-compatible chat upstream: without a
// tool message in the conversation it calls get_weather (with some text
// first), after one it answers in text. Streams split the arguments over
// several chunks and end with a usage chunk.
func chatScript(callID string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Stream   bool `json:"stream"`
			Messages []struct {
				Role string `json:"role"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(body, &req)
		answered := len(req.Messages) > 0 && req.Messages[len(req.Messages)-1].Role == "tool"
		argsJSON, _ := json.Marshal(weatherArgs)
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			if answered {
				fmt.Fprintf(w, `{"id":"chatcmpl-shp-2","object":"chat.completion","created":1,"model":"gpt-4o-mini",`+
					`"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],`+
					`"usage":{"prompt_tokens":90,"completion_tokens":12,"total_tokens":102}}`, weatherAnswer)
				return
			}
			fmt.Fprintf(w, `{"id":"chatcmpl-shp-1","object":"chat.completion","created":1,"model":"gpt-4o-mini",`+
				`"choices":[{"index":0,"message":{"role":"assistant","content":"Let me check.","tool_calls":[`+
				`{"id":%q,"type":"function","function":{"name":"get_weather","arguments":%s}}]},"finish_reason":"tool_calls"}],`+
				`"usage":{"prompt_tokens":60,"completion_tokens":20,"total_tokens":80}}`, callID, argsJSON)
			return
		}
		head := `{"id":"chatcmpl-shp-s","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":`
		if answered {
			writeEvents(w,
				head+`[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
				head+`[{"index":0,"delta":{"content":"It is 18 degrees "},"finish_reason":null}]}`,
				head+`[{"index":0,"delta":{"content":"and sunny in Paris."},"finish_reason":null}]}`,
				head+`[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
				head+`[],"usage":{"prompt_tokens":90,"completion_tokens":12,"total_tokens":102}}`,
				"[DONE]")
			return
		}
		writeEvents(w,
			head+`[{"index":0,"delta":{"role":"assistant","content":"Let me check."},"finish_reason":null}]}`,
			head+`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"`+callID+`","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}`,
			head+`[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"location\":"}}]},"finish_reason":null}]}`,
			head+`[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\",\"unit\":\"celsius\"}"}}]},"finish_reason":null}]}`,
			head+`[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			head+`[],"usage":{"prompt_tokens":60,"completion_tokens":20,"total_tokens":80}}`,
			"[DONE]")
	}
}

// TestShapesMultiTurnMessagesOntoOpenAI: an Anthropic SDK client holds a
// tool-use conversation through /v1/messages with an OpenAI upstream.
func TestShapesMultiTurnMessagesOntoOpenAI(t *testing.T) {
	g, ups := startMatrixGateway(t)
	const callID = "call_shpWeather01"
	ups.openai.Handle("/v1/chat/completions", chatScript(callID))
	client := anthropicClient(g, masterKey)
	f := familyOf(t, "openai")
	model := "openai/" + f.model

	for _, streamed := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", streamed), func(t *testing.T) {
			ups.openai.Reset()
			send := func(p anthropic.MessageNewParams) *anthropic.Message {
				t.Helper()
				if !streamed {
					m, err := client.Messages.New(context.Background(), p)
					if err != nil {
						t.Fatalf("SDK error: %v", err)
					}
					return m
				}
				m, _ := accumulateMessage(t, client.Messages.NewStreaming(context.Background(), p))
				return &m
			}
			conv := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What is the weather in Paris?"))}
			p := anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: 512, Messages: conv,
				Tools: []anthropic.ToolUnionParam{anthropicWeatherTool}}

			// Turn 1: the model calls the tool.
			m1 := send(p)
			text, _, tools := messageParts(m1)
			if text != "Let me check." || m1.StopReason != anthropic.StopReasonToolUse || len(tools) != 1 {
				t.Fatalf("turn 1: text %q stop %q tool_use blocks %d", text, m1.StopReason, len(tools))
			}
			if tools[0].ID != callID || tools[0].Name != "get_weather" || !jsonEqual(string(tools[0].Input), weatherArgs) {
				t.Errorf("turn 1 tool_use = %s %s(%s)", tools[0].ID, tools[0].Name, tools[0].Input)
			}
			if m1.Usage.InputTokens != 60 || m1.Usage.OutputTokens != 20 {
				t.Errorf("turn 1 usage = %d/%d, want 60/20", m1.Usage.InputTokens, m1.Usage.OutputTokens)
			}
			up1 := checkUpstreamChat(t, f, ups.openai.LastChat(t))
			if msgs, _ := up1["messages"].([]any); len(msgs) != 1 || jsonAt(up1, "tools.0.function.name") != "get_weather" {
				t.Errorf("turn 1 upstream messages %v tools %v", up1["messages"], up1["tools"])
			}

			// Turn 2: the client sends the tool result.
			p.Messages = append(conv, m1.ToParam(),
				anthropic.NewUserMessage(anthropic.NewToolResultBlock(tools[0].ID, weatherResult, false)))
			m2 := send(p)
			text, _, tools = messageParts(m2)
			if text != weatherAnswer || m2.StopReason != anthropic.StopReasonEndTurn || len(tools) != 0 {
				t.Errorf("turn 2: text %q stop %q tools %d", text, m2.StopReason, len(tools))
			}
			if m2.Usage.InputTokens != 90 || m2.Usage.OutputTokens != 12 {
				t.Errorf("turn 2 usage = %d/%d, want 90/12", m2.Usage.InputTokens, m2.Usage.OutputTokens)
			}
			up2 := checkUpstreamChat(t, f, ups.openai.LastChat(t))
			msgs, _ := up2["messages"].([]any)
			if len(msgs) != 3 {
				t.Fatalf("turn 2 upstream got %d messages, want user, assistant, tool: %v", len(msgs), up2["messages"])
			}
			asst, tool := msgs[1], msgs[2]
			if jsonAt(asst, "role") != "assistant" || jsonAt(asst, "tool_calls.0.id") != callID ||
				jsonAt(asst, "tool_calls.0.function.name") != "get_weather" ||
				!jsonEqual(fmt.Sprint(jsonAt(asst, "tool_calls.0.function.arguments")), weatherArgs) ||
				!strings.Contains(fmt.Sprint(jsonAt(asst, "content")), "Let me check.") {
				t.Errorf("turn 2 upstream assistant message = %v", asst)
			}
			if jsonAt(tool, "role") != "tool" || jsonAt(tool, "tool_call_id") != callID || !strings.Contains(fmt.Sprint(jsonAt(tool, "content")), weatherResult) {
				t.Errorf("turn 2 upstream tool message = %v, want role tool, tool_call_id %s, content %q", tool, callID, weatherResult)
			}
			if streamed && (up2["stream"] != true || jsonAt(up2, "stream_options.include_usage") != true) {
				t.Errorf("turn 2 upstream stream=%v stream_options=%v", up2["stream"], up2["stream_options"])
			}
		})
	}
}

// anthropicScript is a scripted Anthropic upstream: until the last user
// message carries a tool_result it calls get_weather (after some text),
// then it answers in text. Streams send the tool input in fragments.
func anthropicScript(toolID string, mu *sync.Mutex, seen *[]string) func(http.ResponseWriter, *http.Request, []byte) {
	return func(w http.ResponseWriter, _ *http.Request, body []byte) {
		var req struct {
			Stream   bool `json:"stream"`
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(body, &req)
		answered := false
		if n := len(req.Messages); n > 0 {
			answered = strings.Contains(string(req.Messages[n-1].Content), `"tool_result"`)
		}
		mu.Lock()
		*seen = append(*seen, fmt.Sprint(answered))
		mu.Unlock()
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			if answered {
				fmt.Fprintf(w, `{"id":"msg_shp_2","type":"message","role":"assistant","model":"claude-sonnet-4-20250514",`+
					`"content":[{"type":"text","text":%q}],"stop_reason":"end_turn","stop_sequence":null,`+
					`"usage":{"input_tokens":95,"cache_read_input_tokens":40,"cache_creation_input_tokens":0,"output_tokens":14}}`, weatherAnswer)
				return
			}
			fmt.Fprintf(w, `{"id":"msg_shp_1","type":"message","role":"assistant","model":"claude-sonnet-4-20250514",`+
				`"content":[{"type":"text","text":"Let me check."},{"type":"tool_use","id":%q,"name":"get_weather","input":%s}],`+
				`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":380,"output_tokens":65}}`, toolID, weatherArgs)
			return
		}
		start := "message_start\x00" + `{"type":"message_start","message":{"id":"msg_shp_s","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":380,"output_tokens":1}}}`
		if answered {
			writeEvents(w, start,
				"content_block_start\x00"+`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
				"content_block_delta\x00"+`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"It is 18 degrees "}}`,
				"content_block_delta\x00"+`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"and sunny in Paris."}}`,
				"content_block_stop\x00"+`{"type":"content_block_stop","index":0}`,
				"message_delta\x00"+`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":14}}`,
				"message_stop\x00"+`{"type":"message_stop"}`)
			return
		}
		writeEvents(w, start,
			"content_block_start\x00"+`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			"ping\x00"+`{"type":"ping"}`,
			"content_block_delta\x00"+`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me check."}}`,
			"content_block_stop\x00"+`{"type":"content_block_stop","index":0}`,
			"content_block_start\x00"+`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"`+toolID+`","name":"get_weather","input":{}}}`,
			"content_block_delta\x00"+`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}`,
			"content_block_delta\x00"+`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"location\": \"Par"}}`,
			"content_block_delta\x00"+`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"is\", \"unit\": \"celsius\"}"}}`,
			"content_block_stop\x00"+`{"type":"content_block_stop","index":1}`,
			"message_delta\x00"+`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":65}}`,
			"message_stop\x00"+`{"type":"message_stop"}`)
	}
}

// TestShapesMultiTurnChatOntoAnthropic: an OpenAI SDK client holds a
// tool-use conversation through /v1/chat/completions with an Anthropic
// upstream.
func TestShapesMultiTurnChatOntoAnthropic(t *testing.T) {
	g, ups := startMatrixGateway(t)
	const toolID = "toolu_01ShpWeatherXyZ"
	var mu sync.Mutex
	var seen []string
	ups.anth.Script(anthropicScript(toolID, &mu, &seen))
	client := openaiClient(g, masterKey)
	model := "anth/" + claudeModel

	for _, streamed := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", streamed), func(t *testing.T) {
			ups.anth.Reset()
			mu.Lock()
			seen = nil
			mu.Unlock()
			send := func(p openai.ChatCompletionNewParams) (openai.ChatCompletionMessage, string, openai.CompletionUsage) {
				t.Helper()
				if !streamed {
					c, err := client.Chat.Completions.New(context.Background(), p)
					if err != nil {
						t.Fatalf("SDK error: %v", err)
					}
					return c.Choices[0].Message, string(c.Choices[0].FinishReason), c.Usage
				}
				p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
				stream := client.Chat.Completions.NewStreaming(context.Background(), p)
				var acc openai.ChatCompletionAccumulator
				for stream.Next() {
					if !acc.AddChunk(stream.Current()) {
						t.Fatalf("accumulator refused %s", stream.Current().RawJSON())
					}
				}
				if err := stream.Err(); err != nil {
					t.Fatalf("stream error: %v", err)
				}
				_ = stream.Close()
				if len(acc.Choices) != 1 {
					t.Fatalf("accumulated %d choices", len(acc.Choices))
				}
				return acc.Choices[0].Message, string(acc.Choices[0].FinishReason), acc.Usage
			}
			conv := []openai.ChatCompletionMessageParamUnion{
				openai.SystemMessage("You are a weather bot."),
				openai.UserMessage("What is the weather in Paris?"),
			}
			p := openai.ChatCompletionNewParams{Model: model, Messages: conv,
				Tools: []openai.ChatCompletionToolUnionParam{weatherTool}}

			// Turn 1: the model calls the tool.
			m1, finish, usage := send(p)
			if m1.Content != "Let me check." || finish != "tool_calls" || len(m1.ToolCalls) != 1 {
				t.Fatalf("turn 1: content %q finish %q tool calls %d", m1.Content, finish, len(m1.ToolCalls))
			}
			tc := m1.ToolCalls[0]
			if tc.ID != toolID || tc.Function.Name != "get_weather" || !jsonEqual(tc.Function.Arguments, weatherArgs) {
				t.Errorf("turn 1 tool call = %s %s(%s)", tc.ID, tc.Function.Name, tc.Function.Arguments)
			}
			if usage.PromptTokens != 380 || usage.CompletionTokens != 65 {
				t.Errorf("turn 1 usage = %d/%d, want 380/65", usage.PromptTokens, usage.CompletionTokens)
			}
			r1 := ups.anth.LastMessages(t)
			checkAnthropicHeaders(t, r1)
			up1 := r1.JSON(t)
			if msgs, _ := up1["messages"].([]any); len(msgs) != 1 || jsonAt(up1, "tools.0.name") != "get_weather" ||
				!strings.Contains(fmt.Sprint(up1["system"]), "You are a weather bot.") {
				t.Errorf("turn 1 upstream system %v messages %v tools %v", up1["system"], up1["messages"], up1["tools"])
			}

			// Turn 2: the client sends the tool result.
			p.Messages = append(conv, m1.ToParam(), openai.ToolMessage(weatherResult, tc.ID))
			m2, finish, usage := send(p)
			if m2.Content != weatherAnswer || finish != "stop" || len(m2.ToolCalls) != 0 {
				t.Errorf("turn 2: content %q finish %q tool calls %d", m2.Content, finish, len(m2.ToolCalls))
			}
			wantPrompt, wantCached := int64(95+40), int64(40)
			if streamed {
				wantPrompt, wantCached = 380, 0
			}
			if usage.PromptTokens != wantPrompt || usage.PromptTokensDetails.CachedTokens != wantCached {
				t.Errorf("turn 2 usage = %d prompt, %d cached; want %d, %d", usage.PromptTokens,
					usage.PromptTokensDetails.CachedTokens, wantPrompt, wantCached)
			}
			r2 := ups.anth.LastMessages(t)
			checkAnthropicHeaders(t, r2)
			up2 := r2.JSON(t)
			msgs, _ := up2["messages"].([]any)
			if len(msgs) != 3 {
				t.Fatalf("turn 2 upstream got %d messages, want user, assistant, user: %v", len(msgs), up2["messages"])
			}
			var toolUse, resultBlock any
			for _, b := range jsonAt(msgs, "1.content").([]any) {
				if jsonAt(b, "type") == "tool_use" {
					toolUse = b
				}
			}
			if blocks, ok := jsonAt(msgs, "2.content").([]any); ok {
				for _, b := range blocks {
					if jsonAt(b, "type") == "tool_result" {
						resultBlock = b
					}
				}
			}
			if jsonAt(msgs, "1.role") != "assistant" || toolUse == nil || jsonAt(toolUse, "id") != toolID ||
				jsonAt(toolUse, "name") != "get_weather" || fmt.Sprint(jsonAt(toolUse, "input")) != "map[location:Paris unit:celsius]" {
				t.Errorf("turn 2 upstream assistant message = %v, want a tool_use block %s", msgs[1], toolID)
			}
			if jsonAt(msgs, "2.role") != "user" || resultBlock == nil || jsonAt(resultBlock, "tool_use_id") != toolID ||
				!strings.Contains(fmt.Sprint(jsonAt(resultBlock, "content")), weatherResult) {
				t.Errorf("turn 2 upstream user message = %v, want a tool_result block for %s with %q", msgs[2], toolID, weatherResult)
			}
			mu.Lock()
			if got := strings.Join(seen, ","); got != "false,true" {
				t.Errorf("scripted upstream saw turns %s, want false,true", got)
			}
			mu.Unlock()
		})
	}
}

// TestShapesMultiTurnResponses: an OpenAI SDK client holds a tool-use
// conversation through /v1/responses with a chat-only upstream (groq,
// Responses → Chat) and an Anthropic upstream (Responses → Chat →
// Messages), streamed and not.
func TestShapesMultiTurnResponses(t *testing.T) {
	g, ups := startMatrixGateway(t)
	const callID, toolID = "call_shpGroq01", "toolu_01ShpRespXyZ"
	ups.groq.Handle("/v1/chat/completions", chatScript(callID))
	var mu sync.Mutex
	var seen []string
	ups.anth.Script(anthropicScript(toolID, &mu, &seen))
	client := openaiClient(g, masterKey)

	for _, target := range []string{"groq", "anthropic"} {
		for _, streamed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", target, streamed), func(t *testing.T) {
				ups.groq.Reset()
				ups.anth.Reset()
				model, id := "groq/"+familyOf(t, "groq").model, callID
				if target == "anthropic" {
					model, id = "anth/"+claudeModel, toolID
				}
				send := func(p responses.ResponseNewParams) (*responses.Response, string) {
					t.Helper()
					if !streamed {
						r, err := client.Responses.New(context.Background(), p)
						if err != nil {
							t.Fatalf("SDK error: %v", err)
						}
						return r, ""
					}
					stream := client.Responses.NewStreaming(context.Background(), p)
					var final *responses.Response
					var args strings.Builder
					for stream.Next() {
						ev := stream.Current()
						switch ev.Type {
						case "response.function_call_arguments.delta":
							args.WriteString(ev.Delta)
						case "response.completed":
							r := ev.Response
							final = &r
						}
					}
					if err := stream.Err(); err != nil {
						t.Fatalf("stream error: %v", err)
					}
					_ = stream.Close()
					if final == nil {
						t.Fatal("no response.completed event")
					}
					return final, args.String()
				}
				p := responses.ResponseNewParams{
					Model: model,
					Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
						responses.ResponseInputItemParamOfMessage("What is the weather in Paris?", responses.EasyInputMessageRoleUser),
					}},
					Tools: []responses.ToolUnionParam{responsesWeatherTool},
				}

				// Turn 1: the model calls the tool.
				r1, streamedArgs := send(p)
				var call *responses.ResponseOutputItemUnion
				for i := range r1.Output {
					if r1.Output[i].Type == "function_call" {
						call = &r1.Output[i]
					}
				}
				if call == nil || r1.OutputText() != "Let me check." {
					t.Fatalf("turn 1: text %q, function_call %v: %s", r1.OutputText(), call != nil, r1.RawJSON())
				}
				if call.CallID != id || call.Name != "get_weather" || !jsonEqual(call.Arguments.OfString, weatherArgs) {
					t.Errorf("turn 1 function_call = %s %s(%s)", call.CallID, call.Name, call.Arguments.OfString)
				}
				if streamed && !jsonEqual(streamedArgs, weatherArgs) {
					t.Errorf("turn 1 streamed argument deltas = %q", streamedArgs)
				}

				// Turn 2: the client sends the function's output.
				out := responses.ResponseInputItemParamOfFunctionCallOutput(weatherResult)
				out.OfFunctionCallOutput.CallID = openai.String(call.CallID)
				p.Input.OfInputItemList = append(p.Input.OfInputItemList,
					responses.ResponseInputItemParamOfFunctionCall(call.Arguments.OfString, call.CallID, call.Name), out)
				r2, _ := send(p)
				if r2.OutputText() != weatherAnswer || r2.Status != responses.ResponseStatusCompleted {
					t.Errorf("turn 2: text %q status %q", r2.OutputText(), r2.Status)
				}
				if r2.Usage.TotalTokens == 0 {
					t.Errorf("turn 2 usage = %s", r2.Usage.RawJSON())
				}

				if target == "groq" {
					body := checkUpstreamChat(t, familyOf(t, "groq"), ups.groq.LastChat(t))
					msgs, _ := body["messages"].([]any)
					if len(msgs) != 3 || jsonAt(msgs, "1.tool_calls.0.id") != id || jsonAt(msgs, "2.role") != "tool" ||
						jsonAt(msgs, "2.tool_call_id") != id || !strings.Contains(fmt.Sprint(jsonAt(msgs, "2.content")), weatherResult) {
						t.Errorf("turn 2 upstream messages = %v", body["messages"])
					}
					return
				}
				r := ups.anth.LastMessages(t)
				checkAnthropicHeaders(t, r)
				body := r.JSON(t)
				msgs, _ := body["messages"].([]any)
				if len(msgs) != 3 || jsonAt(msgs, "1.role") != "assistant" || jsonAt(msgs, "2.role") != "user" ||
					!strings.Contains(string(r.Body), `"tool_use_id":"`+id+`"`) || !strings.Contains(string(r.Body), `"id":"`+id+`"`) {
					t.Errorf("turn 2 upstream messages = %s", r.Body)
				}
			})
		}
	}
}

// TestShapesToolIDsFromOtherProviders: a conversation whose earlier tool
// calls came from a provider with ids Anthropic refuses (Kimi's
// "functions.get_weather:0") continues on an Anthropic model: the ids are
// rewritten the same way on the tool_use and the tool_result, so they
// still match.
func TestShapesToolIDsFromOtherProviders(t *testing.T) {
	g, ups := startMatrixGateway(t)
	ups.anth.Respond("messages_multi_turn.json")
	client := openaiClient(g, masterKey)
	const foreign = "functions.get_weather:0"
	asst := openai.ChatCompletionAssistantMessageParam{ToolCalls: []openai.ChatCompletionMessageToolCallUnionParam{{
		OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: foreign,
			Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "get_weather", Arguments: weatherArgs}}}}}
	got, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: "anth/" + claudeModel,
		Tools: []openai.ChatCompletionToolUnionParam{weatherTool},
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.UserMessage("What is the weather in Paris?"),
			{OfAssistant: &asst},
			openai.ToolMessage(weatherResult, foreign),
		}})
	if err != nil {
		t.Fatalf("SDK error: %v", err)
	}
	if got.Choices[0].Message.Content != "16" {
		t.Errorf("content = %q", got.Choices[0].Message.Content)
	}
	body := ups.anth.LastMessages(t).JSON(t)
	useID := jsonAt(body, "messages.1.content.0.id")
	resultID := jsonAt(body, "messages.2.content.0.tool_use_id")
	if useID != "functions_get_weather_0" || resultID != useID {
		t.Errorf("upstream tool_use id %v, tool_result tool_use_id %v; want both functions_get_weather_0", useID, resultID)
	}
}
