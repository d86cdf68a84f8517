package translate

import (
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/tokens"
)

// ChatUsage reads an OpenAI usage object (Chat Completions, embeddings);
// ok is false when there is none. prompt_tokens counts every prompt token;
// prompt_tokens_details.cached_tokens the cache reads and
// cache_write_tokens the cache writes (not OpenAI's own field, which bills
// no cache writes, but some OpenAI-compatible upstreams report it there,
// as WriteChatUsage does); DeepSeek reports cache hits at the top level as
// prompt_cache_hit_tokens. A missing total is input + output.
func ChatUsage(u gjson.Result) (usage tokens.Usage, ok bool) {
	if !u.IsObject() {
		return tokens.Usage{}, false
	}
	out := tokens.Usage{
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

// WriteChatUsage writes u as an OpenAI usage object: prompt_tokens counts
// cached and cache-written tokens too; prompt_tokens_details says how many
// of them were read from (cached_tokens) and written to
// (cache_write_tokens) the cache; completion_tokens_details.reasoning_tokens
// is written when there are any.
func WriteChatUsage(w *Writer, u tokens.Usage) {
	w.Obj()
	w.KeyInt("prompt_tokens", u.InputTokens)
	w.KeyInt("completion_tokens", u.OutputTokens)
	w.KeyInt("total_tokens", u.TotalTokens)
	w.Key("prompt_tokens_details")
	w.Obj()
	w.KeyInt("cached_tokens", u.CachedInputTokens)
	w.KeyInt("cache_write_tokens", u.CacheWriteInputTokens)
	w.EndObj()
	if u.ReasoningTokens > 0 {
		w.Key("completion_tokens_details")
		w.Obj()
		w.KeyInt("reasoning_tokens", u.ReasoningTokens)
		w.EndObj()
	}
	w.EndObj()
}
