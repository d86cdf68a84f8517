package responses

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

// chatFixture is the part of a recorded chat completion the tests
// compare against, decoded with encoding/json (independently of the
// translation's gjson reads).
type chatFixture struct {
	ID      string `json:"id"`
	Created int64  `json:"created"`
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
	Usage *struct {
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

func TestChatToResponsesResponseFixtures(t *testing.T) {
	files := map[string][]string{
		"openai": {"chat_completion.json", "chat_completion_reasoning.json", "chat_with_tools.json", "chat_json_mode.json", "chat_multi_turn.json", "chat_multimodal.json", "chat_with_params.json"},
		"groq":   {"chat_completion.json", "chat_with_params.json", "chat_with_tools.json"},
		"gemini": {"chat_completion.json", "chat_with_params.json", "chat_with_tools.json"},
	}
	req := []byte(`{"model":"requested","input":"hi"}`)
	for family, names := range files {
		for _, name := range names {
			t.Run(family+"/"+name, func(t *testing.T) {
				chat := fixtures.Must(t, family, name)
				var want chatFixture
				decodeStrict(t, chat, &want)
				out, usage, err := ChatToResponsesResponse(chat, req)
				if err != nil {
					t.Fatal(err)
				}
				var got testResponse
				decodeStrict(t, out, &got)
				ch := want.Choices[0]

				if got.Object != "response" || got.Status != "completed" || got.Error != nil || got.IncompleteDetails != nil {
					t.Fatalf("header: %s", out)
				}
				if got.ID != "resp_"+strings.TrimPrefix(want.ID, "chatcmpl-") || got.CreatedAt != want.Created || got.Model != want.Model {
					t.Fatalf("id/created/model: %s", out)
				}
				if got.CompletedAt == nil || *got.CompletedAt < got.CreatedAt {
					t.Fatalf("completed_at: %s", out)
				}
				if ch.Message.Content != nil && *ch.Message.Content != "" || len(ch.Message.ToolCalls) == 0 {
					text := ""
					if ch.Message.Content != nil {
						text = *ch.Message.Content
					}
					if got.outputText() != text {
						t.Fatalf("output text %q, want %q", got.outputText(), text)
					}
					msg := got.Output[0]
					if msg.Type != "message" || msg.Role != "assistant" || msg.Status != "completed" || !strings.HasPrefix(msg.ID, "msg_") ||
						len(msg.Content) != 1 || msg.Content[0].Type != "output_text" || msg.Content[0].Annotations == nil || msg.Content[0].Logprobs == nil {
						t.Fatalf("message item: %+v", msg)
					}
				}
				var calls []testItem
				for _, it := range got.Output {
					if it.Type == "function_call" {
						calls = append(calls, it)
					}
				}
				if len(calls) != len(ch.Message.ToolCalls) {
					t.Fatalf("%d function_call items, want %d: %s", len(calls), len(ch.Message.ToolCalls), out)
				}
				for i, c := range calls {
					wc := ch.Message.ToolCalls[i]
					if c.CallID != wc.ID || c.Name != wc.Function.Name || c.Arguments != wc.Function.Arguments || c.Status != "completed" || !strings.HasPrefix(c.ID, "fc_") {
						t.Fatalf("function_call %+v, want %+v", c, wc)
					}
				}
				u := want.Usage
				wantU := catalog.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens,
					CachedInputTokens: u.PromptTokensDetails.CachedTokens, ReasoningTokens: u.CompletionTokensDetails.ReasoningTokens}
				if usage != wantU {
					t.Fatalf("usage %+v, want %+v", usage, wantU)
				}
				gu := got.Usage
				if gu == nil || gu.InputTokens != wantU.InputTokens || gu.OutputTokens != wantU.OutputTokens || gu.TotalTokens != wantU.TotalTokens ||
					gu.InputTokensDetails.CachedTokens != wantU.CachedInputTokens || gu.OutputTokensDetails.ReasoningTokens != wantU.ReasoningTokens {
					t.Fatalf("response usage %+v, want %+v", gu, wantU)
				}
			})
		}
	}
}

// TestChatToResponsesResponseFieldSet compares the top-level fields and
// the message item's fields with the recorded Responses API answer. The
// only field left out is billing, which describes OpenAI's account.
func TestChatToResponsesResponseFieldSet(t *testing.T) {
	real := fixtures.Must(t, "openai", "responses.json")
	out, _, err := ChatToResponsesResponse(fixtures.Must(t, "openai", "chat_completion.json"), []byte(`{"model":"gpt-4o-mini","input":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	keys := func(b []byte, path ...string) []string {
		var m map[string]any
		decodeStrict(t, b, &m)
		var v any = m
		for _, p := range path {
			switch x := v.(type) {
			case map[string]any:
				v = x[p]
			case []any:
				v = x[0]
			}
		}
		var ks []string
		for k := range v.(map[string]any) {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return ks
	}
	for _, path := range [][]string{nil, {"output", "0"}, {"output", "0", "content", "0"}, {"usage"}, {"text"}, {"reasoning"}} {
		want := keys(real, path...)
		if path == nil {
			want = withoutName(want, "billing")
		}
		if got := keys(out, path...); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("fields at %v:\n got  %v\n want %v", path, got, want)
		}
	}
	if strings.Contains(string(out), `"output_text":`) {
		t.Errorf("output_text is an SDK convenience, not a wire field: %s", out)
	}
}

func withoutName(list []string, drop string) []string {
	var out []string
	for _, s := range list {
		if s != drop {
			out = append(out, s)
		}
	}
	return out
}

// TestChatToResponsesResponseEcho checks that request settings are echoed
// as the Responses API echoes them.
func TestChatToResponsesResponseEcho(t *testing.T) {
	req := `{"model":"gpt-4o-mini","instructions":"Be brief.","input":"hi","tools":[{"type":"function","name":"f","parameters":{"type":"object"}}],"tool_choice":"required","temperature":0.3,"top_p":0.8,"parallel_tool_calls":false,"max_output_tokens":99,"metadata":{"k":"v"},"text":{"format":{"type":"json_object"}},"store":true,"user":"u","reasoning":{"effort":"low","summary":"auto"}}`
	out, _, err := ChatToResponsesResponse(fixtures.Must(t, "openai", "chat_json_mode.json"), []byte(req))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	decodeStrict(t, out, &got)
	want := map[string]string{
		"instructions":         `"Be brief."`,
		"tools":                `[{"type":"function","name":"f","parameters":{"type":"object"}}]`,
		"tool_choice":          `"required"`,
		"temperature":          `0.3`,
		"top_p":                `0.8`,
		"parallel_tool_calls":  `false`,
		"max_output_tokens":    `99`,
		"metadata":             `{"k":"v"}`,
		"text":                 `{"format":{"type":"json_object"},"verbosity":null}`,
		"store":                `false`,
		"user":                 `"u"`,
		"reasoning":            `{"effort":"low","summary":null}`,
		"previous_response_id": `null`,
		"truncation":           `"disabled"`,
		"service_tier":         `"default"`,
	}
	for k, v := range want {
		if !jSONEqual(t, marshalJSON(t, got[k]), []byte(v)) {
			t.Errorf("%s = %s, want %s", k, marshalJSON(t, got[k]), v)
		}
	}

	// Unset sampling parameters are null; the defaults are echoed.
	out, _, _ = ChatToResponsesResponse(fixtures.Must(t, "groq", "chat_completion.json"), []byte(`{"model":"x","input":"hi"}`))
	got = nil
	decodeStrict(t, out, &got)
	for k, v := range map[string]string{"temperature": `null`, "top_p": `null`, "instructions": `null`, "tools": `[]`, "tool_choice": `"auto"`, "metadata": `{}`, "parallel_tool_calls": `true`, "text": `{"format":{"type":"text"},"verbosity":null}`, "service_tier": `"on_demand"`} {
		if !jSONEqual(t, marshalJSON(t, got[k]), []byte(v)) {
			t.Errorf("default %s = %s, want %s", k, marshalJSON(t, got[k]), v)
		}
	}
}

func TestChatToResponsesResponseCases(t *testing.T) {
	req := []byte(`{"model":"m","input":"hi"}`)
	t.Run("reasoning, text and calls in order", func(t *testing.T) {
		chat := `{"id":"chatcmpl-abc","created":1700000000,"model":"deepseek-reasoner","choices":[{"index":0,"message":{"role":"assistant","reasoning_content":"Think \"hard\".","content":"Calling.","tool_calls":[{"id":"call_a","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}},{"id":"call_b","type":"function","function":{"name":"g","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30,"prompt_cache_hit_tokens":4,"completion_tokens_details":{"reasoning_tokens":12}}}`
		out, usage, err := ChatToResponsesResponse([]byte(chat), req)
		if err != nil {
			t.Fatal(err)
		}
		var got testResponse
		decodeStrict(t, out, &got)
		if len(got.Output) != 4 {
			t.Fatalf("output: %s", out)
		}
		rs, msg, a, b := got.Output[0], got.Output[1], got.Output[2], got.Output[3]
		if rs.Type != "reasoning" || rs.ID != "rs_abc_0" || rs.Summary == nil || len(rs.Content) != 1 || rs.Content[0].Type != "reasoning_text" || rs.Content[0].Text != `Think "hard".` {
			t.Fatalf("reasoning item: %+v", rs)
		}
		if msg.Type != "message" || msg.Content[0].Text != "Calling." {
			t.Fatalf("message: %+v", msg)
		}
		if a.CallID != "call_a" || a.Arguments != `{"a":1}` || b.CallID != "call_b" || b.Name != "g" || a.ID == b.ID {
			t.Fatalf("calls: %+v %+v", a, b)
		}
		if usage != (catalog.Usage{InputTokens: 10, OutputTokens: 20, TotalTokens: 30, CachedInputTokens: 4, ReasoningTokens: 12}) {
			t.Fatalf("usage %+v", usage)
		}
	})
	t.Run("length is incomplete", func(t *testing.T) {
		chat := `{"id":"chatcmpl-x","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Once upon"},"finish_reason":"length"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`
		out, _, err := ChatToResponsesResponse([]byte(chat), []byte(`{"model":"m","input":"x","max_output_tokens":2}`))
		if err != nil {
			t.Fatal(err)
		}
		var got testResponse
		decodeStrict(t, out, &got)
		if got.Status != "incomplete" || got.IncompleteDetails == nil || got.IncompleteDetails.Reason != "max_output_tokens" || got.CompletedAt != nil ||
			got.Output[0].Status != "incomplete" || got.outputText() != "Once upon" {
			t.Fatalf("incomplete: %s", out)
		}
	})
	t.Run("content_filter is incomplete", func(t *testing.T) {
		chat := `{"id":"x","choices":[{"message":{"content":""},"finish_reason":"content_filter"}]}`
		out, _, _ := ChatToResponsesResponse([]byte(chat), req)
		var got testResponse
		decodeStrict(t, out, &got)
		if got.Status != "incomplete" || got.IncompleteDetails.Reason != "content_filter" {
			t.Fatalf("%s", out)
		}
	})
	t.Run("refusal", func(t *testing.T) {
		chat := `{"id":"x","choices":[{"message":{"content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`
		out, _, _ := ChatToResponsesResponse([]byte(chat), req)
		var got testResponse
		decodeStrict(t, out, &got)
		if len(got.Output) != 1 || len(got.Output[0].Content) != 1 || got.Output[0].Content[0].Type != "refusal" || got.Output[0].Content[0].Refusal != "I can't help with that." {
			t.Fatalf("%s", out)
		}
	})
	t.Run("no usage is null", func(t *testing.T) {
		chat := `{"id":"x","created":5,"model":"m","choices":[{"message":{"content":"hi"},"finish_reason":"stop"}]}`
		out, usage, err := ChatToResponsesResponse([]byte(chat), req)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]json.RawMessage
		decodeStrict(t, out, &got)
		if string(got["usage"]) != "null" || usage != (catalog.Usage{}) {
			t.Fatalf("usage %s %+v", got["usage"], usage)
		}
	})
	t.Run("empty answer is an empty message", func(t *testing.T) {
		chat := `{"id":"x","choices":[{"message":{"role":"assistant","content":""},"finish_reason":"stop"}]}`
		out, _, _ := ChatToResponsesResponse([]byte(chat), req)
		var got testResponse
		decodeStrict(t, out, &got)
		if len(got.Output) != 1 || got.Output[0].Type != "message" || len(got.Output[0].Content) != 1 || got.Output[0].Content[0].Text != "" {
			t.Fatalf("%s", out)
		}
	})
	t.Run("content array", func(t *testing.T) {
		chat := `{"id":"x","choices":[{"message":{"content":[{"type":"thinking","thinking":[]},{"type":"text","text":"A"},{"type":"text","text":"B"}]},"finish_reason":"stop"}]}`
		out, _, _ := ChatToResponsesResponse([]byte(chat), req)
		var got testResponse
		decodeStrict(t, out, &got)
		if got.outputText() != "AB" {
			t.Fatalf("%s", out)
		}
	})
	t.Run("unicode and escapes survive", func(t *testing.T) {
		chat := `{"id":"x","choices":[{"message":{"content":"h\u00e9llo \ud83d\ude00 \"q\" \\ \n\t</script>"},"finish_reason":"stop"}]}`
		out, _, _ := ChatToResponsesResponse([]byte(chat), req)
		var got testResponse
		decodeStrict(t, out, &got)
		if got.outputText() != "héllo 😀 \"q\" \\ \n\t</script>" {
			t.Fatalf("%q", got.outputText())
		}
	})
	for name, chat := range map[string]string{
		"not JSON":     `{"id":`,
		"error body":   `{"error":{"message":"boom","type":"server_error"}}`,
		"no choices":   `{"id":"x","choices":[]}`,
		"choices null": `{"id":"x"}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, _, err := ChatToResponsesResponse([]byte(chat), req); err == nil {
				t.Fatal("want an error")
			}
		})
	}
}

func TestResponsesAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\s/", "\x00\x01\x1f\x7f", "tab\tnl\ncr\r", "é😀", "bad \xff utf8 \xc3", "\u2028\u2029", "<&>"} {
		got := translate.AppendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q -> %s: %v", s, got, err)
		}
		want, _ := json.Marshal(s)
		var wantBack string
		_ = json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Fatalf("%q: got %q, encoding/json %q", s, back, wantBack)
		}
	}
}

func TestChatToResponsesResponseOddID(t *testing.T) {
	chat := `{"id":"chatcmpl-a\"b\\c","choices":[{"message":{"content":"x","tool_calls":[{"type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`
	out, _, err := ChatToResponsesResponse([]byte(chat), []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var got testResponse
	decodeStrict(t, out, &got)
	if got.ID != `resp_a"b\c` || got.Output[1].CallID != `call_a"b\c_0` || got.Model != "" {
		t.Fatalf("%s", out)
	}
	// No id at all: a random one.
	out, _, _ = ChatToResponsesResponse([]byte(`{"choices":[{"message":{"content":"x"},"finish_reason":"stop"}]}`), []byte(`{"model":"asked"}`))
	got = testResponse{}
	decodeStrict(t, out, &got)
	if len(got.ID) != len("resp_")+32 || got.Model != "asked" || got.CreatedAt == 0 {
		t.Fatalf("%s", out)
	}
}
