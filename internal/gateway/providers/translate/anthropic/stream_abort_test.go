package anthropic

import (
	"bytes"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/platform/sse"
)

// feedAll feeds events to s, skipping (as the gateway does) the ones it
// cannot read, and returns what it wrote.
func feedAll(s translate.Stream, events []sse.Event) []byte {
	var out []byte
	for _, ev := range events {
		b, _ := s.Feed(ev)
		out = append(out, b...)
	}
	return out
}

func TestChatToMessagesStreamSkipsUnreadableEvents(t *testing.T) {
	s := NewChatToMessagesStream("", nil)
	var out []byte
	for i, ev := range []sse.Event{
		anthChunk(`"delta":{"content":"Hel"},"finish_reason":null`, ""),
		{Data: []byte("keep-alive")},
		{Data: []byte(`{"choices":[`)},
		anthChunk(`"delta":{"content":"lo"},"finish_reason":"stop"`, ""),
		{Data: []byte("[DONE]")},
	} {
		b, err := s.Feed(ev)
		if (i == 1 || i == 2) != (err != nil) || (err != nil && b != nil) {
			t.Fatalf("event %d: got %q, %v", i, b, err)
		}
		out = append(out, b...)
	}
	msg, errMsg := anthReadMessagesStream(t, append(out, s.Finish()...))
	if errMsg != "" || msg.Content[0].Text != "Hello" {
		t.Fatalf("%+v %q", msg, errMsg)
	}
}

func TestChatToMessagesStreamAbort(t *testing.T) {
	s := NewChatToMessagesStream("", nil)
	out := feedAll(s, []sse.Event{anthChunk(`"delta":{"content":"Hi"},"finish_reason":"stop"`, "")})
	out = append(out, s.Abort("upstream_read_failed", "reading the upstream stream failed")...)
	msg, errMsg := anthReadMessagesStream(t, out)
	if errMsg != "reading the upstream stream failed" || msg.Content[0].Text != "Hi" {
		t.Fatalf("%+v %q\n%s", msg, errMsg, out)
	}
	if !bytes.HasSuffix(out, []byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"reading the upstream stream failed\"}}\n\n")) {
		t.Fatalf("not an Anthropic error event at the end:\n%s", out)
	}
	if b := s.Abort("x", "y"); b != nil {
		t.Fatalf("second Abort wrote %s", b)
	}
	if b := s.Finish(); b != nil {
		t.Fatalf("Finish after Abort wrote %s", b)
	}

	done := NewChatToMessagesStream("", nil)
	feedAll(done, []sse.Event{anthChunk(`"delta":{"content":"Hi"},"finish_reason":"stop"`, ""), {Data: []byte("[DONE]")}})
	if b := done.Abort("upstream_read_failed", "m"); b != nil {
		t.Fatalf("Abort after a complete stream wrote %s", b)
	}
	timeout := NewChatToMessagesStream("", nil)
	if b := timeout.Abort("upstream_timeout", "slow"); !bytes.Contains(b, []byte(`"type":"timeout_error"`)) {
		t.Fatalf("timeout: %s", b)
	}
}

func TestChatToMessagesStreamEstimatesInputTokens(t *testing.T) {
	req := []byte(`{"model":"m","max_tokens":9,"system":"Be brief.","messages":[{"role":"user","content":"What is the capital of France?"}]}`)
	est, err := EstimateMessagesInputTokens(req)
	if err != nil || est < 10 {
		t.Fatalf("estimate %d %v", est, err)
	}
	first := anthChunk(`"delta":{"role":"assistant","content":"Paris"},"finish_reason":"stop"`, "")

	t.Run("upstream usage replaces the estimate", func(t *testing.T) {
		s := NewChatToMessagesStream("", req)
		out := feedAll(s, []sse.Event{first,
			anthChunk("", `"usage":{"prompt_tokens":50,"completion_tokens":2,"total_tokens":52,"prompt_tokens_details":{"cached_tokens":30}}`),
			{Data: []byte("[DONE]")}})
		start, delta := usageOf(t, out, "message_start", "message.usage"), usageOf(t, out, "message_delta", "usage")
		if start.Get("input_tokens").Int() != est || start.Get("output_tokens").Int() != 0 {
			t.Fatalf("message_start usage %s, want input %d output 0", start.Raw, est)
		}
		if delta.Get("input_tokens").Int() != 20 || delta.Get("cache_read_input_tokens").Int() != 30 || delta.Get("output_tokens").Int() != 2 {
			t.Fatalf("message_delta usage %s", delta.Raw)
		}
		if u, ok := s.Usage(); !ok || u.InputTokens != 50 || u.OutputTokens != 2 {
			t.Fatalf("Usage() %+v %v", u, ok)
		}
	})
	t.Run("no upstream usage keeps the estimate", func(t *testing.T) {
		s := NewChatToMessagesStream("", req)
		out := feedAll(s, []sse.Event{first, {Data: []byte("[DONE]")}})
		delta := usageOf(t, out, "message_delta", "usage")
		if delta.Get("input_tokens").Int() != est || delta.Get("output_tokens").Int() != 0 {
			t.Fatalf("message_delta usage %s, want the estimate %d", delta.Raw, est)
		}
		if _, ok := s.Usage(); ok {
			t.Fatal("an estimate reported as the upstream's usage")
		}
	})
	t.Run("usage in the first chunk is used as is", func(t *testing.T) {
		s := NewChatToMessagesStream("", req)
		out := feedAll(s, []sse.Event{anthChunk(`"delta":{"content":"P"}`, `"usage":{"prompt_tokens":7,"completion_tokens":1,"total_tokens":8}`)})
		if start := usageOf(t, out, "message_start", "message.usage"); start.Get("input_tokens").Int() != 7 {
			t.Fatalf("message_start usage %s", start.Raw)
		}
	})
}

// usageOf returns the member at path of the event named name in out.
func usageOf(t *testing.T, out []byte, name, path string) gjson.Result {
	t.Helper()
	for _, ev := range sse.Split(out) {
		if ev.Name == name {
			return gjson.GetBytes(ev.Data, path)
		}
	}
	t.Fatalf("no %s event in\n%s", name, out)
	return gjson.Result{}
}

func TestMessagesToChatStreamSkipsUnreadableEventsAndAborts(t *testing.T) {
	s := NewMessagesToChatStream("m", false)
	var out []byte
	for i, ev := range []sse.Event{
		{Name: "message_start", Data: []byte(`{"type":"message_start","message":{"id":"msg_1","model":"c","usage":{"input_tokens":3,"output_tokens":1}}}`)},
		{Data: []byte("keep-alive")},
		{Name: "content_block_start", Data: []byte(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)},
		{Name: "content_block_delta", Data: []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`)},
	} {
		b, err := s.Feed(ev)
		if (i == 1) != (err != nil) {
			t.Fatalf("event %d: %v", i, err)
		}
		out = append(out, b...)
	}
	out = append(out, s.Abort("stream_truncated", "the upstream stream was cut off in the middle of an event")...)
	cs := anthReadChatStream(t, out)
	if cs.Done || cs.Error != "the upstream stream was cut off in the middle of an event" {
		t.Fatalf("%+v\n%s", cs, out)
	}
	last := sse.Split(out)
	errv := gjson.GetBytes(last[len(last)-1].Data, "error")
	if errv.Get("code").Str != "stream_truncated" || errv.Get("type").Str != "provider_error" {
		t.Fatalf("error chunk %s", errv.Raw)
	}
	if b := s.Abort("x", "y"); b != nil {
		t.Fatalf("second Abort wrote %s", b)
	}
}
