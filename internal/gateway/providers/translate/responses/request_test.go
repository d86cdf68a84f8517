package responses

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

func TestResponsesToChatRequestMapping(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{
			"string input",
			`{"model":"gpt-4o-mini","input":"Say hi"}`,
			`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Say hi"}]}`,
		},
		{
			"instructions lead as a system message",
			`{"model":"m","instructions":"Be brief.","input":[{"role":"user","content":"hi"}]}`,
			`{"model":"m","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}]}`,
		},
		{
			"empty instructions are no message",
			`{"model":"m","instructions":"","input":"hi"}`,
			`{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
		},
		{
			"typed message with one input_text becomes a string",
			`{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"a \"q\"\n"}]}]}`,
			`{"model":"m","messages":[{"role":"user","content":"a \"q\"\n"}]}`,
		},
		{
			"text and image parts",
			`{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":"what is this?"},{"type":"input_image","image_url":"https://x/y.png","detail":"low"},{"type":"input_image","image_url":"data:image/png;base64,AAAA"}]}]}`,
			`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"https://x/y.png","detail":"low"}},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]}`,
		},
		{
			"inline file",
			`{"model":"m","input":[{"role":"user","content":[{"type":"input_file","filename":"a.pdf","file_data":"data:application/pdf;base64,JVBE"},{"type":"input_text","text":"summarise"}]}]}`,
			`{"model":"m","messages":[{"role":"user","content":[{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBE","filename":"a.pdf"}},{"type":"text","text":"summarise"}]}]}`,
		},
		{
			"developer and system roles become system; parts are joined",
			`{"model":"m","input":[{"role":"developer","content":"rules"},{"role":"system","content":[{"type":"input_text","text":"one "},{"type":"input_text","text":"two"}]},{"role":"user","content":"go"}]}`,
			`{"model":"m","messages":[{"role":"system","content":"rules"},{"role":"system","content":"one two"},{"role":"user","content":"go"}]}`,
		},
		{
			"assistant history with output_text and refusal",
			`{"model":"m","input":[{"role":"user","content":"a"},{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"b","annotations":[]}]},{"role":"assistant","content":[{"type":"refusal","refusal":"no"}]},{"role":"user","content":"c"}]}`,
			`{"model":"m","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"assistant","content":null,"refusal":"no"},{"role":"user","content":"c"}]}`,
		},
		{
			"reasoning items are dropped",
			`{"model":"m","input":[{"role":"user","content":"a"},{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA"},{"role":"assistant","content":"b"}]}`,
			`{"model":"m","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}`,
		},
		{
			"function tools, strict only when true",
			`{"model":"m","input":"x","tools":[{"type":"function","name":"get_weather","description":"Weather","parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]},"strict":true},{"type":"function","name":"noop","parameters":null,"strict":false}]}`,
			`{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"get_weather","description":"Weather","parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]},"strict":true}},{"type":"function","function":{"name":"noop"}}]}`,
		},
		{
			"tool_choice required and parallel_tool_calls",
			`{"model":"m","input":"x","tools":[{"type":"function","name":"f"}],"tool_choice":"required","parallel_tool_calls":false}`,
			`{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"required","parallel_tool_calls":false}`,
		},
		{
			"tool_choice none with tools",
			`{"model":"m","input":"x","tools":[{"type":"function","name":"f"}],"tool_choice":"none"}`,
			`{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"none"}`,
		},
		{
			"tool_choice function",
			`{"model":"m","input":"x","tools":[{"type":"function","name":"f"}],"tool_choice":{"type":"function","name":"f"}}`,
			`{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":{"type":"function","function":{"name":"f"}}}`,
		},
		{
			"tool_choice allowed_tools",
			`{"model":"m","input":"x","tools":[{"type":"function","name":"f"},{"type":"function","name":"g"}],"tool_choice":{"type":"allowed_tools","mode":"required","tools":[{"type":"function","name":"g"}]}}`,
			`{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f"}},{"type":"function","function":{"name":"g"}}],"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"required","tools":[{"type":"function","function":{"name":"g"}}]}}}`,
		},
		{
			"auto tool_choice and parallel_tool_calls without tools are dropped",
			`{"model":"m","input":"x","tools":[],"tool_choice":"auto","parallel_tool_calls":true}`,
			`{"model":"m","messages":[{"role":"user","content":"x"}]}`,
		},
		{
			"sampling, limits, identity",
			`{"model":"m","input":"x","max_output_tokens":256,"temperature":0.2,"top_p":0.9,"user":"u-1","metadata":{"session_id":"s1"},"prompt_cache_key":"k","safety_identifier":"h","service_tier":"flex"}`,
			`{"model":"m","messages":[{"role":"user","content":"x"}],"max_completion_tokens":256,"temperature":0.2,"top_p":0.9,"user":"u-1","prompt_cache_key":"k","safety_identifier":"h","service_tier":"flex"}`,
		},
		{
			"stream asks for usage",
			`{"model":"m","input":"x","stream":true}`,
			`{"model":"m","messages":[{"role":"user","content":"x"}],"stream":true,"stream_options":{"include_usage":true}}`,
		},
		{
			"stream false",
			`{"model":"m","input":"x","stream":false}`,
			`{"model":"m","messages":[{"role":"user","content":"x"}]}`,
		},
		{
			"json_object",
			`{"model":"m","input":"x","text":{"format":{"type":"json_object"}}}`,
			`{"model":"m","messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_object"}}`,
		},
		{
			"json_schema and verbosity",
			`{"model":"m","input":"x","text":{"format":{"type":"json_schema","name":"colors","description":"d","schema":{"type":"object"},"strict":true},"verbosity":"low"}}`,
			`{"model":"m","messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"colors","description":"d","schema":{"type":"object"},"strict":true}},"verbosity":"low"}`,
		},
		{
			"text format text adds nothing",
			`{"model":"m","input":"x","text":{"format":{"type":"text"}}}`,
			`{"model":"m","messages":[{"role":"user","content":"x"}]}`,
		},
		{
			"reasoning effort; summary dropped",
			`{"model":"o3-mini","input":"x","reasoning":{"effort":"high","summary":"auto"}}`,
			`{"model":"o3-mini","messages":[{"role":"user","content":"x"}],"reasoning_effort":"high"}`,
		},
		{
			"ignored parameters and nulls",
			`{"model":"m","input":"x","store":true,"include":["reasoning.encrypted_content"],"truncation":"auto","top_logprobs":2,"max_tool_calls":3,"stream_options":{"include_obfuscation":false},"prompt_cache_retention":"24h","background":false,"previous_response_id":null,"conversation":null,"instructions":null,"temperature":null}`,
			`{"model":"m","messages":[{"role":"user","content":"x"}]}`,
		},
		{
			"function call turn",
			`{"model":"m","input":[{"role":"user","content":"weather in Paris?"},{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"location\":\"Paris\"}","status":"completed"},{"type":"function_call_output","call_id":"call_1","output":"{\"temp\":21}"}]}`,
			`{"model":"m","messages":[{"role":"user","content":"weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}}]},{"role":"tool","tool_call_id":"call_1","content":"{\"temp\":21}"}]}`,
		},
		{
			"text then parallel calls merge into one assistant message",
			`{"model":"m","input":[{"role":"user","content":"q"},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Let me check."}]},{"type":"reasoning","summary":[]},{"type":"function_call","call_id":"a","name":"f","arguments":"{}"},{"type":"function_call","call_id":"b","name":"g","arguments":"{\"x\":1}"},{"type":"function_call_output","call_id":"a","output":"1"},{"type":"function_call_output","call_id":"b","output":[{"type":"input_text","text":"2"},{"type":"input_text","text":"3"}]},{"role":"assistant","content":"done"}]}`,
			`{"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant","content":"Let me check.","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"b","type":"function","function":{"name":"g","arguments":"{\"x\":1}"}}]},{"role":"tool","tool_call_id":"a","content":"1"},{"role":"tool","tool_call_id":"b","content":"23"},{"role":"assistant","content":"done"}]}`,
		},
		{
			"consecutive turns keep separate assistant messages",
			`{"model":"m","input":[{"type":"function_call","call_id":"a","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"a","output":"1"},{"type":"function_call","call_id":"b","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"b","output":"2"}]}`,
			`{"model":"m","messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"1"},{"role":"assistant","content":null,"tool_calls":[{"id":"b","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"b","content":"2"}]}`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ResponsesToChatRequest([]byte(c.in), translate.ChatTarget{})
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if !jSONEqual(t, got, []byte(c.want)) {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestResponsesToChatRequestRejects(t *testing.T) {
	cases := []struct {
		name, in, param string
	}{
		{"not JSON", `{"model":`, ""},
		{"not an object", `["model"]`, ""},
		{"missing model", `{"input":"x"}`, "model"},
		{"model not a string", `{"model":3,"input":"x"}`, "model"},
		{"missing input", `{"model":"m"}`, "input"},
		{"input a number", `{"model":"m","input":3}`, "input"},
		{"empty input", `{"model":"m","input":[]}`, "input"},
		{"previous_response_id", `{"model":"m","input":"x","previous_response_id":"resp_1"}`, "previous_response_id"},
		{"conversation", `{"model":"m","input":"x","conversation":"conv_1"}`, "conversation"},
		{"stored prompt", `{"model":"m","input":"x","prompt":{"id":"pmpt_1"}}`, "prompt"},
		{"background", `{"model":"m","input":"x","background":true}`, "background"},
		{"moderation", `{"model":"m","input":"x","moderation":{"model":"omni-moderation-latest"}}`, "moderation"},
		{"unknown parameter", `{"model":"m","input":"x","frobnicate":1}`, "frobnicate"},
		{"chat-style messages", `{"model":"m","messages":[]}`, "messages"},
		{"temperature a string", `{"model":"m","input":"x","temperature":"hot"}`, "temperature"},
		{"stream a string", `{"model":"m","input":"x","stream":"yes"}`, "stream"},
		{"metadata an array", `{"model":"m","input":"x","metadata":[]}`, "metadata"},
		{"max_output_tokens zero", `{"model":"m","input":"x","max_output_tokens":0}`, "max_output_tokens"},
		{"instructions an array", `{"model":"m","input":"x","instructions":[{"role":"user","content":"x"}]}`, "instructions"},
		{"forced web_search tool", `{"model":"m","input":"x","tools":[{"type":"function","name":"f"},{"type":"web_search"}],"tool_choice":{"type":"web_search"}}`, "tools[1].type"},
		{"forced file_search tool", `{"model":"m","input":"x","tools":[{"type":"file_search","vector_store_ids":["vs_1"]}],"tool_choice":{"type":"file_search"}}`, "tools[0].type"},
		{"forced computer_use tool", `{"model":"m","input":"x","tools":[{"type":"computer_use_preview","display_width":1,"display_height":1,"environment":"browser"}],"tool_choice":{"type":"computer_use_preview"}}`, "tools[0].type"},
		{"function tool without name", `{"model":"m","input":"x","tools":[{"type":"function"}]}`, "tools[0].name"},
		{"hosted tool_choice", `{"model":"m","input":"x","tools":[{"type":"function","name":"f"}],"tool_choice":{"type":"file_search"}}`, "tool_choice.type"},
		{"bad tool_choice mode", `{"model":"m","input":"x","tool_choice":"sometimes"}`, "tool_choice"},
		{"image by file_id", `{"model":"m","input":[{"role":"user","content":[{"type":"input_image","file_id":"file_1"}]}]}`, "input[0].content[0].file_id"},
		{"file by file_id", `{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":"x"},{"type":"input_file","file_id":"file_1"}]}]}`, "input[0].content[1].file_id"},
		{"file by url", `{"model":"m","input":[{"role":"user","content":[{"type":"input_file","file_url":"https://x/a.pdf"},{"type":"input_text","text":"x"}]}]}`, "input[0].content[0].file_url"},
		{"unknown part", `{"model":"m","input":[{"role":"user","content":[{"type":"input_video","url":"x"},{"type":"input_text","text":"x"}]}]}`, "input[0].content[0].type"},
		{"image in a system message", `{"model":"m","input":[{"role":"system","content":[{"type":"input_image","image_url":"https://x"}]}]}`, "input[0].content[0].type"},
		{"item_reference", `{"model":"m","input":[{"type":"item_reference","id":"msg_1"}]}`, "input[0].type"},
		{"web_search_call item", `{"model":"m","input":[{"role":"user","content":"x"},{"type":"web_search_call","id":"ws_1","status":"completed"}]}`, "input[1].type"},
		{"unknown role", `{"model":"m","input":[{"role":"tool","content":"x"}]}`, "input[0].role"},
		{"missing role", `{"model":"m","input":[{"content":"x"}]}`, "input[0].role"},
		{"item not an object", `{"model":"m","input":["x"]}`, "input[0]"},
		{"function_call without call_id", `{"model":"m","input":[{"type":"function_call","name":"f","arguments":"{}"}]}`, "input[0].call_id"},
		{"function_call_output without output", `{"model":"m","input":[{"type":"function_call_output","call_id":"a"}]}`, "input[0].output"},
		{"function_call_output with an image", `{"model":"m","input":[{"type":"function_call_output","call_id":"a","output":[{"type":"input_image","image_url":"https://x"}]}]}`, "input[0].output[0].type"},
		{"text.format unknown", `{"model":"m","input":"x","text":{"format":{"type":"grammar"}}}`, "text.format.type"},
		{"json_schema without name", `{"model":"m","input":"x","text":{"format":{"type":"json_schema","schema":{}}}}`, "text.format.name"},
		{"json_schema without schema", `{"model":"m","input":"x","text":{"format":{"type":"json_schema","name":"n"}}}`, "text.format.schema"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ResponsesToChatRequest([]byte(c.in), translate.ChatTarget{})
			var e *translate.Error
			if !errors.As(err, &e) {
				t.Fatalf("want *translate.Error, got %v (%s)", err, got)
			}
			if e.Param != c.param || e.Message == "" {
				t.Fatalf("param %q message %q, want param %q", e.Param, e.Message, c.param)
			}
		})
	}
}

// TestResponsesFunctionCallRoundTrip answers a tool call the way an SDK
// client does: the output items of a translated response go back as input
// with the tool's result, and the chat request must pair the tool message
// with the upstream's original call id.
func TestResponsesFunctionCallRoundTrip(t *testing.T) {
	for _, family := range []string{"openai", "groq", "gemini"} {
		t.Run(family, func(t *testing.T) {
			chat := fixtures.Must(t, family, "chat_with_tools.json")
			req := `{"model":"m","input":"What is the weather?","tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"location":{"type":"string"}}}}]}`
			out, _, err := ChatToResponsesResponse(chat, []byte(req))
			if err != nil {
				t.Fatal(err)
			}
			var resp struct {
				Output []map[string]any `json:"output"`
			}
			decodeStrict(t, out, &resp)
			var call map[string]any
			for _, it := range resp.Output {
				if it["type"] == "function_call" {
					call = it
				}
			}
			if call == nil {
				t.Fatalf("no function_call in %s", out)
			}
			input := []any{map[string]any{"role": "user", "content": "What is the weather?"}}
			for _, it := range resp.Output {
				input = append(input, it)
			}
			input = append(input, map[string]any{"type": "function_call_output", "call_id": call["call_id"], "output": `{"temp":"mild"}`})
			next := marshalJSON(t, map[string]any{"model": "m", "input": input})
			chatReq, err := ResponsesToChatRequest(next, translate.ChatTarget{})
			if err != nil {
				t.Fatalf("%v\n%s", err, next)
			}
			var got struct {
				Messages []struct {
					Role       string  `json:"role"`
					Content    *string `json:"content"`
					ToolCallID string  `json:"tool_call_id"`
					ToolCalls  []struct {
						ID       string `json:"id"`
						Type     string `json:"type"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"messages"`
			}
			decodeStrict(t, chatReq, &got)
			var orig struct {
				Choices []struct {
					Message struct {
						ToolCalls []struct {
							ID       string `json:"id"`
							Function struct{ Name, Arguments string }
						} `json:"tool_calls"`
					} `json:"message"`
				} `json:"choices"`
			}
			decodeStrict(t, chat, &orig)
			oc := orig.Choices[0].Message.ToolCalls[0]
			if len(got.Messages) != 3 {
				t.Fatalf("messages: %s", chatReq)
			}
			a, tool := got.Messages[1], got.Messages[2]
			if a.Role != "assistant" || len(a.ToolCalls) != 1 || a.ToolCalls[0].ID != oc.ID || a.ToolCalls[0].Type != "function" ||
				a.ToolCalls[0].Function.Name != oc.Function.Name || a.ToolCalls[0].Function.Arguments != oc.Function.Arguments {
				t.Fatalf("assistant message %+v, upstream call %+v", a, oc)
			}
			if tool.Role != "tool" || tool.ToolCallID != oc.ID || tool.Content == nil || *tool.Content != `{"temp":"mild"}` {
				t.Fatalf("tool message %+v", tool)
			}
		})
	}
}

// TestResponsesUnsupportedListed keeps UNSUPPORTED.md complete:
// every parameter the code rejects or ignores is named there.
func TestResponsesUnsupportedListed(t *testing.T) {
	doc, err := os.ReadFile("UNSUPPORTED.md")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for k := range ignored {
		names = append(names, k)
	}
	for k := range rejected {
		names = append(names, k)
	}
	names = append(names, "metadata", "background", "item_reference", "file_id", "file_url", "web_search", "file_search", "computer_use_preview", "reasoning.summary", "strict")
	for _, n := range names {
		if !strings.Contains(string(doc), "`"+n+"`") {
			t.Errorf("UNSUPPORTED.md does not mention `%s`", n)
		}
	}
}

// TestResponsesToChatRequestNoAliasing: the body is read in place, so
// nothing returned may share its memory.
func TestResponsesToChatRequestNoAliasing(t *testing.T) {
	body := []byte(`{"model":"m","input":"hello","frobnicate":1}`)
	_, err := ResponsesToChatRequest(body, translate.ChatTarget{})
	good := []byte(`{"model":"m","input":"hello"}`)
	chat, _ := ResponsesToChatRequest(good, translate.ChatTarget{})
	want := string(chat)
	for _, b := range [][]byte{body, good} {
		for i := range b {
			b[i] = 'x'
		}
	}
	var e *translate.Error
	if !errors.As(err, &e) || e.Param != "frobnicate" || !strings.Contains(e.Message, "frobnicate") || string(chat) != want {
		t.Fatalf("%v %s", err, chat)
	}
}
