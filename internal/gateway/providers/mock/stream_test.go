package mock

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// streamBody adds "stream":true (and stream_options) to a request body.
func streamBody(body string, includeUsage bool) string {
	extra := `"stream":true,`
	if includeUsage {
		extra += `"stream_options":{"include_usage":true},`
	}
	return "{" + extra + strings.TrimPrefix(body, "{")
}

func TestStreamMatchesNonStream(t *testing.T) {
	bodies := map[string]string{
		"echo":        `{"model":"mock-chat","messages":[{"role":"user","content":"the quick  brown fox\njumps"}]}`,
		"truncated":   `{"model":"mock-chat","max_tokens":2,"messages":[{"role":"user","content":"the quick brown fox"}]}`,
		"tool call":   `{"model":"mock-chat","messages":[{"role":"user","content":"Oslo mock:call"}],"tools":[` + weatherTool + `]}`,
		"tool result": `{"model":"mock-chat","messages":[{"role":"user","content":"q"},{"role":"tool","tool_call_id":"c","content":"42 degrees"}]}`,
		"escaping":    `{"model":"mock-chat","messages":[{"role":"user","content":"a \"b\" </script> \\ c"}]}`,
	}
	for name, body := range bodies {
		for _, includeUsage := range []bool{false, true} {
			t.Run(name, func(t *testing.T) {
				plain := mustJSON(t, do(t, Options{}, http.MethodPost, "/v1/chat/completions", body).Body.String())
				rec := do(t, Options{}, http.MethodPost, "/v1/chat/completions", streamBody(body, includeUsage))
				if rec.Code != http.StatusOK {
					t.Fatalf("status = %d, body %s", rec.Code, rec.Body)
				}
				if ct := rec.Header().Get("Content-Type"); ct != "text/event-stream" {
					t.Errorf("Content-Type = %q", ct)
				}
				if !rec.Flushed {
					t.Errorf("stream was not flushed")
				}
				got := reassemble(t, sseEvents(t, rec.Body.String()))
				msg := plain.Get("choices.0.message")

				if got.content != msg.Get("content").String() {
					t.Errorf("streamed content %q, want %q", got.content, msg.Get("content").String())
				}
				if got.finishReason != plain.Get("choices.0.finish_reason").String() {
					t.Errorf("finish_reason %q, want %q", got.finishReason, plain.Get("choices.0.finish_reason").String())
				}
				call := msg.Get("tool_calls.0")
				if (got.toolID == "") != (call.Get("id").String() == "") || got.toolName != call.Get("function.name").String() ||
					got.toolArgs != call.Get("function.arguments").String() {
					t.Errorf("streamed tool call (%q %q %q), want %s", got.toolID, got.toolName, got.toolArgs, call.Raw)
				}
				for i, c := range got.chunks {
					if c.Get("id").String() != got.chunks[0].Get("id").String() || c.Get("model").String() != "mock-chat" ||
						!strings.HasPrefix(c.Get("id").String(), "chatcmpl-mock-") {
						t.Errorf("chunk %d id/model = %s/%s", i, c.Get("id"), c.Get("model"))
					}
					u := c.Get("usage")
					last := i == len(got.chunks)-1
					switch {
					case !includeUsage && u.Exists():
						t.Errorf("chunk %d has usage %s without include_usage", i, u.Raw)
					case includeUsage && !last && u.Raw != "null":
						t.Errorf("chunk %d usage = %q, want null", i, u.Raw)
					}
				}
				if includeUsage {
					final := got.chunks[len(got.chunks)-1]
					if ch := final.Get("choices"); ch.Raw != "[]" {
						t.Errorf("usage chunk choices = %s, want []", ch.Raw)
					}
					if got.usage.Raw != plain.Get("usage").Raw {
						t.Errorf("stream usage %s, want %s", got.usage.Raw, plain.Get("usage").Raw)
					}
				} else if got.usage.Exists() {
					t.Errorf("usage chunk without include_usage: %s", got.usage.Raw)
				}
			})
		}
	}
}

func TestStreamChunkSequence(t *testing.T) {
	body := `{"model":"mock-chat","stream":true,"messages":[{"role":"user","content":"hello big world"}]}`
	events := sseEvents(t, do(t, Options{}, http.MethodPost, "/v1/chat/completions", body).Body.String())
	want := []string{
		`{"role":"assistant","content":""}`,
		`{"content":"Echo:"}`,
		`{"content":" hello"}`,
		`{"content":" big"}`,
		`{"content":" world"}`,
		`{}`,
	}
	if len(events) != len(want)+1 {
		t.Fatalf("got %d events, want %d: %q", len(events), len(want)+1, events)
	}
	for i, w := range want {
		c := mustJSON(t, events[i])
		if d := c.Get("choices.0.delta").Raw; d != w {
			t.Errorf("event %d delta = %s, want %s", i, d, w)
		}
		fr := c.Get("choices.0.finish_reason")
		if i < len(want)-1 && fr.Type != gjson.Null {
			t.Errorf("event %d finish_reason = %s, want null", i, fr.Raw)
		}
		if i == len(want)-1 && fr.String() != "stop" {
			t.Errorf("last chunk finish_reason = %s", fr.Raw)
		}
	}
	if events[len(events)-1] != "[DONE]" {
		t.Errorf("last event %q", events[len(events)-1])
	}
}

func TestStreamToolCallSequence(t *testing.T) {
	body := `{"model":"mock-chat","stream":true,"messages":[{"role":"user","content":"Lima mock:call"}],"tools":[` + weatherTool + `]}`
	events := sseEvents(t, do(t, Options{}, http.MethodPost, "/v1/chat/completions", body).Body.String())
	// role, header, 3 argument pieces, finish, [DONE]
	if len(events) != 7 {
		t.Fatalf("got %d events: %q", len(events), events)
	}
	header := mustJSON(t, events[1]).Get("choices.0.delta.tool_calls.0")
	if header.Get("index").Raw != "0" || header.Get("type").Str != "function" ||
		!strings.HasPrefix(header.Get("id").Str, "call_") || header.Get("function.name").Str != "get_weather" ||
		header.Get("function.arguments").Raw != `""` {
		t.Errorf("tool call header chunk = %s", header.Raw)
	}
	for i := 2; i < 5; i++ {
		tc := mustJSON(t, events[i]).Get("choices.0.delta.tool_calls.0")
		if tc.Get("id").Exists() || tc.Get("function.name").Exists() || tc.Get("function.arguments").Str == "" {
			t.Errorf("argument chunk %d = %s", i, tc.Raw)
		}
	}
	if fr := mustJSON(t, events[5]).Get("choices.0.finish_reason").Str; fr != "tool_calls" {
		t.Errorf("finish_reason = %q", fr)
	}
}
