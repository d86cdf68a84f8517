package translate

import (
	"testing"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/tokens"
)

func TestChatUsage(t *testing.T) {
	u, ok := ChatUsage(gjson.Parse(`{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120,
		"prompt_tokens_details":{"cached_tokens":30,"cache_write_tokens":10},"completion_tokens_details":{"reasoning_tokens":5}}`))
	want := tokens.Usage{InputTokens: 100, OutputTokens: 20, TotalTokens: 120, CachedInputTokens: 30, CacheWriteInputTokens: 10, ReasoningTokens: 5}
	if !ok || u != want {
		t.Fatalf("%+v %v", u, ok)
	}
	u, _ = ChatUsage(gjson.Parse(`{"prompt_tokens":7,"completion_tokens":3,"prompt_cache_hit_tokens":4}`))
	if u.TotalTokens != 10 || u.CachedInputTokens != 4 {
		t.Fatalf("DeepSeek shape: %+v", u)
	}
	if _, ok := ChatUsage(gjson.Parse(`null`)); ok {
		t.Fatal("null is no usage")
	}
	var w Writer
	WriteChatUsage(&w, want)
	back, _ := ChatUsage(gjson.ParseBytes(w.Buf))
	if back != want {
		t.Fatalf("round trip %s → %+v", w.Buf, back)
	}
}

func TestMessagesUsage(t *testing.T) {
	var m MessagesUsage
	m.Merge(gjson.Parse(`{"input_tokens":10,"cache_creation_input_tokens":5,"cache_read_input_tokens":20,"output_tokens":1}`))
	m.Merge(gjson.Parse(`{"output_tokens":42}`)) // a later, cumulative count
	want := tokens.Usage{InputTokens: 35, OutputTokens: 42, TotalTokens: 77, CachedInputTokens: 20, CacheWriteInputTokens: 5}
	if got := m.Usage(); got != want {
		t.Fatalf("%+v", got)
	}
	var w Writer
	WriteMessagesUsage(&w, want)
	var back MessagesUsage
	back.Merge(gjson.ParseBytes(w.Buf))
	if back.Usage() != want {
		t.Fatalf("round trip %s → %+v", w.Buf, back.Usage())
	}
}

func TestResponsesUsage(t *testing.T) {
	want := tokens.Usage{InputTokens: 50, OutputTokens: 9, TotalTokens: 59, CachedInputTokens: 8, ReasoningTokens: 2}
	var w Writer
	WriteResponsesUsage(&w, want)
	got, ok := ResponsesUsage(gjson.ParseBytes(w.Buf))
	if !ok || got != want {
		t.Fatalf("round trip %s → %+v", w.Buf, got)
	}
	got, _ = ResponsesUsage(gjson.Parse(`{"input_tokens":4,"output_tokens":6}`))
	if got.TotalTokens != 10 {
		t.Fatalf("missing total: %+v", got)
	}
	if _, ok := ResponsesUsage(gjson.Result{}); ok {
		t.Fatal("missing is no usage")
	}
}

func TestChatTarget(t *testing.T) {
	var w Writer
	w.Obj()
	ChatTarget{}.WriteStream(&w)
	w.KeyInt(ChatTarget{}.MaxTokensField(), 1)
	w.EndObj()
	if got := string(w.Buf); got != `{"stream":true,"stream_options":{"include_usage":true},"max_completion_tokens":1}` {
		t.Fatal(got)
	}
	w.Reset()
	legacy := ChatTarget{LegacyMaxTokens: true, NoStreamOptions: true}
	w.Obj()
	legacy.WriteStream(&w)
	w.KeyInt(legacy.MaxTokensField(), 1)
	w.EndObj()
	if got := string(w.Buf); got != `{"stream":true,"max_tokens":1}` {
		t.Fatal(got)
	}
}
