package responses

import (
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/platform/sse"
	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

// benchRequest is a typical agent turn: instructions, tools, a few
// messages, a tool call and its result.
var benchRequest = []byte(`{"model":"gpt-4o-mini","instructions":"You are a careful coding assistant. ` + strings.Repeat("Follow the rules. ", 40) + `","input":[` +
	`{"type":"message","role":"developer","content":[{"type":"input_text","text":"Workspace: /src/app"}]},` +
	`{"type":"message","role":"user","content":[{"type":"input_text","text":"Fix the failing test in parser_test.go and explain."}]},` +
	`{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAAAB` + strings.Repeat("x", 200) + `"},` +
	`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Let me read the file.","annotations":[]}]},` +
	`{"type":"function_call","id":"fc_1","call_id":"call_1","name":"read_file","arguments":"{\"path\":\"parser_test.go\"}"},` +
	`{"type":"function_call_output","call_id":"call_1","output":"` + strings.Repeat(`func TestX(t *testing.T) {\n\tt.Fatal(\"boom\")\n}\n`, 20) + `"}],` +
	`"tools":[{"type":"function","name":"read_file","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]},"strict":true},` +
	`{"type":"function","name":"write_file","description":"Write a file","parameters":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}}],` +
	`"tool_choice":"auto","parallel_tool_calls":true,"reasoning":{"effort":"medium","summary":"auto"},"store":false,"include":["reasoning.encrypted_content"],"stream":true,"prompt_cache_key":"sess-1"}`)

func BenchmarkResponsesToChatRequest(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchRequest)))
	for i := 0; i < b.N; i++ {
		if _, err := ResponsesToChatRequest(benchRequest, translate.ChatTarget{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkChatToResponsesResponse(b *testing.B) {
	for _, name := range []string{"chat_completion.json", "chat_with_tools.json"} {
		chat := fixtures.Must(b, "openai", name)
		b.Run(strings.TrimSuffix(name, ".json"), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(chat)))
			for i := 0; i < b.N; i++ {
				if _, _, err := ChatToResponsesResponse(chat, benchRequest); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkResponsesStreamDelta is the steady-state cost of one upstream
// text chunk: one response.output_text.delta out.
func BenchmarkResponsesStreamDelta(b *testing.B) {
	chunk := sse.Event{Data: []byte(`{"id":"chatcmpl-D0q8CZXN1uEzngZGkU7FuV92lnXWq","object":"chat.completion.chunk","created":1769092764,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_29330a9688","choices":[{"index":0,"delta":{"content":" word"},"logprobs":null,"finish_reason":null}],"obfuscation":"ZGF"}`)}
	b.ReportAllocs()
	b.SetBytes(int64(len(chunk.Data)))
	var s *ChatToResponsesStream
	for i := 0; i < b.N; i++ {
		if i%1000 == 0 {
			b.StopTimer()
			s = NewChatToResponsesStream(benchRequest)
			_, _ = s.Feed(chunk)
			b.StartTimer()
		}
		if _, err := s.Feed(chunk); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResponsesStreamWhole translates a whole 50-chunk answer with a
// usage chunk, start to response.completed; ns/event is per upstream event.
func BenchmarkResponsesStreamWhole(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 50; i++ {
		sb.WriteString(`data: {"id":"chatcmpl-c","object":"chat.completion.chunk","created":1769092764,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":" word"},"finish_reason":null}]}` + "\n\n")
	}
	sb.WriteString(`data: {"id":"chatcmpl-c","object":"chat.completion.chunk","created":1769092764,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n")
	sb.WriteString(`data: {"id":"chatcmpl-c","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":50,"total_tokens":59}}` + "\n\ndata: [DONE]\n\n")
	events := sse.Split([]byte(sb.String()))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s := NewChatToResponsesStream(benchRequest)
		for _, ev := range events {
			if _, err := s.Feed(ev); err != nil {
				b.Fatal(err)
			}
		}
		s.Finish()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/event")
}
