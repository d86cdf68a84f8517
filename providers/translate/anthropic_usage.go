package translate

import "github.com/tidwall/gjson"

// MessagesTokens accumulates Anthropic usage objects. Their input_tokens
// counts only the uncached part of the prompt.
type MessagesTokens struct {
	input, cacheWrite, cacheRead, output int64
}

// Merge takes the counts an Anthropic usage object carries. Stream events
// (message_start, message_delta) report cumulative counts, so a later value
// replaces an earlier one.
func (t *MessagesTokens) Merge(u gjson.Result) {
	if v := u.Get("input_tokens"); v.Exists() {
		t.input = v.Int()
	}
	if v := u.Get("cache_creation_input_tokens"); v.Exists() {
		t.cacheWrite = v.Int()
	}
	if v := u.Get("cache_read_input_tokens"); v.Exists() {
		t.cacheRead = v.Int()
	}
	if v := u.Get("output_tokens"); v.Exists() {
		t.output = v.Int()
	}
}

// Usage converts to gateway terms: every prompt token, cached or not,
// counts as input.
func (t MessagesTokens) Usage() Usage {
	in := t.input + t.cacheWrite + t.cacheRead
	return Usage{
		InputTokens:           in,
		OutputTokens:          t.output,
		TotalTokens:           in + t.output,
		CachedInputTokens:     t.cacheRead,
		CacheWriteInputTokens: t.cacheWrite,
	}
}

// ChatUsage reads an OpenAI usage object (chat completions, embeddings);
// ok is false when there is none. cache_write_tokens is not OpenAI's own
// (OpenAI bills no cache writes) but some OpenAI-compatible upstreams report
// it there, as the chat output of this package does; DeepSeek reports cache
// hits at the top level.
func ChatUsage(u gjson.Result) (usage Usage, ok bool) {
	if !u.IsObject() {
		return Usage{}, false
	}
	out := Usage{
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
		out.TotalTokens = out.InputTokens + out.OutputTokens
	}
	return out, true
}

// usageFromChat is ChatUsage without the presence flag.
func usageFromChat(u gjson.Result) Usage {
	out, _ := ChatUsage(u)
	return out
}

// writeChatUsage writes u as an OpenAI usage object: prompt_tokens counts
// cached and cache-written tokens too; prompt_tokens_details says how many
// of them were read from (cached_tokens) and written to
// (cache_write_tokens) the cache.
func writeChatUsage(w *jsonOut, u Usage) {
	w.obj()
	w.keyInt("prompt_tokens", u.InputTokens)
	w.keyInt("completion_tokens", u.OutputTokens)
	w.keyInt("total_tokens", u.TotalTokens)
	w.key("prompt_tokens_details")
	w.obj()
	w.keyInt("cached_tokens", u.CachedInputTokens)
	w.keyInt("cache_write_tokens", u.CacheWriteInputTokens)
	w.endObj()
	if u.ReasoningTokens > 0 {
		w.key("completion_tokens_details")
		w.obj()
		w.keyInt("reasoning_tokens", u.ReasoningTokens)
		w.endObj()
	}
	w.endObj()
}

// writeAnthropicUsage writes u as an Anthropic usage object, whose
// input_tokens excludes the cache reads and writes listed beside it.
func writeAnthropicUsage(w *jsonOut, u Usage) {
	w.obj()
	w.keyInt("input_tokens", max(0, u.InputTokens-u.CachedInputTokens-u.CacheWriteInputTokens))
	w.keyInt("cache_creation_input_tokens", u.CacheWriteInputTokens)
	w.keyInt("cache_read_input_tokens", u.CachedInputTokens)
	w.keyInt("output_tokens", u.OutputTokens)
	w.endObj()
}
