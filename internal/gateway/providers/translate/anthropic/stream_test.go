package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/platform/sse"
	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

// anthEv builds an Anthropic event whose name is its data's type.
func anthEv(data string) sse.Event {
	return sse.Event{Name: gjson.Get(data, "type").Str, Data: []byte(data)}
}

func TestMessagesToChatStreamFixture(t *testing.T) {
	raw := fixtures.Must(t, "anthropic", "messages_stream.txt")
	events := sse.Split(raw)
	// What the fixture says, read independently.
	var text strings.Builder
	var in, out, cr, cw int64
	for _, ev := range events {
		d := gjson.ParseBytes(ev.Data)
		switch ev.Name {
		case "content_block_delta":
			text.WriteString(d.Get("delta.text").Str)
		case "message_start":
			u := d.Get("message.usage")
			in, out, cr, cw = u.Get("input_tokens").Int(), u.Get("output_tokens").Int(),
				u.Get("cache_read_input_tokens").Int(), u.Get("cache_creation_input_tokens").Int()
		case "message_delta":
			out = d.Get("usage.output_tokens").Int()
		}
	}
	wantUsage := catalog.Usage{InputTokens: in + cr + cw, OutputTokens: out, TotalTokens: in + cr + cw + out, CachedInputTokens: cr, CacheWriteInputTokens: cw}
	msgID := gjson.GetBytes(events[0].Data, "message.id").Str

	for _, includeUsage := range []bool{false, true} {
		s := NewMessagesToChatStream("alias", includeUsage)
		res := anthReadChatStream(t, anthRunStream(t, s.Feed, s.Finish, events))
		if !res.Done || res.Error != "" {
			t.Fatalf("stream not finished: %+v", res)
		}
		if res.Content != text.String() || res.Content != "Hello World" {
			t.Fatalf("content %q, want %q", res.Content, text.String())
		}
		if res.ID != msgID || res.Model != "alias" || res.Finish != "stop" {
			t.Fatalf("%+v", res)
		}
		u, ok := s.Usage()
		if !ok || u != wantUsage {
			t.Fatalf("Usage() = %+v %v, want %+v", u, ok, wantUsage)
		}
		if includeUsage != (res.Usage != nil) {
			t.Fatalf("usage chunk present = %v with includeUsage %v", res.Usage != nil, includeUsage)
		}
		if res.Usage != nil && (res.Usage.PromptTokens != wantUsage.InputTokens || res.Usage.CompletionTokens != wantUsage.OutputTokens ||
			res.Usage.TotalTokens != wantUsage.TotalTokens) {
			t.Fatalf("usage chunk %+v", res.Usage)
		}
		if s.Finish() != nil {
			t.Fatal("Finish after the end returned output")
		}
	}
}

func TestMessagesToChatStreamContent(t *testing.T) {
	events := []sse.Event{
		anthEv(`{"type":"message_start","message":{"id":"msg_7","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"cache_creation_input_tokens":20,"cache_read_input_tokens":100,"output_tokens":1}}}`),
		anthEv(`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`),
		anthEv(`{"type":"ping"}`),
		anthEv(`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me \"think\"."}}`),
		anthEv(`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" Done\n"}}`),
		anthEv(`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig=="}}`),
		anthEv(`{"type":"content_block_stop","index":0}`),
		anthEv(`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`),
		anthEv(`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Checking ✓"}}`),
		anthEv(`{"type":"content_block_stop","index":1}`),
		anthEv(`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_a","name":"get_weather","input":{}}}`),
		anthEv(`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}`),
		anthEv(`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"location\": \"Pa"}}`),
		anthEv(`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"ris\"}"}}`),
		anthEv(`{"type":"content_block_stop","index":2}`),
		anthEv(`{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_b","name":"get_time","input":{}}}`),
		anthEv(`{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"tz\":\"CET\"}"}}`),
		anthEv(`{"type":"content_block_stop","index":3}`),
		anthEv(`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":42}}`),
		anthEv(`{"type":"message_stop"}`),
	}
	s := NewMessagesToChatStream("", true)
	res := anthReadChatStream(t, anthRunStream(t, s.Feed, s.Finish, events))
	if res.Model != "claude-x" || res.ID != "msg_7" || !res.Done {
		t.Fatalf("%+v", res)
	}
	if res.Reasoning != "Let me \"think\". Done\n" || res.Content != "Checking ✓" {
		t.Fatalf("reasoning %q content %q", res.Reasoning, res.Content)
	}
	if len(res.ThinkingBlocks) != 1 || res.ThinkingBlocks[0] != (anthThinkingBlock{Type: "thinking", Thinking: res.Reasoning, Signature: "sig=="}) {
		t.Fatalf("thinking blocks %+v", res.ThinkingBlocks)
	}
	if len(res.ToolCalls) != 2 || res.ToolCalls[0].ID != "toolu_a" || res.ToolCalls[0].Function.Name != "get_weather" ||
		res.ToolCalls[0].Function.Arguments != `{"location": "Paris"}` || res.ToolCalls[1].ID != "toolu_b" ||
		res.ToolCalls[1].Function.Arguments != `{"tz":"CET"}` {
		t.Fatalf("tool calls %+v", res.ToolCalls)
	}
	if res.Finish != "tool_calls" {
		t.Fatalf("finish %q", res.Finish)
	}
	want := catalog.Usage{InputTokens: 125, OutputTokens: 42, TotalTokens: 167, CachedInputTokens: 100, CacheWriteInputTokens: 20}
	if u, _ := s.Usage(); u != want {
		t.Fatalf("usage %+v", u)
	}
	if u := res.Usage; u.PromptTokens != 125 || u.CompletionTokens != 42 || u.PromptTokensDetails.CachedTokens != 100 || u.PromptTokensDetails.CacheWriteTokens != 20 {
		t.Fatalf("usage chunk %+v", u)
	}
}

func TestMessagesToChatStreamJSONTool(t *testing.T) {
	events := []sse.Event{
		anthEv(`{"type":"message_start","message":{"id":"msg_j","model":"claude-x","usage":{"input_tokens":5,"output_tokens":1}}}`),
		anthEv(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_j","name":"modelgate_json_response","input":{}}}`),
		anthEv(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}`),
		anthEv(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"1}"}}`),
		anthEv(`{"type":"content_block_stop","index":0}`),
		anthEv(`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}`),
		anthEv(`{"type":"message_stop"}`),
	}
	s := NewMessagesToChatStream("", false)
	res := anthReadChatStream(t, anthRunStream(t, s.Feed, s.Finish, events))
	if res.Content != `{"a":1}` || len(res.ToolCalls) != 0 || res.Finish != "stop" {
		t.Fatalf("%+v", res)
	}
}

func TestMessagesToChatStreamEnds(t *testing.T) {
	start := anthEv(`{"type":"message_start","message":{"id":"msg_e","model":"m","usage":{"input_tokens":5,"output_tokens":1}}}`)
	text := []sse.Event{
		anthEv(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
		anthEv(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"par"}}`),
	}
	t.Run("error event", func(t *testing.T) {
		s := NewMessagesToChatStream("", true)
		events := append([]sse.Event{start}, text...)
		events = append(events, sse.Event{Name: "error", Data: []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)},
			anthEv(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ignored"}}`))
		out := anthRunStream(t, s.Feed, s.Finish, events)
		res := anthReadChatStream(t, out)
		if res.Error != "Overloaded" || res.Done || res.Content != "par" {
			t.Fatalf("%+v", res)
		}
		if !bytes.Contains(out, []byte(`"type":"provider_error"`)) || !bytes.Contains(out, []byte(`"code":"overloaded_error"`)) {
			t.Fatalf("error chunk: %s", out)
		}
	})
	t.Run("broken off", func(t *testing.T) {
		s := NewMessagesToChatStream("", false)
		res := anthReadChatStream(t, anthRunStream(t, s.Feed, s.Finish, append([]sse.Event{start}, text...)))
		if res.Error == "" || res.Done {
			t.Fatalf("%+v", res)
		}
	})
	t.Run("no message_stop", func(t *testing.T) {
		s := NewMessagesToChatStream("", true)
		events := append(append([]sse.Event{start}, text...),
			anthEv(`{"type":"content_block_stop","index":0}`),
			anthEv(`{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":3}}`))
		res := anthReadChatStream(t, anthRunStream(t, s.Feed, s.Finish, events))
		if !res.Done || res.Finish != "length" || res.Usage == nil || res.Usage.CompletionTokens != 3 {
			t.Fatalf("%+v", res)
		}
	})
	t.Run("events without names, bad JSON", func(t *testing.T) {
		s := NewMessagesToChatStream("", false)
		if _, err := s.Feed(sse.Event{Data: []byte(`{"type":"message_start","message":{"id":"m1","model":"x","usage":{}}}`)}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Feed(sse.Event{Name: "content_block_delta", Data: []byte(`{nope`)}); err == nil {
			t.Fatal("want error for bad JSON")
		}
		if out, err := s.Feed(sse.Event{}); out != nil || err != nil {
			t.Fatalf("empty event: %q %v", out, err)
		}
		out, _ := s.Feed(sse.Event{Data: []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}`)})
		if !bytes.Contains(out, []byte(`"content":"x"`)) {
			t.Fatalf("%s", out)
		}
	})
}

func TestChatToMessagesStreamFixtures(t *testing.T) {
	for _, family := range []string{"openai", "groq", "gemini"} {
		t.Run(family, func(t *testing.T) {
			events := sse.Split(fixtures.Must(t, family, "chat_completion_stream.txt"))
			var text strings.Builder
			var usage gjson.Result
			for _, ev := range events {
				text.WriteString(gjson.GetBytes(ev.Data, "choices.0.delta.content").Str)
				if u := gjson.GetBytes(ev.Data, "usage"); u.IsObject() {
					usage = u
				}
			}
			s := NewChatToMessagesStream("", nil)
			msg, errMsg := anthReadMessagesStream(t, anthRunStream(t, s.Feed, s.Finish, events))
			if errMsg != "" {
				t.Fatal(errMsg)
			}
			if len(msg.Content) != 1 || msg.Content[0].Type != "text" || msg.Content[0].Text != text.String() || text.Len() == 0 {
				t.Fatalf("content %+v, want %q", msg.Content, text.String())
			}
			if *msg.StopReason != "end_turn" || msg.ID != "msg_"+strings.TrimPrefix(gjson.GetBytes(events[0].Data, "id").Str, "chatcmpl-") {
				t.Fatalf("%+v", msg)
			}
			if msg.Usage.InputTokens != usage.Get("prompt_tokens").Int() || msg.Usage.OutputTokens != usage.Get("completion_tokens").Int() {
				t.Fatalf("usage %+v, want %s", msg.Usage, usage.Raw)
			}
			u, ok := s.Usage()
			if ok != usage.Exists() || u.InputTokens != usage.Get("prompt_tokens").Int() || u.TotalTokens != usage.Get("total_tokens").Int() {
				t.Fatalf("Usage() = %+v, %v", u, ok)
			}
		})
	}
}

// anthChunk builds a chat chunk event around a choice (or, with choice "",
// an empty choices array) and extra top-level members.
func anthChunk(choice, extra string) sse.Event {
	choices := `[]`
	if choice != "" {
		choices = `[{"index":0,` + choice + `}]`
	}
	if extra != "" {
		extra = "," + extra
	}
	return sse.Event{Data: []byte(`{"id":"chatcmpl-9","object":"chat.completion.chunk","created":1,"model":"gpt-x","choices":` + choices + extra + `}`)}
}

func TestChatToMessagesStreamContent(t *testing.T) {
	events := []sse.Event{
		anthChunk(`"delta":{"role":"assistant","content":""},"finish_reason":null`, ""),
		anthChunk(`"delta":{"reasoning_content":"Hmm"},"finish_reason":null`, ""),
		anthChunk(`"delta":{"reasoning_content":"…"},"finish_reason":null`, ""),
		anthChunk(`"delta":{"content":"I'll "},"finish_reason":null`, ""),
		anthChunk(`"delta":{"content":"check."},"finish_reason":null`, ""),
		anthChunk(`"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null`, ""),
		anthChunk(`"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"loc"}}]},"finish_reason":null`, ""),
		anthChunk(`"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ation\":\"Paris\"}"}}]},"finish_reason":null`, ""),
		anthChunk(`"delta":{"tool_calls":[{"index":1,"id":"call:b","type":"function","function":{"name":"get_time","arguments":"{}"}}]},"finish_reason":null`, ""),
		anthChunk(`"delta":{},"finish_reason":"tool_calls"`, ""),
		anthChunk("", `"usage":{"prompt_tokens":50,"completion_tokens":20,"total_tokens":70,"prompt_tokens_details":{"cached_tokens":30},"completion_tokens_details":{"reasoning_tokens":8}}`),
		{Data: []byte("[DONE]")},
	}
	s := NewChatToMessagesStream("alias", nil)
	out := anthRunStream(t, s.Feed, s.Finish, events)
	msg, errMsg := anthReadMessagesStream(t, out)
	if errMsg != "" {
		t.Fatal(errMsg)
	}
	if msg.Model != "alias" || msg.ID != "msg_9" || len(msg.Content) != 4 {
		t.Fatalf("%+v", msg)
	}
	c := msg.Content
	if c[0].Type != "thinking" || c[0].Thinking != "Hmm…" || c[1].Text != "I'll check." ||
		c[2].Type != "tool_use" || c[2].ID != "call_a" || c[2].Name != "get_weather" || string(c[2].Input) != `{"location":"Paris"}` ||
		c[3].ID != "call_b" || c[3].Name != "get_time" || string(c[3].Input) != `{}` {
		t.Fatalf("content %+v", c)
	}
	if *msg.StopReason != "tool_use" || msg.Usage != (anthUsage{InputTokens: 20, CacheReadInputTokens: 30, OutputTokens: 20}) {
		t.Fatalf("stop %s usage %+v", *msg.StopReason, msg.Usage)
	}
	if u, _ := s.Usage(); u != (catalog.Usage{InputTokens: 50, OutputTokens: 20, TotalTokens: 70, CachedInputTokens: 30, ReasoningTokens: 8}) {
		t.Fatalf("Usage() %+v", u)
	}
}

func TestChatToMessagesStreamWholeToolCalls(t *testing.T) {
	// Gemini-style: complete parallel tool calls in one chunk, finish in
	// the same chunk, no usage, no [DONE].
	events := []sse.Event{
		anthChunk(`"delta":{"role":"assistant","tool_calls":[
			{"index":0,"id":"function-call-1","type":"function","function":{"name":"a","arguments":"{\"x\":1}"}},
			{"index":1,"id":"function-call-2","type":"function","function":{"name":"b","arguments":"{\"y\":2}"}}]},"finish_reason":"tool_calls"`, ""),
	}
	s := NewChatToMessagesStream("", nil)
	msg, _ := anthReadMessagesStream(t, anthRunStream(t, s.Feed, s.Finish, events))
	if len(msg.Content) != 2 || msg.Content[0].Name != "a" || string(msg.Content[1].Input) != `{"y":2}` || *msg.StopReason != "tool_use" {
		t.Fatalf("%+v", msg)
	}
	if _, ok := s.Usage(); ok {
		t.Fatal("usage reported without any")
	}
}

func TestChatToMessagesStreamEnds(t *testing.T) {
	first := anthChunk(`"delta":{"role":"assistant","content":"Hi"},"finish_reason":null`, "")
	t.Run("error chunk", func(t *testing.T) {
		s := NewChatToMessagesStream("", nil)
		out := anthRunStream(t, s.Feed, s.Finish, []sse.Event{first,
			{Data: []byte(`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`)},
			{Data: []byte("[DONE]")}})
		_, errMsg := anthReadMessagesStream(t, out)
		if errMsg != "Rate limit reached" || !bytes.Contains(out, []byte(`"type":"rate_limit_error"`)) {
			t.Fatalf("%q\n%s", errMsg, out)
		}
		if bytes.Contains(out, []byte("message_stop")) {
			t.Fatal("message_stop after error")
		}
	})
	t.Run("broken off", func(t *testing.T) {
		s := NewChatToMessagesStream("", nil)
		_, errMsg := anthReadMessagesStream(t, anthRunStream(t, s.Feed, s.Finish, []sse.Event{first}))
		if errMsg == "" {
			t.Fatal("want error event")
		}
	})
	t.Run("finished without DONE", func(t *testing.T) {
		s := NewChatToMessagesStream("", nil)
		msg, errMsg := anthReadMessagesStream(t, anthRunStream(t, s.Feed, s.Finish, []sse.Event{first,
			anthChunk(`"delta":{},"finish_reason":"length"`, `"usage":{"prompt_tokens":4,"completion_tokens":1,"total_tokens":5}`)}))
		if errMsg != "" || *msg.StopReason != "max_tokens" || msg.Usage.InputTokens != 4 || msg.Content[0].Text != "Hi" {
			t.Fatalf("%+v %q", msg, errMsg)
		}
	})
	t.Run("empty stream", func(t *testing.T) {
		s := NewChatToMessagesStream("m", nil)
		msg, errMsg := anthReadMessagesStream(t, anthRunStream(t, s.Feed, s.Finish, []sse.Event{{Data: []byte("[DONE]")}}))
		if errMsg != "" || len(msg.Content) != 0 || *msg.StopReason != "end_turn" {
			t.Fatalf("%+v %q", msg, errMsg)
		}
	})
	t.Run("refusal", func(t *testing.T) {
		s := NewChatToMessagesStream("", nil)
		msg, _ := anthReadMessagesStream(t, anthRunStream(t, s.Feed, s.Finish, []sse.Event{
			anthChunk(`"delta":{"role":"assistant","refusal":"No."},"finish_reason":null`, ""),
			anthChunk(`"delta":{},"finish_reason":"stop"`, ""), {Data: []byte("[DONE]")}}))
		if *msg.StopReason != "refusal" || msg.Content[0].Text != "No." {
			t.Fatalf("%+v", msg)
		}
	})
	t.Run("bad chunk", func(t *testing.T) {
		s := NewChatToMessagesStream("", nil)
		if _, err := s.Feed(sse.Event{Data: []byte("{")}); err == nil {
			t.Fatal("want error")
		}
		if out, err := s.Feed(sse.Event{Data: []byte(" ")}); out != nil || err != nil {
			t.Fatalf("keep-alive: %q %v", out, err)
		}
	})
}

// TestStreamsMatchResponses checks that a stream and the non-streamed
// response carrying the same message convert to the same result.
func TestStreamsMatchResponses(t *testing.T) {
	resp, _, err := ChatToMessagesResponse([]byte(`{"id":"c1","model":"m","choices":[{"index":0,"message":{"role":"assistant",
		"content":"Hello","tool_calls":[{"id":"t1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},
		"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	s := NewChatToMessagesStream("", nil)
	streamed, _ := anthReadMessagesStream(t, anthRunStream(t, s.Feed, s.Finish, []sse.Event{
		{Data: []byte(`{"id":"c1","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"}}]}`)},
		{Data: []byte(`{"id":"c1","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"t1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]}}]}`)},
		{Data: []byte(`{"id":"c1","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`)},
		{Data: []byte(`[DONE]`)},
	}))
	var whole anthMessage
	anthStrictDecode(t, resp, &whole)
	a, _ := json.Marshal(whole)
	b, _ := json.Marshal(streamed)
	if !bytes.Equal(a, b) {
		t.Fatalf("response %s\nstream   %s", a, b)
	}
}
