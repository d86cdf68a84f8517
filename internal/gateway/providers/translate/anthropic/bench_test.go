package anthropic

import (
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/platform/sse"
	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

// anthBenchChat is a typical agent turn: a system prompt, a few turns, a
// parallel tool call and its results, two tools.
var anthBenchChat = []byte(`{"model":"claude-sonnet-4","stream":true,"stream_options":{"include_usage":true},"max_completion_tokens":4096,"temperature":0.2,
"messages":[
{"role":"system","content":"You are a careful assistant. Answer briefly, cite tools you used, and never invent facts. Today is Tuesday."},
{"role":"user","content":"What's the weather in Paris and in Oslo, and which is warmer?"},
{"role":"assistant","content":"I'll check both cities.","tool_calls":[
 {"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\",\"unit\":\"celsius\"}"}},
 {"id":"call_2","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Oslo\",\"unit\":\"celsius\"}"}}]},
{"role":"tool","tool_call_id":"call_1","content":"{\"temperature\":18,\"conditions\":\"sunny\"}"},
{"role":"tool","tool_call_id":"call_2","content":"{\"temperature\":3,\"conditions\":\"snow\"}"},
{"role":"assistant","content":"Paris is 18°C and sunny; Oslo is 3°C with snow. Paris is warmer."},
{"role":"user","content":[{"type":"text","text":"And what about this picture?"},{"type":"image_url","image_url":{"url":"https://example.com/photo.jpg"}}]}],
"tools":[{"type":"function","function":{"name":"get_weather","description":"Current weather for a city","parameters":{"type":"object","properties":{"location":{"type":"string"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["location"]}}},
{"type":"function","function":{"name":"search","description":"Web search","parameters":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}}],
"tool_choice":"auto","user":"user-123"}`)

func BenchmarkChatToMessagesRequest(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(anthBenchChat)))
	for b.Loop() {
		if _, err := ChatToMessagesRequest(anthBenchChat, 4096); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMessagesToChatRequest(b *testing.B) {
	msgs, err := ChatToMessagesRequest(anthBenchChat, 4096)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(msgs)))
	for b.Loop() {
		if _, err := MessagesToChatRequest(msgs, translate.ChatTarget{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMessagesToChatRequest64KiB translates a request with a 64 KiB
// prompt, copying it (copy) or leaving it in the client's body (parts), as
// the gateway does.
func BenchmarkMessagesToChatRequest64KiB(b *testing.B) {
	msgs := []byte(`{"model":"m","max_tokens":32,"messages":[{"role":"user","content":"` + strings.Repeat("lorem ipsum ", 65536/12) + `"}]}`)
	for _, bc := range []struct {
		name string
		run  func() error
	}{
		{"copy", func() error { _, err := MessagesToChatRequest(msgs, translate.ChatTarget{}); return err }},
		{"parts", func() error { _, err := MessagesToChatRequestParts(msgs, translate.ChatTarget{}); return err }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(msgs)))
			for b.Loop() {
				if err := bc.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkMessagesToChatResponse(b *testing.B) {
	resp := fixtures.Must(b, "anthropic", "messages_with_tools.json")
	b.ReportAllocs()
	b.SetBytes(int64(len(resp)))
	for b.Loop() {
		if _, _, err := MessagesToChatResponse(resp, "alias"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkChatToMessagesResponse(b *testing.B) {
	resp := fixtures.Must(b, "openai", "chat_with_tools.json")
	b.ReportAllocs()
	b.SetBytes(int64(len(resp)))
	for b.Loop() {
		if _, _, err := ChatToMessagesResponse(resp, "alias"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMessagesToChatStreamEvent measures the steady state of a
// stream: one text_delta event in, one chunk out.
func BenchmarkMessagesToChatStreamEvent(b *testing.B) {
	s := NewMessagesToChatStream("alias", true)
	for _, ev := range sse.Split(fixtures.Must(b, "anthropic", "messages_stream.txt"))[:2] {
		if _, err := s.Feed(ev); err != nil {
			b.Fatal(err)
		}
	}
	ev := sse.Event{Name: "content_block_delta", Data: []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello World, this is a token"}}`)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Feed(ev); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMessagesToChatStreamToolEvent: one input_json_delta in, one
// tool_calls chunk out.
func BenchmarkMessagesToChatStreamToolEvent(b *testing.B) {
	s := NewMessagesToChatStream("alias", true)
	for _, d := range []string{
		`{"type":"message_start","message":{"id":"msg_1","model":"c","usage":{"input_tokens":5,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}`,
	} {
		if _, err := s.Feed(anthEv(d)); err != nil {
			b.Fatal(err)
		}
	}
	ev := anthEv(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"location\": \"Par"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Feed(ev); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChatToMessagesStreamEvent: one content chunk in, one
// content_block_delta out.
func BenchmarkChatToMessagesStreamEvent(b *testing.B) {
	s := NewChatToMessagesStream("alias", nil)
	events := sse.Split(fixtures.Must(b, "openai", "chat_completion_stream.txt"))
	for _, ev := range events[:2] {
		if _, err := s.Feed(ev); err != nil {
			b.Fatal(err)
		}
	}
	ev := events[2]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Feed(ev); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMessagesToChatStreamWhole converts the recorded stream end to
// end with a fresh converter, reporting the cost per event.
func BenchmarkMessagesToChatStreamWhole(b *testing.B) {
	events := sse.Split(fixtures.Must(b, "anthropic", "messages_stream.txt"))
	b.ReportAllocs()
	for b.Loop() {
		s := NewMessagesToChatStream("alias", true)
		for _, ev := range events {
			if _, err := s.Feed(ev); err != nil {
				b.Fatal(err)
			}
		}
		s.Finish()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/event")
}

func BenchmarkEstimateMessagesInputTokens(b *testing.B) {
	msgs, err := ChatToMessagesRequest(anthBenchChat, 4096)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EstimateMessagesInputTokens(msgs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChatToMessagesStreamWhole converts the recorded chat stream end
// to end with a fresh converter: without the client's request, and with
// the typical agent turn, whose input tokens message_start estimates (the
// difference is the estimate's cost per stream).
func BenchmarkChatToMessagesStreamWhole(b *testing.B) {
	events := sse.Split(fixtures.Must(b, "openai", "chat_completion_stream.txt"))
	msgs, err := ChatToMessagesRequest(anthBenchChat, 4096)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		req  []byte
	}{{"no request", nil}, {"agent turn", msgs}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s := NewChatToMessagesStream("alias", c.req)
				for _, ev := range events {
					if _, err := s.Feed(ev); err != nil {
						b.Fatal(err)
					}
				}
				s.Finish()
			}
		})
	}
}
