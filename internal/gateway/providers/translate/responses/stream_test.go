package responses

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/platform/sse"
	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

// streamedText is the text a recorded chat stream carries, decoded
// with encoding/json.
func streamedText(t *testing.T, upstream []sse.Event) string {
	var sb strings.Builder
	for _, ev := range upstream {
		if string(ev.Data) == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		decodeStrict(t, ev.Data, &c)
		for _, ch := range c.Choices {
			sb.WriteString(ch.Delta.Content)
		}
	}
	return sb.String()
}

// collapse drops consecutive repeats, so event sequences with a
// different number of deltas compare equal.
func collapse(types []string) []string {
	var out []string
	for _, s := range types {
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}

func TestChatToResponsesStreamFixtures(t *testing.T) {
	real, _ := checkStream(t, sse.Split(fixtures.Must(t, "openai", "responses_stream.txt")))
	realTypes := eventTypes(real)
	for _, c := range []struct {
		family string
		usage  *catalog.Usage
	}{
		{"openai", nil},
		{"groq", &catalog.Usage{InputTokens: 38, OutputTokens: 4, TotalTokens: 42}},
		{"gemini", nil},
	} {
		t.Run(c.family, func(t *testing.T) {
			upstream := sse.Split(fixtures.Must(t, c.family, "chat_completion_stream.txt"))
			want := streamedText(t, upstream)
			events, s := runStream(t, []byte(`{"model":"m","input":"hi","stream":true}`), upstream)
			evs, final := checkStream(t, events)

			var deltas strings.Builder
			for _, e := range evs {
				if e.name == "response.output_text.delta" {
					deltas.WriteString(e.str("delta"))
				}
			}
			if deltas.String() != want || final.outputText() != want || want == "" {
				t.Fatalf("deltas %q, final %q, upstream %q", deltas.String(), final.outputText(), want)
			}
			if final.Status != "completed" || evs[len(evs)-1].name != "response.completed" || final.CompletedAt == nil {
				t.Fatalf("final: %s", evs[len(evs)-1].raw)
			}
			got := eventTypes(evs)
			if c.family == "openai" {
				// Same number of text deltas as the recorded Responses
				// stream: the sequences must match exactly.
				if strings.Join(got, " ") != strings.Join(realTypes, " ") {
					t.Fatalf("event order\n got  %v\n real %v", got, realTypes)
				}
			} else if strings.Join(collapse(got), " ") != strings.Join(collapse(realTypes), " ") {
				t.Fatalf("event order\n got  %v\n real %v", got, realTypes)
			}
			u, ok := s.Usage()
			if c.usage == nil {
				if ok || final.Usage != nil {
					t.Fatalf("no upstream usage, got %+v %+v", u, final.Usage)
				}
			} else if !ok || u != *c.usage || final.Usage == nil || final.Usage.InputTokens != 38 || final.Usage.OutputTokens != 4 || final.Usage.TotalTokens != 42 {
				t.Fatalf("usage %+v %v, response %+v", u, ok, final.Usage)
			}
		})
	}
}

// TestChatToResponsesStreamEventShapes compares each translated event's
// fields with the recorded Responses stream, event by event (the upstream
// text has the same number of deltas). Only obfuscation (random padding)
// and billing are not produced.
func TestChatToResponsesStreamEventShapes(t *testing.T) {
	real := sse.Split(fixtures.Must(t, "openai", "responses_stream.txt"))
	events, _ := runStream(t, []byte(`{"model":"m","input":"hi","stream":true}`), sse.Split(fixtures.Must(t, "openai", "chat_completion_stream.txt")))
	if len(events) != len(real) {
		t.Fatalf("%d events, recorded %d", len(events), len(real))
	}
	keys := func(b []byte, sub string) string {
		var m map[string]json.RawMessage
		decodeStrict(t, b, &m)
		if sub != "" {
			if m[sub] == nil {
				return ""
			}
			var inner map[string]json.RawMessage
			decodeStrict(t, m[sub], &inner)
			m = inner
		}
		var ks []string
		for k := range m {
			if k != "obfuscation" && k != "billing" {
				ks = append(ks, k)
			}
		}
		sort.Strings(ks)
		return strings.Join(ks, ",")
	}
	for i := range real {
		for _, sub := range []string{"", "item", "part", "response"} {
			if g, w := keys(events[i].Data, sub), keys(real[i].Data, sub); g != w {
				t.Errorf("event %d %s %q fields\n got  %s\n real %s", i, real[i].Name, sub, g, w)
			}
		}
	}
}

const chunkHead = `{"id":"chatcmpl-T1","object":"chat.completion.chunk","created":1769092764,"model":"gpt-4o-mini","choices":[{"index":0,"delta":`

func chatChunk(delta string, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return chunkHead + delta + `,"finish_reason":` + f + `}]}`
}

func TestChatToResponsesStreamToolCalls(t *testing.T) {
	upstream := chatChunks(
		chatChunk(`{"role":"assistant","content":""}`, ""),
		chatChunk(`{"content":"Checking "}`, ""),
		chatChunk(`{"content":"both."}`, ""),
		chatChunk(`{"tool_calls":[{"index":0,"id":"call_A","type":"function","function":{"name":"get_weather","arguments":""}}]}`, ""),
		chatChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"location\":"}}]}`, ""),
		chatChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}`, ""),
		chatChunk(`{"tool_calls":[{"index":1,"id":"call_B","type":"function","function":{"name":"get_time","arguments":""}}]}`, ""),
		chatChunk(`{"tool_calls":[{"index":1,"function":{"arguments":"{}"}}]}`, ""),
		chatChunk(`{}`, "tool_calls"),
		`{"id":"chatcmpl-T1","object":"chat.completion.chunk","created":1769092764,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":50,"completion_tokens":30,"total_tokens":80,"prompt_tokens_details":{"cached_tokens":16},"completion_tokens_details":{"reasoning_tokens":0}}}`,
	)
	events, s := runStream(t, []byte(`{"model":"m","input":"x","stream":true,"tools":[{"type":"function","name":"get_weather"},{"type":"function","name":"get_time"}]}`), upstream)
	evs, final := checkStream(t, events)
	want := []string{
		"response.created", "response.in_progress",
		"response.output_item.added", "response.content_part.added", "response.output_text.delta", "response.output_text.delta",
		"response.output_text.done", "response.content_part.done", "response.output_item.done",
		"response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.delta",
		"response.function_call_arguments.done", "response.output_item.done",
		"response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.done", "response.output_item.done",
		"response.completed",
	}
	if got := eventTypes(evs); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("events\n got  %v\n want %v", got, want)
	}
	added := evs[9].m["item"].(map[string]any)
	if added["type"] != "function_call" || added["call_id"] != "call_A" || added["name"] != "get_weather" || added["arguments"] != "" || added["status"] != "in_progress" {
		t.Fatalf("function_call added: %s", evs[9].raw)
	}
	if len(final.Output) != 3 || final.outputText() != "Checking both." {
		t.Fatalf("final output: %+v", final.Output)
	}
	a, b := final.Output[1], final.Output[2]
	if a.CallID != "call_A" || a.Arguments != `{"location":"Paris"}` || a.Status != "completed" || b.CallID != "call_B" || b.Name != "get_time" || b.Arguments != "{}" {
		t.Fatalf("calls: %+v %+v", a, b)
	}
	u, ok := s.Usage()
	if !ok || u != (catalog.Usage{InputTokens: 50, OutputTokens: 30, TotalTokens: 80, CachedInputTokens: 16}) || final.Usage == nil || final.Usage.InputTokensDetails.CachedTokens != 16 {
		t.Fatalf("usage %+v %v %+v", u, ok, final.Usage)
	}
}

func TestChatToResponsesStreamToolCallShapes(t *testing.T) {
	req := []byte(`{"model":"m","input":"x","stream":true}`)
	t.Run("several calls in one chunk", func(t *testing.T) {
		// Gemini sends whole calls, several per chunk.
		events, _ := runStream(t, req, chatChunks(
			chatChunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}},{"index":1,"id":"c2","type":"function","function":{"name":"g","arguments":"{\"b\":2}"}}]}`, "tool_calls"),
		))
		_, final := checkStream(t, events)
		if len(final.Output) != 2 || final.Output[0].CallID != "c1" || final.Output[1].Arguments != `{"b":2}` {
			t.Fatalf("%+v", final.Output)
		}
	})
	t.Run("no index, distinct ids", func(t *testing.T) {
		events, _ := runStream(t, req, chatChunks(
			chatChunk(`{"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`, ""),
			chatChunk(`{"tool_calls":[{"id":"c2","type":"function","function":{"name":"g","arguments":"{}"}}]}`, "tool_calls"),
		))
		_, final := checkStream(t, events)
		if len(final.Output) != 2 || final.Output[0].CallID != "c1" || final.Output[1].CallID != "c2" {
			t.Fatalf("%+v", final.Output)
		}
	})
	t.Run("index reused with a new id", func(t *testing.T) {
		events, _ := runStream(t, req, chatChunks(
			chatChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{"}}]}`, ""),
			chatChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"}"}}]}`, ""),
			chatChunk(`{"tool_calls":[{"index":0,"id":"c2","function":{"name":"g","arguments":"[]"}}]}`, "tool_calls"),
		))
		_, final := checkStream(t, events)
		if len(final.Output) != 2 || final.Output[0].Arguments != "{}" || final.Output[1].CallID != "c2" || final.Output[1].Arguments != "[]" {
			t.Fatalf("%+v", final.Output)
		}
	})
	t.Run("missing call id is generated", func(t *testing.T) {
		events, _ := runStream(t, req, chatChunks(
			chatChunk(`{"tool_calls":[{"index":0,"function":{"name":"f","arguments":"{}"}}]}`, "tool_calls"),
		))
		_, final := checkStream(t, events)
		if len(final.Output) != 1 || !strings.HasPrefix(final.Output[0].CallID, "call_") {
			t.Fatalf("%+v", final.Output)
		}
	})
	t.Run("interleaved arguments fail", func(t *testing.T) {
		events, _ := runStream(t, req, chatChunks(
			chatChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{"}}]}`, ""),
			chatChunk(`{"tool_calls":[{"index":1,"id":"c2","function":{"name":"g","arguments":"{"}}]}`, ""),
			chatChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"}"}}]}`, ""),
		))
		evs, final := checkStream(t, events)
		if evs[len(evs)-1].name != "response.failed" || final.Status != "failed" || final.Error == nil || final.Error.Code != "server_error" {
			t.Fatalf("%v", eventTypes(evs))
		}
	})
}

func TestChatToResponsesStreamReasoningAndRefusal(t *testing.T) {
	events, _ := runStream(t, []byte(`{"model":"m","input":"x"}`), chatChunks(
		chatChunk(`{"role":"assistant","content":null,"reasoning_content":"Let me "}`, ""),
		chatChunk(`{"reasoning_content":"think."}`, ""),
		chatChunk(`{"content":"Answer"}`, ""),
		chatChunk(`{"refusal":"but no"}`, "stop"),
	))
	evs, final := checkStream(t, events)
	want := []string{
		"response.created", "response.in_progress",
		"response.output_item.added", "response.content_part.added", "response.reasoning_text.delta", "response.reasoning_text.delta",
		"response.reasoning_text.done", "response.content_part.done", "response.output_item.done",
		"response.output_item.added", "response.content_part.added", "response.output_text.delta", "response.output_text.done", "response.content_part.done",
		"response.content_part.added", "response.refusal.delta", "response.refusal.done", "response.content_part.done", "response.output_item.done",
		"response.completed",
	}
	if got := eventTypes(evs); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("events\n got  %v\n want %v", got, want)
	}
	rs, msg := final.Output[0], final.Output[1]
	if rs.Type != "reasoning" || rs.Content[0].Type != "reasoning_text" || rs.Content[0].Text != "Let me think." {
		t.Fatalf("reasoning %+v", rs)
	}
	if msg.Content[0].Text != "Answer" || msg.Content[1].Type != "refusal" || msg.Content[1].Refusal != "but no" {
		t.Fatalf("message %+v", msg)
	}
}

func TestChatToResponsesStreamEnds(t *testing.T) {
	req := []byte(`{"model":"m","input":"x","max_output_tokens":3}`)
	t.Run("length is response.incomplete", func(t *testing.T) {
		events, _ := runStream(t, req, chatChunks(chatChunk(`{"content":"Once upon"}`, "length")))
		evs, final := checkStream(t, events)
		if evs[len(evs)-1].name != "response.incomplete" || final.Status != "incomplete" || final.IncompleteDetails == nil ||
			final.IncompleteDetails.Reason != "max_output_tokens" || final.Output[0].Status != "incomplete" || final.CompletedAt != nil {
			t.Fatalf("%s", evs[len(evs)-1].raw)
		}
	})
	t.Run("error chunk mid-stream", func(t *testing.T) {
		s := NewChatToResponsesStream(req)
		var all []byte
		for _, ev := range []sse.Event{
			{Data: []byte(chatChunk(`{"content":"Hel"}`, ""))},
			{Data: []byte(`{"error":{"message":"upstream overloaded","type":"server_error","code":"rate_limit_exceeded"}}`)},
		} {
			out, err := s.Feed(ev)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, out...)
		}
		if out, _ := s.Feed(sse.Event{Data: []byte(chatChunk(`{"content":"lo"}`, ""))}); out != nil {
			t.Fatalf("events after the failure: %s", out)
		}
		if out := s.Finish(); out != nil {
			t.Fatalf("Finish after the failure: %s", out)
		}
		evs, final := checkStream(t, sse.Split(all))
		if evs[len(evs)-1].name != "response.failed" || final.Status != "failed" || final.Error == nil ||
			final.Error.Code != "rate_limit_exceeded" || final.Error.Message != "upstream overloaded" || final.outputText() != "Hel" {
			t.Fatalf("%s", evs[len(evs)-1].raw)
		}
	})
	t.Run("error before any chunk", func(t *testing.T) {
		events, _ := runStream(t, req, []sse.Event{{Name: "error", Data: []byte(`{"message":"bad gateway"}`)}})
		evs, final := checkStream(t, events)
		if len(evs) != 3 || final.Status != "failed" || final.Error.Code != "server_error" || final.Error.Message != "bad gateway" {
			t.Fatalf("%v %s", eventTypes(evs), evs[len(evs)-1].raw)
		}
	})
	t.Run("an unreadable chunk is skipped", func(t *testing.T) {
		s := NewChatToResponsesStream(req)
		var all []byte
		for i, ev := range chatChunks(chatChunk(`{"content":"hi"}`, "stop")) {
			if i == 1 {
				for _, bad := range []string{`{"choices":[`, `keep-alive`} {
					out, err := s.Feed(sse.Event{Data: []byte(bad)})
					if err == nil || out != nil {
						t.Fatalf("%s: got %q, %v; want an error and no events", bad, out, err)
					}
				}
			}
			out, err := s.Feed(ev)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, out...)
		}
		evs, final := checkStream(t, sse.Split(all))
		if evs[len(evs)-1].name != "response.completed" || final.outputText() != "hi" {
			t.Fatalf("%v", eventTypes(evs))
		}
	})
	t.Run("abort", func(t *testing.T) {
		s := NewChatToResponsesStream(req)
		out, _ := s.Feed(sse.Event{Data: []byte(chatChunk(`{"content":"hi"}`, "stop"))})
		all := append([]byte(nil), out...)
		all = append(all, s.Abort("upstream_read_failed", "reading the upstream stream failed")...)
		evs, final := checkStream(t, sse.Split(all))
		if evs[len(evs)-1].name != "response.failed" || final.Error == nil || final.Error.Code != "server_error" ||
			final.Error.Message != "reading the upstream stream failed" || final.outputText() != "hi" || final.Output[0].Status != "incomplete" {
			t.Fatalf("%v %s", eventTypes(evs), evs[len(evs)-1].raw)
		}
		if out := s.Abort("x", "y"); out != nil {
			t.Fatalf("a second Abort wrote %s", out)
		}
		fresh := NewChatToResponsesStream(req)
		evs, _ = checkStream(t, sse.Split(fresh.Abort("upstream_timeout", "t")))
		if len(evs) != 3 || evs[2].name != "response.failed" {
			t.Fatalf("abort before any chunk: %v", eventTypes(evs))
		}
	})
	t.Run("finished without DONE", func(t *testing.T) {
		up := chatChunks(chatChunk(`{"content":"hi"}`, "stop"))
		events, _ := runStream(t, req, up[:len(up)-1])
		evs, final := checkStream(t, events)
		if evs[len(evs)-1].name != "response.completed" || final.outputText() != "hi" {
			t.Fatalf("%v", eventTypes(evs))
		}
	})
	t.Run("cut off before finishing", func(t *testing.T) {
		up := chatChunks(chatChunk(`{"content":"hi"}`, ""))
		events, _ := runStream(t, req, up[:len(up)-1])
		evs, final := checkStream(t, events)
		if evs[len(evs)-1].name != "response.failed" || final.outputText() != "hi" || final.Output[0].Status != "incomplete" {
			t.Fatalf("%v %s", eventTypes(evs), evs[len(evs)-1].raw)
		}
	})
	t.Run("empty stream", func(t *testing.T) {
		events, _ := runStream(t, req, nil)
		evs, _ := checkStream(t, events)
		if len(evs) != 3 || evs[2].name != "response.failed" {
			t.Fatalf("%v", eventTypes(evs))
		}
	})
	t.Run("empty answer", func(t *testing.T) {
		events, _ := runStream(t, req, chatChunks(chatChunk(`{"role":"assistant","content":""}`, "stop")))
		evs, final := checkStream(t, events)
		if final.Status != "completed" || len(final.Output) != 1 || final.Output[0].Type != "message" || final.outputText() != "" {
			t.Fatalf("%v", eventTypes(evs))
		}
	})
	t.Run("keep-alives and blank data are ignored", func(t *testing.T) {
		s := NewChatToResponsesStream(req)
		if out, err := s.Feed(sse.Event{Data: []byte("  ")}); out != nil || err != nil {
			t.Fatalf("%s %v", out, err)
		}
	})
}

func TestChatToResponsesStreamReasoningField(t *testing.T) {
	// OpenRouter, Groq and Ollama name the field reasoning.
	events, _ := runStream(t, []byte(`{"model":"m","input":"x"}`), chatChunks(
		chatChunk(`{"role":"assistant","reasoning":"a"}`, ""),
		chatChunk(`{"reasoning":"b","content":"c"}`, "stop"),
	))
	_, final := checkStream(t, events)
	if len(final.Output) != 2 || final.Output[0].Content[0].Text != "ab" || final.outputText() != "c" {
		t.Fatalf("%+v", final.Output)
	}
}
