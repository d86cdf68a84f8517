package anthropic

import (
	"testing"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/platform/sse"
)

// toolUseBlock is one Anthropic tool_use block whose input has spacing,
// nesting and escapes, so that any difference in how a direction writes
// the arguments would show.
const toolUseBlock = `{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{ "city" : "Zürich \"centre\"", "days": [1, 2],"opts":{"unit":"c"} }}`

// TestToolUseArgumentsSameBothDirections: the same Anthropic tool_use
// block becomes the same chat arguments whether it arrives in a client's
// Messages request (an assistant turn) or in an upstream's Messages
// response, streamed or not.
func TestToolUseArgumentsSameBothDirections(t *testing.T) {
	req := `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[` + toolUseBlock + `]}]}`
	chatReq, err := MessagesToChatRequest([]byte(req), translate.ChatTarget{})
	if err != nil {
		t.Fatal(err)
	}
	fromRequest := gjson.GetBytes(chatReq, "messages.1.tool_calls.0")

	resp := `{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[` + toolUseBlock + `],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}`
	chatResp, _, err := MessagesToChatResponse([]byte(resp), "")
	if err != nil {
		t.Fatal(err)
	}
	fromResponse := gjson.GetBytes(chatResp, "choices.0.message.tool_calls.0")

	s := NewMessagesToChatStream("", false)
	var streamed []byte
	for _, ev := range []string{
		`{"type":"message_start","message":{"id":"msg_1","model":"claude","usage":{"input_tokens":1,"output_tokens":0}}}`,
		`{"type":"content_block_start","index":0,"content_block":` + toolUseBlock + `}`,
		`{"type":"content_block_stop","index":0}`,
	} {
		out, err := s.Feed(sse.Event{Data: []byte(ev)})
		if err != nil {
			t.Fatal(err)
		}
		streamed = append(streamed, out...)
	}
	var fromStream gjson.Result
	for _, ev := range sse.Split(streamed) {
		if tc := gjson.GetBytes(ev.Data, "choices.0.delta.tool_calls.0"); tc.Exists() {
			fromStream = tc
		}
	}

	want := `{"city":"Zürich \"centre\"","days":[1,2],"opts":{"unit":"c"}}`
	for name, tc := range map[string]gjson.Result{"request": fromRequest, "response": fromResponse, "stream": fromStream} {
		if got := tc.Get("function.arguments").String(); got != want {
			t.Errorf("%s: arguments = %q, want %q", name, got, want)
		}
		if tc.Get("id").String() != "toolu_01" || tc.Get("function.name").String() != "get_weather" || tc.Get("type").String() != "function" {
			t.Errorf("%s: tool call %s", name, tc.Raw)
		}
	}
}

// TestToolCallInputSameBothDirections: the same chat tool call becomes
// the same tool_use block whether it arrives in a client's chat request or
// in an upstream's chat completion; arguments that are no JSON object are
// refused in both.
func TestToolCallInputSameBothDirections(t *testing.T) {
	call := `{"id":"call:1","type":"function","function":{"name":"f","arguments":" { \"a\" : [1, 2] , \"b\":\"x y\" } "}}`
	req := `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[` + call + `]}]}`
	msgsReq, err := ChatToMessagesRequest([]byte(req), 100)
	if err != nil {
		t.Fatal(err)
	}
	fromRequest := gjson.GetBytes(msgsReq, "messages.1.content.0")

	resp := `{"id":"c1","model":"gpt","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[` + call + `]},"finish_reason":"tool_calls"}]}`
	msgsResp, _, err := ChatToMessagesResponse([]byte(resp), "")
	if err != nil {
		t.Fatal(err)
	}
	fromResponse := gjson.GetBytes(msgsResp, "content.0")

	if fromRequest.Raw != fromResponse.Raw {
		t.Fatalf("request gives %s, response gives %s", fromRequest.Raw, fromResponse.Raw)
	}
	if want := `{"type":"tool_use","id":"call_1","name":"f","input":{"a":[1,2],"b":"x y"}}`; fromRequest.Raw != want {
		t.Fatalf("got %s, want %s", fromRequest.Raw, want)
	}

	for _, args := range []string{`"[1]"`, `"not json"`, `7`} {
		bad := `{"id":"c","type":"function","function":{"name":"f","arguments":` + args + `}}`
		_, err := ChatToMessagesRequest([]byte(`{"model":"m","messages":[{"role":"assistant","tool_calls":[`+bad+`]}]}`), 100)
		anthWantError(t, err, "messages[0].tool_calls[0].function.arguments", "a JSON object encoded as a string")
		if _, _, err := ChatToMessagesResponse([]byte(`{"choices":[{"message":{"tool_calls":[`+bad+`]}}]}`), ""); err == nil {
			t.Errorf("response with arguments %s: want an error", args)
		}
	}
	for _, args := range []string{`""`, `"  "`, `null`} {
		empty := `{"id":"c","type":"function","function":{"name":"f","arguments":` + args + `}}`
		out, err := ChatToMessagesRequest([]byte(`{"model":"m","messages":[{"role":"assistant","tool_calls":[`+empty+`]}]}`), 100)
		if err != nil {
			t.Fatal(err)
		}
		resp, _, err := ChatToMessagesResponse([]byte(`{"choices":[{"message":{"tool_calls":[`+empty+`]}}]}`), "")
		if err != nil {
			t.Fatal(err)
		}
		if a, b := gjson.GetBytes(out, "messages.0.content.0.input").Raw, gjson.GetBytes(resp, "content.0.input").Raw; a != "{}" || b != "{}" {
			t.Errorf("arguments %s: request input %s, response input %s, want {}", args, a, b)
		}
	}
}

// TestMessagesToChatRequestTarget: the output cap and stream_options
// follow the upstream's quirks.
func TestMessagesToChatRequestTarget(t *testing.T) {
	body := []byte(`{"model":"m","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	for _, c := range []struct {
		target          translate.ChatTarget
		field           string
		noStreamOptions bool
	}{
		{translate.ChatTarget{}, "max_completion_tokens", false},
		{translate.ChatTarget{LegacyMaxTokens: true}, "max_tokens", false},
		{translate.ChatTarget{NoStreamOptions: true}, "max_completion_tokens", true},
	} {
		out, err := MessagesToChatRequest(body, c.target)
		if err != nil {
			t.Fatal(err)
		}
		r := gjson.ParseBytes(out)
		other := "max_tokens"
		if c.field == other {
			other = "max_completion_tokens"
		}
		if r.Get(c.field).Int() != 64 || r.Get(other).Exists() || !r.Get("stream").Bool() ||
			r.Get("stream_options.include_usage").Exists() == c.noStreamOptions {
			t.Errorf("%+v: %s", c.target, out)
		}
	}
}
