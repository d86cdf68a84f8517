package translate

import (
	"testing"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

func TestChatUsage(t *testing.T) {
	u, ok := ChatUsage(gjson.Parse(`{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120,
		"prompt_tokens_details":{"cached_tokens":30,"cache_write_tokens":10},"completion_tokens_details":{"reasoning_tokens":5}}`))
	want := catalog.Usage{InputTokens: 100, OutputTokens: 20, TotalTokens: 120, CachedInputTokens: 30, CacheWriteInputTokens: 10, ReasoningTokens: 5}
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
	want := catalog.Usage{InputTokens: 35, OutputTokens: 42, TotalTokens: 77, CachedInputTokens: 20, CacheWriteInputTokens: 5}
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
	want := catalog.Usage{InputTokens: 50, OutputTokens: 9, TotalTokens: 59, CachedInputTokens: 8, ReasoningTokens: 2}
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

// chatUsageByLookup is ChatUsage as a lookup per field: the reference the
// single walk must agree with.
func chatUsageByLookup(u gjson.Result) (catalog.Usage, bool) {
	if !u.IsObject() {
		return catalog.Usage{}, false
	}
	out := catalog.Usage{
		InputTokens:           u.Get("prompt_tokens").Int(),
		OutputTokens:          u.Get("completion_tokens").Int(),
		TotalTokens:           u.Get("total_tokens").Int(),
		CachedInputTokens:     u.Get("prompt_tokens_details.cached_tokens").Int(),
		CacheWriteInputTokens: u.Get("prompt_tokens_details.cache_write_tokens").Int(),
		ReasoningTokens:       u.Get("completion_tokens_details.reasoning_tokens").Int(),
	}
	if out.CachedInputTokens == 0 {
		out.CachedInputTokens = u.Get("prompt_cache_hit_tokens").Int()
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = catalog.SumTokens(out.InputTokens, out.OutputTokens)
	}
	return out, true
}

var chatUsageSeeds = []string{
	`{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120,"prompt_tokens_details":{"cached_tokens":30,"cache_write_tokens":10},"completion_tokens_details":{"reasoning_tokens":5}}`,
	`{"prompt_tokens":7,"completion_tokens":3,"prompt_cache_hit_tokens":4,"prompt_cache_miss_tokens":3}`,
	`{"prompt_tokens":7,"prompt_tokens":9,"prompt_tokens_details":{"cached_tokens":1},"prompt_tokens_details":{"cached_tokens":2}}`,
	`{"prompt_tokens_details":null,"completion_tokens_details":[1,2],"total_tokens":"12","completion_tokens":1.5e3}`,
	`{"prompt_tokens_details":{"cached_tokens":0},"prompt_cache_hit_tokens":6,"prompt_cache_hit_tokens":8}`,
	`{"pro\u006dpt_tokens":5,"completion_tokens":-2}`,
	`{"completion_tokens_details":{},"completion_tokens_details":{"reasoning_tokens":1},"prompt_tokens_details":7,"prompt_tokens_details":{"cached_tokens":2}}`,
	`{}`, `null`, `[]`, `3`, `{"prompt_tokens":`,
}

// FuzzChatUsage: the single walk reads every valid JSON value as a lookup
// per field does (on invalid JSON the two may stop at different places;
// either way nothing panics).
func FuzzChatUsage(f *testing.F) {
	for _, s := range chatUsageSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u := gjson.Parse(s)
		if !gjson.Valid(s) {
			ChatUsage(u)
			return
		}
		got, ok := ChatUsage(u)
		want, wok := chatUsageByLookup(u)
		if got != want || ok != wok {
			t.Fatalf("%s: walk %+v %v, lookups %+v %v", s, got, ok, want, wok)
		}
	})
}

// BenchmarkChatUsage reads the usage object of a chat answer.
func BenchmarkChatUsage(b *testing.B) {
	u := gjson.Parse(chatUsageSeeds[0])
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			ChatUsage(u)
		}
	})
	b.Run("lookups", func(b *testing.B) {
		for b.Loop() {
			chatUsageByLookup(u)
		}
	})
}

// TestUsageDerivedSumsNeverWrap: a total or prompt the parsers derive from
// absurd upstream counts counts a negative part as 0 and stays at the
// largest count instead of wrapping, so that catalog.CheckUsage refuses it (a
// wrapped sum read as a small or negative count).
func TestUsageDerivedSumsNeverWrap(t *testing.T) {
	const maxInt = `9223372036854775807`
	checkRefused := func(name string, u catalog.Usage) {
		t.Helper()
		if _, fault, ok := catalog.CheckUsage(u); ok || fault != catalog.UsageFaultTooLarge {
			t.Errorf("%s: %+v not refused as too large", name, u)
		}
	}
	u, _ := ChatUsage(gjson.Parse(`{"prompt_tokens":` + maxInt + `,"completion_tokens":10}`))
	if u.TotalTokens < 0 {
		t.Errorf("chat total wrapped: %+v", u)
	}
	checkRefused("chat", u)
	u, _ = ResponsesUsage(gjson.Parse(`{"input_tokens":` + maxInt + `,"output_tokens":` + maxInt + `}`))
	if u.TotalTokens < 0 {
		t.Errorf("responses total wrapped: %+v", u)
	}
	checkRefused("responses", u)
	var m MessagesUsage
	m.Merge(gjson.Parse(`{"input_tokens":5,"cache_read_input_tokens":` + maxInt + `,"output_tokens":` + maxInt + `}`))
	u = m.Usage()
	if u.InputTokens < 0 || u.TotalTokens < 0 {
		t.Errorf("messages sums wrapped: %+v", u)
	}
	checkRefused("messages", u)

	// A negative part counts as 0 in the derived sums.
	u, _ = ChatUsage(gjson.Parse(`{"prompt_tokens":-5,"completion_tokens":10}`))
	if u.TotalTokens != 10 {
		t.Errorf("chat total of -5 + 10 = %d, want 10", u.TotalTokens)
	}
	var n MessagesUsage
	n.Merge(gjson.Parse(`{"input_tokens":-5,"cache_read_input_tokens":10,"output_tokens":2}`))
	got, fault, ok := catalog.CheckUsage(n.Usage())
	want := catalog.Usage{InputTokens: 10, CachedInputTokens: 10, OutputTokens: 2, TotalTokens: 12}
	if !ok || fault != catalog.UsageFaultNone || got != want {
		t.Errorf("messages with a negative part: %+v %q %v, want %+v", got, fault, ok, want)
	}
}

func TestRealtimeUsage(t *testing.T) {
	u, ok := RealtimeUsage(gjson.Parse(`{"input_tokens":7,"output_tokens":3,"input_token_details":{"cached_tokens":2}}`))
	want := catalog.Usage{InputTokens: 7, OutputTokens: 3, TotalTokens: 10, CachedInputTokens: 2}
	if !ok || u != want {
		t.Fatalf("%+v %v", u, ok)
	}
	if _, ok := RealtimeUsage(gjson.Parse(`null`)); ok {
		t.Fatal("null is no usage")
	}
}
