package anthropic

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// A chat request with tools, parallel tool calls, tool results and images
// goes to Anthropic and back without losing anything.
func TestChatRequestRoundTrip(t *testing.T) {
	chat := `{"model":"m",
		"messages":[
			{"role":"system","content":"You are helpful."},
			{"role":"user","content":[{"type":"text","text":"What is in these images, and the weather?"},
				{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},
				{"type":"image_url","image_url":{"url":"https://example.com/cat.jpg"}}]},
			{"role":"assistant","content":"Let me look.","tool_calls":[
				{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}},
				{"id":"call_2","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Oslo\"}"}}]},
			{"role":"tool","tool_call_id":"call_1","content":"18C"},
			{"role":"tool","tool_call_id":"call_2","content":"3C"},
			{"role":"user","content":"Summarize."}],
		"max_completion_tokens":500,"temperature":0.3,"top_p":0.8,"stop":["END"],"stream":true,
		"stream_options":{"include_usage":true},"user":"u1",
		"tools":[{"type":"function","function":{"name":"get_weather","description":"Get weather",
			"parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}}],
		"tool_choice":"required","parallel_tool_calls":false}`
	msgs, err := ChatToMessagesRequest([]byte(chat), 4096)
	if err != nil {
		t.Fatal(err)
	}
	back, err := MessagesToChatRequest(msgs, translate.ChatTarget{})
	if err != nil {
		t.Fatalf("%v\n%s", err, msgs)
	}
	anthJSONEq(t, back, chat)
}

// An Anthropic request with thinking, tools, tool results and an image goes
// to chat and back without losing anything. (Its last assistant turn used
// no tool: one that did would need the signed thinking block that the
// chat form does not carry, and would go back without thinking; see
// TestThinkingOffForUnsignedToolTurn.)
func TestMessagesRequestRoundTrip(t *testing.T) {
	messages := `{"model":"m","max_tokens":20000,"system":"Be exact.",
		"messages":[
			{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/4AAQ"}},
				{"type":"text","text":"Where is this? Check the weather."}]},
			{"role":"assistant","content":[{"type":"text","text":"Looks like Paris."},
				{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location":"Paris","units":["c"]}},
				{"type":"tool_use","id":"toolu_2","name":"get_time","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"18C"},
				{"type":"tool_result","tool_use_id":"toolu_2","content":"noon"}]},
			{"role":"assistant","content":[{"type":"text","text":"18C at noon."}]},
			{"role":"user","content":"And tomorrow?"}],
		"tools":[{"name":"get_weather","description":"Weather","input_schema":{"type":"object","properties":{"location":{"type":"string"}}}},
			{"name":"get_time","input_schema":{"type":"object","properties":{}}}],
		"tool_choice":{"type":"auto","disable_parallel_tool_use":true},
		"thinking":{"type":"enabled","budget_tokens":8192},"temperature":1,
		"stop_sequences":["\n\nHuman:"],"stream":true,"metadata":{"user_id":"u-42"}}`
	chat, err := MessagesToChatRequest([]byte(messages), translate.ChatTarget{})
	if err != nil {
		t.Fatal(err)
	}
	back, err := ChatToMessagesRequest(chat, 1000)
	if err != nil {
		t.Fatalf("%v\n%s", err, chat)
	}
	anthJSONEq(t, back, messages)
}

// A chat client's multi-turn tool use with thinking against an Anthropic
// model: the response's thinking_blocks, sent back on the assistant
// message, reach Anthropic signed and in front of the tool use.
func TestThinkingToolUseRoundTrip(t *testing.T) {
	resp, _, err := MessagesToChatResponse([]byte(`{"id":"msg_1","model":"c","type":"message","role":"assistant","content":[
		{"type":"thinking","thinking":"Need weather.","signature":"SIG"},
		{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location":"Paris"}}],
		"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	var c anthChatCompletion
	anthStrictDecode(t, resp, &c)
	// The client appends the assistant message as the SDKs return it.
	msg := c.Choices[0].Message
	assistant := `{"role":"assistant","content":null,"reasoning_content":` + quote(*msg.ReasoningContent) +
		`,"thinking_blocks":[{"type":"thinking","thinking":` + quote(msg.ThinkingBlocks[0].Thinking) + `,"signature":` + quote(msg.ThinkingBlocks[0].Signature) + `}]` +
		`,"tool_calls":[{"id":"` + msg.ToolCalls[0].ID + `","type":"function","function":{"name":"get_weather","arguments":` + quote(msg.ToolCalls[0].Function.Arguments) + `}}]}`
	req := `{"model":"c","reasoning_effort":"low","max_completion_tokens":4000,"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}],
		"messages":[{"role":"user","content":"Weather?"},` + assistant + `,{"role":"tool","tool_call_id":"toolu_1","content":"18C"}]}`
	out, err := ChatToMessagesRequest([]byte(req), 4096)
	if err != nil {
		t.Fatal(err)
	}
	anthJSONEq(t, out, `{"model":"c","max_tokens":4000,"messages":[{"role":"user","content":"Weather?"},
		{"role":"assistant","content":[{"type":"thinking","thinking":"Need weather.","signature":"SIG"},
			{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location":"Paris"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"18C"}]}],
		"tools":[{"name":"get_weather","input_schema":{"type":"object"}}],"thinking":{"type":"enabled","budget_tokens":2000}}`)
}

func quote(s string) string { return string(translate.AppendString(nil, s)) }

// Tool ids from other providers are made Anthropic-safe the same way in
// requests and responses, so calls and results keep matching.
func TestToolIDsStayPaired(t *testing.T) {
	resp, _, err := ChatToMessagesResponse([]byte(`{"id":"x","model":"m","choices":[{"index":0,"message":{"role":"assistant",
		"tool_calls":[{"id":"call.7/a","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`), "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(resp), `"id":"call_7_a"`) {
		t.Fatalf("%s", resp)
	}
	req, err := ChatToMessagesRequest([]byte(`{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"call.7/a","type":"function",
		"function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call.7/a","content":"ok"}]}`), 100)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(req), `call_7_a`) != 2 {
		t.Fatalf("%s", req)
	}
}

// TestThinkingOffForUnsignedToolTurn: with reasoning asked for, a
// conversation whose last assistant turn called a tool goes to Anthropic
// with thinking only when that turn carries its signed thinking block
// (Anthropic refuses the request otherwise); without one, it goes without
// thinking.
func TestThinkingOffForUnsignedToolTurn(t *testing.T) {
	turns := func(assistant string) string {
		return `{"model":"m","reasoning_effort":"high","messages":[{"role":"user","content":"weather?"},` + assistant +
			`,{"role":"tool","tool_call_id":"call_1","content":"18C"}]}`
	}
	call := `"tool_calls":[{"id":"call_1","type":"function","function":{"name":"w","arguments":"{}"}}]`
	for _, c := range []struct {
		assistant string
		thinking  bool
	}{
		{`{"role":"assistant","content":null,` + call + `}`, false},
		{`{"role":"assistant","content":null,` + call + `,"thinking_blocks":[{"type":"thinking","thinking":"t","signature":"sig"}]}`, true},
		{`{"role":"assistant","content":"It is warm."}`, true},
	} {
		msgs, err := ChatToMessagesRequest([]byte(turns(c.assistant)), 4096)
		if err != nil {
			t.Fatalf("%s: %v", c.assistant, err)
		}
		if on := gjson.GetBytes(msgs, "thinking.type").Str == "enabled"; on != c.thinking {
			t.Errorf("%s: thinking %s, want on=%v", c.assistant, gjson.GetBytes(msgs, "thinking").Raw, c.thinking)
		}
	}
}
