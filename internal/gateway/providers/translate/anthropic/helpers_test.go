package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/platform/sse"
	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

// anthStrictDecode decodes b into v, failing on members v does not
// declare, so that a misspelt or unexpected field in the output is caught.
func anthStrictDecode(t testing.TB, b []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decode %T: %v\n%s", v, err, b)
	}
}

// anthJSONEq fails unless got and want are the same JSON value.
func anthJSONEq(t testing.TB, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want: %v", err)
	}
	if !reflect.DeepEqual(g, w) {
		gi, _ := json.MarshalIndent(g, "", "  ")
		wi, _ := json.MarshalIndent(w, "", "  ")
		t.Fatalf("JSON differs\n got: %s\nwant: %s", gi, wi)
	}
}

// anthWantError fails unless err is an *translate.Error with the given Param whose
// message contains substr.
func anthWantError(t testing.TB, err error, param, substr string) {
	t.Helper()
	var te *translate.Error
	if !errors.As(err, &te) {
		t.Fatalf("want *translate.Error (param %q), got %v", param, err)
	}
	if te.Param != param {
		t.Fatalf("param = %q, want %q (message %q)", te.Param, param, te.Message)
	}
	if !strings.Contains(te.Message, substr) {
		t.Fatalf("message %q does not contain %q", te.Message, substr)
	}
}

// OpenAI chat completion shapes, as the official SDKs read them.

type anthChatCompletion struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index        int             `json:"index"`
		Message      anthChatMessage `json:"message"`
		Logprobs     json.RawMessage `json:"logprobs"`
		FinishReason string          `json:"finish_reason"`
	} `json:"choices"`
	Usage anthChatUsage `json:"usage"`
}

type anthChatMessage struct {
	Role             string              `json:"role"`
	Content          *string             `json:"content"`
	ReasoningContent *string             `json:"reasoning_content"`
	ThinkingBlocks   []anthThinkingBlock `json:"thinking_blocks"`
	ToolCalls        []anthChatToolCall  `json:"tool_calls"`
}

type anthThinkingBlock struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
	Data      string `json:"data"`
}

type anthChatToolCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type anthChatUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	TotalTokens         int64 `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens     int64 `json:"cached_tokens"`
		CacheWriteTokens int64 `json:"cache_write_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

type anthChatChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Role             string              `json:"role"`
			Content          *string             `json:"content"`
			ReasoningContent *string             `json:"reasoning_content"`
			ThinkingBlocks   []anthThinkingBlock `json:"thinking_blocks"`
			ToolCalls        []anthChatToolCall  `json:"tool_calls"`
		} `json:"delta"`
		Logprobs     json.RawMessage `json:"logprobs"`
		FinishReason *string         `json:"finish_reason"`
	} `json:"choices"`
	Usage *anthChatUsage `json:"usage"`
	Error *struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

// anthChatStream is what a client assembles from a chat chunk stream.
type anthChatStream struct {
	ID, Model      string
	Content        string
	Reasoning      string
	ThinkingBlocks []anthThinkingBlock
	ToolCalls      []anthChatToolCall
	Finish         string
	Usage          *anthChatUsage
	Error          string
	Done           bool
	Chunks         int
}

// anthReadChatStream checks and assembles a chat chunk stream: every frame
// is "data: ...\n\n", every chunk decodes strictly, one id throughout,
// role first, usage only in a chunk with empty choices, nothing after
// [DONE] or an error.
func anthReadChatStream(t testing.TB, out []byte) anthChatStream {
	t.Helper()
	var s anthChatStream
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n\n")) {
		t.Fatalf("stream does not end with a blank line: %q", out)
	}
	for _, frame := range bytes.Split(bytes.TrimSuffix(out, []byte("\n\n")), []byte("\n\n")) {
		if len(frame) == 0 {
			continue
		}
		if s.Done || s.Error != "" {
			t.Fatalf("frame after the end: %q", frame)
		}
		data, ok := bytes.CutPrefix(frame, []byte("data: "))
		if !ok || bytes.Contains(data, []byte("\n")) {
			t.Fatalf("bad frame %q", frame)
		}
		if string(data) == "[DONE]" {
			s.Done = true
			continue
		}
		var c anthChatChunk
		anthStrictDecode(t, data, &c)
		if c.Error != nil {
			s.Error = c.Error.Message
			continue
		}
		s.Chunks++
		if c.Object != "chat.completion.chunk" || c.ID == "" || c.Created == 0 {
			t.Fatalf("bad chunk head: %s", data)
		}
		if s.ID == "" {
			s.ID, s.Model = c.ID, c.Model
		} else if c.ID != s.ID || c.Model != s.Model {
			t.Fatalf("id/model changed: %s", data)
		}
		if c.Usage != nil {
			if len(c.Choices) != 0 {
				t.Fatalf("usage chunk with choices: %s", data)
			}
			s.Usage = c.Usage
			continue
		}
		if len(c.Choices) != 1 || c.Choices[0].Index != 0 {
			t.Fatalf("want one choice: %s", data)
		}
		d := c.Choices[0].Delta
		if s.Chunks == 1 && d.Role != "assistant" {
			t.Fatalf("first chunk without role: %s", data)
		}
		if d.Content != nil {
			s.Content += *d.Content
		}
		if d.ReasoningContent != nil {
			s.Reasoning += *d.ReasoningContent
		}
		s.ThinkingBlocks = append(s.ThinkingBlocks, d.ThinkingBlocks...)
		for _, tc := range d.ToolCalls {
			if tc.Index == nil {
				t.Fatalf("tool call delta without index: %s", data)
			}
			i := *tc.Index
			switch {
			case i == len(s.ToolCalls):
				if tc.ID == "" || tc.Function.Name == "" || tc.Type != "function" {
					t.Fatalf("first delta of tool call %d lacks id/name/type: %s", i, data)
				}
				s.ToolCalls = append(s.ToolCalls, tc)
			case i < len(s.ToolCalls):
				s.ToolCalls[i].Function.Arguments += tc.Function.Arguments
			default:
				t.Fatalf("tool call index %d skips ahead: %s", i, data)
			}
		}
		if f := c.Choices[0].FinishReason; f != nil {
			if s.Finish != "" {
				t.Fatalf("second finish_reason: %s", data)
			}
			s.Finish = *f
		}
	}
	return s
}

// Anthropic Messages shapes, as the official SDKs read them.

type anthMessage struct {
	ID           string      `json:"id"`
	Type         string      `json:"type"`
	Role         string      `json:"role"`
	Model        string      `json:"model"`
	Content      []anthBlock `json:"content"`
	StopReason   *string     `json:"stop_reason"`
	StopSequence *string     `json:"stop_sequence"`
	Usage        anthUsage   `json:"usage"`
}

type anthBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

type anthUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

type anthStreamEvent struct {
	Type         string       `json:"type"`
	Message      *anthMessage `json:"message"`
	Index        *int         `json:"index"`
	ContentBlock *anthBlock   `json:"content_block"`
	Delta        *struct {
		Type         string  `json:"type"`
		Text         string  `json:"text"`
		Thinking     string  `json:"thinking"`
		PartialJSON  string  `json:"partial_json"`
		Signature    string  `json:"signature"`
		StopReason   string  `json:"stop_reason"`
		StopSequence *string `json:"stop_sequence"`
	} `json:"delta"`
	Usage *anthUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// anthReadMessagesStream checks an Anthropic event stream the way a strict
// client would and assembles the message: message_start first; blocks
// opened with consecutive indexes, one at a time, deltas of the right kind
// on the open block, each closed before the next opens; message_delta with
// a stop_reason after the last block; message_stop last. An error event
// ends the stream early; its message is returned.
func anthReadMessagesStream(t testing.TB, out []byte) (anthMessage, string) {
	t.Helper()
	var msg anthMessage
	var partial []string
	open, next := -1, 0
	state := "start" // start, body, delta, stop
	for _, ev := range sse.Split(out) {
		var e anthStreamEvent
		anthStrictDecode(t, ev.Data, &e)
		if e.Type != ev.Name {
			t.Fatalf("event name %q carries type %q", ev.Name, e.Type)
		}
		if state == "stop" {
			t.Fatalf("event after message_stop: %s", ev.Data)
		}
		if e.Type == "error" {
			return msg, e.Error.Message
		}
		if state == "start" && e.Type != "message_start" {
			t.Fatalf("first event is %s", e.Type)
		}
		switch e.Type {
		case "message_start":
			if state != "start" {
				t.Fatalf("second message_start")
			}
			msg = *e.Message
			if msg.Type != "message" || msg.Role != "assistant" || msg.ID == "" || len(msg.Content) != 0 {
				t.Fatalf("bad message_start: %s", ev.Data)
			}
			state = "body"
		case "ping":
		case "content_block_start":
			if state != "body" || open >= 0 || *e.Index != next {
				t.Fatalf("content_block_start index %d (open %d, next %d, state %s)", *e.Index, open, next, state)
			}
			open = next
			next++
			msg.Content = append(msg.Content, *e.ContentBlock)
			partial = append(partial, "")
		case "content_block_delta":
			if *e.Index != open {
				t.Fatalf("delta for block %d while %d is open", *e.Index, open)
			}
			b := &msg.Content[open]
			switch e.Delta.Type {
			case "text_delta":
				if b.Type != "text" {
					t.Fatalf("text_delta on %s block", b.Type)
				}
				b.Text += e.Delta.Text
			case "thinking_delta":
				if b.Type != "thinking" {
					t.Fatalf("thinking_delta on %s block", b.Type)
				}
				b.Thinking += e.Delta.Thinking
			case "signature_delta":
				b.Signature += e.Delta.Signature
			case "input_json_delta":
				if b.Type != "tool_use" {
					t.Fatalf("input_json_delta on %s block", b.Type)
				}
				partial[open] += e.Delta.PartialJSON
			default:
				t.Fatalf("unknown delta %s", e.Delta.Type)
			}
		case "content_block_stop":
			if *e.Index != open {
				t.Fatalf("stop for block %d while %d is open", *e.Index, open)
			}
			if b := &msg.Content[open]; b.Type == "tool_use" && partial[open] != "" {
				var obj map[string]any
				if err := json.Unmarshal([]byte(partial[open]), &obj); err != nil {
					t.Fatalf("tool input %q is not a JSON object: %v", partial[open], err)
				}
				b.Input = json.RawMessage(partial[open])
			}
			open = -1
		case "message_delta":
			if open >= 0 || state != "body" {
				t.Fatalf("message_delta with block %d open (state %s)", open, state)
			}
			if e.Delta.StopReason == "" {
				t.Fatalf("message_delta without stop_reason")
			}
			sr := e.Delta.StopReason
			msg.StopReason = &sr
			if e.Usage != nil {
				msg.Usage = *e.Usage
			}
			state = "delta"
		case "message_stop":
			if state != "delta" {
				t.Fatalf("message_stop before message_delta")
			}
			state = "stop"
		default:
			t.Fatalf("unknown event %s", e.Type)
		}
	}
	if state != "stop" {
		t.Fatalf("stream ended in state %s", state)
	}
	return msg, ""
}

// anthRunStream feeds events to a converter and returns all its output,
// Finish included.
func anthRunStream(t testing.TB, feed func(sse.Event) ([]byte, error), finish func() []byte, events []sse.Event) []byte {
	t.Helper()
	var out []byte
	for _, ev := range events {
		b, err := feed(ev)
		if err != nil {
			t.Fatalf("feed %s %s: %v", ev.Name, ev.Data, err)
		}
		out = append(out, b...)
	}
	return append(out, finish()...)
}

// globFixtures lists the recorded fixtures of family matching pattern and
// fails when there is none, so a loop over them cannot pass by running
// zero times.
func globFixtures(t testing.TB, family, pattern string) []string {
	t.Helper()
	names := fixtures.Glob(family, pattern)
	if len(names) == 0 {
		t.Fatalf("no fixtures %s/%s", family, pattern)
	}
	return names
}
