package audit

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

// TestStreamedBodyChat: chat chunks add up to a chat.completion with the
// content, the tool calls assembled from their fragments, the finish
// reason and the usage chunk.
func TestStreamedBodyChat(t *testing.T) {
	sse := `data: {"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"ci"}}]}}]}

data: {"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}]}

data: {"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}

data: [DONE]

`
	want := `{"id":"c1","object":"chat.completion","created":7,"model":"m",
		"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":"Hello",
		"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}}],
		"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`
	checkJSON(t, StreamedBody(StreamChat, []byte(sse)), want)
}

// TestStreamedBodyMessages: the recorded Anthropic stream adds up to its
// message: text, stop reason and the final usage.
func TestStreamedBodyMessages(t *testing.T) {
	got := StreamedBody(StreamMessages, fixtures.Must(t, "anthropic", "messages_stream.txt"))
	var m struct {
		Type       string `json:"type"`
		ID         string `json:"id"`
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type, Text string
		} `json:"content"`
		Usage struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatal(err)
	}
	if m.Type != "message" || m.ID == "" || m.StopReason != "end_turn" || len(m.Content) != 1 ||
		m.Content[0].Text != "Hello World" || m.Usage.InputTokens != 10 || m.Usage.OutputTokens != 5 {
		t.Fatalf("%s", got)
	}
	// Tool input arrives as JSON fragments and is stored parsed.
	tool := `data: {"type":"message_start","message":{"id":"m1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":1}}}

data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"tu1","name":"f","input":{}}}

data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}

data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"1}"}}

data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":4}}

`
	checkJSON(t, StreamedBody(StreamMessages, []byte(tool)), `{"id":"m1","type":"message","role":"assistant",
		"content":[{"type":"tool_use","id":"tu1","name":"f","input":{"a":1}}],"stop_reason":"tool_use",
		"usage":{"input_tokens":1,"output_tokens":4}}`)
}

// TestStreamedBodyResponses: a Responses stream is stored as the response
// object of its response.completed event.
func TestStreamedBodyResponses(t *testing.T) {
	got := StreamedBody(StreamResponses, fixtures.Must(t, "openai", "responses_stream.txt"))
	var r struct{ Object, Status string }
	if err := json.Unmarshal(got, &r); err != nil || r.Object != "response" || r.Status != "completed" {
		t.Fatalf("%s (%v)", got, err)
	}
}

// TestStreamedBodyAuto: a stream of unknown format is recognised by its
// events.
func TestStreamedBodyAuto(t *testing.T) {
	for _, c := range []struct{ family, name, field, want string }{
		{"anthropic", "messages_stream.txt", "type", "message"},
		{"openai", "responses_stream.txt", "object", "response"},
		{"openai", "chat_completion_stream.txt", "object", "chat.completion"},
	} {
		var v map[string]any
		got := StreamedBody(StreamAuto, fixtures.Must(t, c.family, c.name))
		if err := json.Unmarshal(got, &v); err != nil || v[c.field] != c.want {
			t.Errorf("%s/%s: %.200s", c.family, c.name, got)
		}
	}
}

// TestStreamedBodyUnrecognised: a stream that adds up to nothing is kept
// as text; an empty one is nil.
func TestStreamedBodyUnrecognised(t *testing.T) {
	// A stream of no shape's answer (an error event) is recorded as its
	// text, whatever shape was expected.
	for _, kind := range []StreamKind{StreamResponses, StreamMessages, StreamChat, StreamAuto} {
		got := StreamedBody(kind, []byte("event: error\ndata: {\"type\":\"error\"}\n\n"))
		var s string
		if err := json.Unmarshal(got, &s); err != nil || !strings.Contains(s, `"error"`) {
			t.Errorf("kind %v: %s", kind, got)
		}
	}
	if StreamedBody(StreamChat, nil) != nil {
		t.Fatal("an empty stream recorded a body")
	}
}

func checkJSON(t *testing.T, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Fatalf("got  %s\nwant %s", gb, wb)
	}
}
