package anthropic

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

// anthFixtureMessage is a recorded Anthropic response, read leniently.
type anthFixtureMessage struct {
	ID         string `json:"id"`
	Model      string `json:"model"`
	StopReason string `json:"stop_reason"`
	Content    []struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		Signature string          `json:"signature"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"content"`
	Usage struct {
		InputTokens              int64 `json:"input_tokens"`
		OutputTokens             int64 `json:"output_tokens"`
		CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

func anthSameJSON(t *testing.T, a, b string) {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatalf("%q: %v", a, err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatalf("%q: %v", b, err)
	}
	if !reflect.DeepEqual(x, y) {
		t.Fatalf("JSON %s != %s", a, b)
	}
}

func TestMessagesToChatResponseFixtures(t *testing.T) {
	for _, name := range globFixtures(t, "anthropic", "messages*.json") {
		t.Run(name, func(t *testing.T) {
			raw := fixtures.Must(t, "anthropic", name)
			var src anthFixtureMessage
			if err := json.Unmarshal(raw, &src); err != nil {
				t.Fatal(err)
			}
			for _, model := range []string{"", "my-alias"} {
				out, usage, err := MessagesToChatResponse(raw, model)
				if err != nil {
					t.Fatal(err)
				}
				var got anthChatCompletion
				anthStrictDecode(t, out, &got)
				wantModel := model
				if model == "" {
					wantModel = src.Model
				}
				if got.ID != src.ID || got.Object != "chat.completion" || got.Created == 0 || got.Model != wantModel {
					t.Fatalf("head: %+v", got)
				}
				if len(got.Choices) != 1 {
					t.Fatalf("choices: %d", len(got.Choices))
				}
				m := got.Choices[0].Message
				var text, thinking strings.Builder
				var tools []int
				for i, b := range src.Content {
					switch b.Type {
					case "text":
						text.WriteString(b.Text)
					case "thinking":
						thinking.WriteString(b.Thinking)
					case "tool_use":
						tools = append(tools, i)
					}
				}
				if m.Role != "assistant" || m.Content == nil || *m.Content != text.String() {
					t.Fatalf("content = %v, want %q", m.Content, text.String())
				}
				if thinking.Len() > 0 {
					if m.ReasoningContent == nil || *m.ReasoningContent != thinking.String() {
						t.Fatalf("reasoning_content = %v", m.ReasoningContent)
					}
					if len(m.ThinkingBlocks) != 1 || m.ThinkingBlocks[0].Signature != src.Content[0].Signature ||
						m.ThinkingBlocks[0].Thinking != thinking.String() {
						t.Fatalf("thinking_blocks = %+v", m.ThinkingBlocks)
					}
				} else if m.ReasoningContent != nil || m.ThinkingBlocks != nil {
					t.Fatalf("unexpected reasoning: %s", out)
				}
				if len(m.ToolCalls) != len(tools) {
					t.Fatalf("tool calls: %+v", m.ToolCalls)
				}
				for j, i := range tools {
					tc := m.ToolCalls[j]
					if tc.ID != src.Content[i].ID || tc.Type != "function" || tc.Function.Name != src.Content[i].Name {
						t.Fatalf("tool call %+v", tc)
					}
					anthSameJSON(t, tc.Function.Arguments, string(src.Content[i].Input))
				}
				wantFinish := map[string]string{"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls", "max_tokens": "length"}[src.StopReason]
				if got.Choices[0].FinishReason != wantFinish {
					t.Fatalf("finish_reason = %q, want %q", got.Choices[0].FinishReason, wantFinish)
				}
				u := src.Usage
				prompt := u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
				if got.Usage.PromptTokens != prompt || got.Usage.CompletionTokens != u.OutputTokens ||
					got.Usage.TotalTokens != prompt+u.OutputTokens ||
					got.Usage.PromptTokensDetails.CachedTokens != u.CacheReadInputTokens ||
					got.Usage.PromptTokensDetails.CacheWriteTokens != u.CacheCreationInputTokens {
					t.Fatalf("usage %+v from %+v", got.Usage, u)
				}
				want := catalog.Usage{InputTokens: prompt, OutputTokens: u.OutputTokens, TotalTokens: prompt + u.OutputTokens,
					CachedInputTokens: u.CacheReadInputTokens, CacheWriteInputTokens: u.CacheCreationInputTokens}
				if usage != want {
					t.Fatalf("Usage = %+v, want %+v", usage, want)
				}
			}
		})
	}
}

// anthFixtureChat is a recorded chat completion, read leniently.
type anthFixtureChat struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content   *string `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens        int64 `json:"prompt_tokens"`
		CompletionTokens    int64 `json:"completion_tokens"`
		TotalTokens         int64 `json:"total_tokens"`
		PromptTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
		CompletionTokensDetails struct {
			ReasoningTokens int64 `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
}

func TestChatToMessagesResponseFixtures(t *testing.T) {
	for _, family := range []string{"openai", "groq", "gemini"} {
		for _, name := range globFixtures(t, family, "chat*.json") {
			t.Run(family+"/"+name, func(t *testing.T) {
				raw := fixtures.Must(t, family, name)
				var src anthFixtureChat
				if err := json.Unmarshal(raw, &src); err != nil {
					t.Fatal(err)
				}
				out, usage, err := ChatToMessagesResponse(raw, "")
				if err != nil {
					t.Fatal(err)
				}
				var got anthMessage
				anthStrictDecode(t, out, &got)
				if got.ID != "msg_"+strings.TrimPrefix(src.ID, "chatcmpl-") || got.Type != "message" || got.Role != "assistant" || got.Model != src.Model {
					t.Fatalf("head: %s", out)
				}
				sm := src.Choices[0].Message
				var blocks []anthBlock
				if sm.Content != nil && *sm.Content != "" {
					blocks = append(blocks, anthBlock{Type: "text", Text: *sm.Content})
				}
				for _, tc := range sm.ToolCalls {
					blocks = append(blocks, anthBlock{Type: "tool_use", ID: tc.ID, Name: tc.Function.Name, Input: json.RawMessage(tc.Function.Arguments)})
				}
				if len(got.Content) != len(blocks) {
					t.Fatalf("content %+v, want %+v", got.Content, blocks)
				}
				for i, b := range blocks {
					g := got.Content[i]
					if g.Type != b.Type || g.Text != b.Text || g.ID != b.ID || g.Name != b.Name {
						t.Fatalf("block %d = %+v, want %+v", i, g, b)
					}
					if b.Type == "tool_use" {
						anthSameJSON(t, string(g.Input), string(b.Input))
					}
				}
				wantStop := map[string]string{"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}[src.Choices[0].FinishReason]
				if got.StopReason == nil || *got.StopReason != wantStop || got.StopSequence != nil {
					t.Fatalf("stop_reason %v, want %s", got.StopReason, wantStop)
				}
				u := src.Usage
				if got.Usage.InputTokens != u.PromptTokens-u.PromptTokensDetails.CachedTokens ||
					got.Usage.CacheReadInputTokens != u.PromptTokensDetails.CachedTokens ||
					got.Usage.OutputTokens != u.CompletionTokens {
					t.Fatalf("usage %+v from %+v", got.Usage, u)
				}
				want := catalog.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens,
					CachedInputTokens: u.PromptTokensDetails.CachedTokens, ReasoningTokens: u.CompletionTokensDetails.ReasoningTokens}
				if usage != want {
					t.Fatalf("Usage = %+v, want %+v", usage, want)
				}
			})
		}
	}
}

func TestMessagesToChatResponseCases(t *testing.T) {
	const head = `"id":"msg_1","type":"message","role":"assistant","model":"claude-x","stop_sequence":null`
	cases := []struct {
		name, in, want string
		usage          catalog.Usage
	}{{
		name: "cache tokens",
		in: `{` + head + `,"content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn",
			"usage":{"input_tokens":10,"cache_creation_input_tokens":200,"cache_read_input_tokens":1000,"output_tokens":7}}`,
		want: `{"id":"msg_1","object":"chat.completion","model":"claude-x","choices":[{"index":0,
			"message":{"role":"assistant","content":"hi"},"logprobs":null,"finish_reason":"stop"}],
			"usage":{"prompt_tokens":1210,"completion_tokens":7,"total_tokens":1217,
			"prompt_tokens_details":{"cached_tokens":1000,"cache_write_tokens":200}}}`,
		usage: catalog.Usage{InputTokens: 1210, OutputTokens: 7, TotalTokens: 1217, CachedInputTokens: 1000, CacheWriteInputTokens: 200},
	}, {
		name: "parallel tool calls, thinking, redacted thinking, server blocks left out",
		in: `{` + head + `,"content":[
			{"type":"thinking","thinking":"a","signature":"s1"},
			{"type":"redacted_thinking","data":"xyz"},
			{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}},
			{"type":"text","text":"Calling."},
			{"type":"tool_use","id":"toolu_1","name":"f","input":{ "a" : [1, 2] }},
			{"type":"tool_use","id":"toolu_2","name":"g","input":{}}],
			"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":2}}`,
		want: `{"id":"msg_1","object":"chat.completion","model":"claude-x","choices":[{"index":0,
			"message":{"role":"assistant","content":"Calling.","reasoning_content":"a",
			"thinking_blocks":[{"type":"thinking","thinking":"a","signature":"s1"},{"type":"redacted_thinking","data":"xyz"}],
			"tool_calls":[{"id":"toolu_1","type":"function","function":{"name":"f","arguments":"{\"a\":[1,2]}"}},
			{"id":"toolu_2","type":"function","function":{"name":"g","arguments":"{}"}}]},
			"logprobs":null,"finish_reason":"tool_calls"}],
			"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":0}}}`,
		usage: catalog.Usage{InputTokens: 1, OutputTokens: 2, TotalTokens: 3},
	}, {
		name: "JSON tool becomes content",
		in: `{` + head + `,"content":[{"type":"tool_use","id":"toolu_9","name":"modelgate_json_response",
			"input":{"colors": ["red", "green"]}}],"stop_reason":"tool_use","usage":{"input_tokens":3,"output_tokens":4}}`,
		want: `{"id":"msg_1","object":"chat.completion","model":"claude-x","choices":[{"index":0,
			"message":{"role":"assistant","content":"{\"colors\":[\"red\",\"green\"]}"},"logprobs":null,"finish_reason":"stop"}],
			"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":0}}}`,
		usage: catalog.Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7},
	}, {
		name: "max_tokens, text split by citations, no content",
		in: `{` + head + `,"content":[{"type":"text","text":"a "},{"type":"text","text":"b","citations":[]}],
			"stop_reason":"max_tokens","usage":{"input_tokens":1,"output_tokens":1}}`,
		want: `{"id":"msg_1","object":"chat.completion","model":"claude-x","choices":[{"index":0,
			"message":{"role":"assistant","content":"a b"},"logprobs":null,"finish_reason":"length"}],
			"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":0}}}`,
		usage: catalog.Usage{InputTokens: 1, OutputTokens: 1, TotalTokens: 2},
	}, {
		name: "refusal, empty content",
		in:   `{` + head + `,"content":[],"stop_reason":"refusal","usage":{"input_tokens":1,"output_tokens":0}}`,
		want: `{"id":"msg_1","object":"chat.completion","model":"claude-x","choices":[{"index":0,
			"message":{"role":"assistant","content":null},"logprobs":null,"finish_reason":"content_filter"}],
			"usage":{"prompt_tokens":1,"completion_tokens":0,"total_tokens":1,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":0}}}`,
		usage: catalog.Usage{InputTokens: 1, TotalTokens: 1},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, usage, err := MessagesToChatResponse([]byte(c.in), "")
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(out, &m); err != nil {
				t.Fatal(err)
			}
			if m["created"].(float64) <= 0 {
				t.Fatal("no created")
			}
			delete(m, "created")
			b, _ := json.Marshal(m)
			anthJSONEq(t, b, c.want)
			if usage != c.usage {
				t.Fatalf("usage = %+v, want %+v", usage, c.usage)
			}
		})
	}
	for _, bad := range []string{`nope`, `{"type":"error","error":{"type":"api_error","message":"x"}}`, `{"id":"x"}`} {
		if _, _, err := MessagesToChatResponse([]byte(bad), ""); err == nil {
			t.Errorf("%s: want error", bad)
		}
	}
}

func TestChatToMessagesResponseCases(t *testing.T) {
	const head = `"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-x"`
	cases := []struct {
		name, in, want string
	}{{
		name: "reasoning, parallel tools, odd ids, cache",
		in: `{` + head + `,"choices":[{"index":0,"message":{"role":"assistant","content":"ok","reasoning_content":"think",
			"tool_calls":[{"id":"call:1","type":"function","function":{"name":"f","arguments":"{\"a\": 1}"}},
			{"id":"call_2","type":"function","function":{"name":"g","arguments":""}}]},"finish_reason":"tool_calls"}],
			"usage":{"prompt_tokens":100,"completion_tokens":5,"total_tokens":105,"prompt_tokens_details":{"cached_tokens":60}}}`,
		want: `{"id":"msg_1","type":"message","role":"assistant","model":"gpt-x","content":[
			{"type":"thinking","thinking":"think","signature":""},{"type":"text","text":"ok"},
			{"type":"tool_use","id":"call_1","name":"f","input":{"a":1}},{"type":"tool_use","id":"call_2","name":"g","input":{}}],
			"stop_reason":"tool_use","stop_sequence":null,
			"usage":{"input_tokens":40,"cache_creation_input_tokens":0,"cache_read_input_tokens":60,"output_tokens":5}}`,
	}, {
		name: "stop with tool calls is tool_use",
		in: `{` + head + `,"choices":[{"index":0,"message":{"role":"assistant","content":null,
			"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"stop"}]}`,
		want: `{"id":"msg_1","type":"message","role":"assistant","model":"gpt-x","content":[
			{"type":"tool_use","id":"c1","name":"f","input":{}}],"stop_reason":"tool_use","stop_sequence":null,
			"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}}`,
	}, {
		name: "refusal",
		in: `{` + head + `,"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't."},
			"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`,
		want: `{"id":"msg_1","type":"message","role":"assistant","model":"gpt-x","content":[{"type":"text","text":"I can't."}],
			"stop_reason":"refusal","stop_sequence":null,
			"usage":{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":2}}`,
	}, {
		name: "length, content parts",
		in: `{` + head + `,"choices":[{"index":0,"message":{"role":"assistant","content":[{"type":"text","text":"a"}]},
			"finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`,
		want: `{"id":"msg_1","type":"message","role":"assistant","model":"gpt-x","content":[{"type":"text","text":"a"}],
			"stop_reason":"max_tokens","stop_sequence":null,
			"usage":{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":2}}`,
	}, {
		name: "content_filter",
		in:   `{` + head + `,"choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"content_filter"}]}`,
		want: `{"id":"msg_1","type":"message","role":"assistant","model":"gpt-x","content":[],
			"stop_reason":"refusal","stop_sequence":null,
			"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}}`,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := ChatToMessagesResponse([]byte(c.in), "")
			if err != nil {
				t.Fatal(err)
			}
			anthJSONEq(t, out, c.want)
			var m anthMessage
			anthStrictDecode(t, out, &m)
		})
	}
	t.Run("model and missing ids", func(t *testing.T) {
		out, _, err := ChatToMessagesResponse([]byte(`{"choices":[{"message":{"tool_calls":[{"function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`), "alias")
		if err != nil {
			t.Fatal(err)
		}
		var m anthMessage
		anthStrictDecode(t, out, &m)
		if m.Model != "alias" || !strings.HasPrefix(m.ID, "msg_") || len(m.Content) != 1 || !strings.HasPrefix(m.Content[0].ID, "toolu_") {
			t.Fatalf("%s", out)
		}
	})
	for _, bad := range []string{`nope`, `{"error":{"message":"x"}}`,
		`{"choices":[{"message":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{\"a\":"}}]}}]}`,
		`{"choices":[{"message":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"[1]"}}]}}]}`} {
		if _, _, err := ChatToMessagesResponse([]byte(bad), ""); err == nil {
			t.Errorf("%s: want error", bad)
		}
	}
}

func TestStopReasonMapping(t *testing.T) {
	for in, want := range map[string]string{
		"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls",
		"pause_turn": "stop", "refusal": "content_filter", "model_context_window_exceeded": "length", "": "stop",
	} {
		if got := anthropicStopToChat(in); got != want {
			t.Errorf("anthropicStopToChat(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use", "function_call": "tool_use",
		"content_filter": "refusal", "": "end_turn",
	} {
		if got := chatFinishToAnthropic(in, false); got != want {
			t.Errorf("chatFinishToAnthropic(%q) = %q, want %q", in, got, want)
		}
	}
	if got := chatFinishToAnthropic("stop", true); got != "tool_use" {
		t.Errorf("stop with tool calls = %q", got)
	}
}
