package translate

import (
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// ChatUsage reads an OpenAI usage object (Chat Completions, embeddings);
// ok is false when there is none. prompt_tokens counts every prompt token;
// prompt_tokens_details.cached_tokens the cache reads and
// cache_write_tokens the cache writes (not OpenAI's own field, which bills
// no cache writes, but some OpenAI-compatible upstreams report it there,
// as WriteChatUsage does); DeepSeek reports cache hits at the top level as
// prompt_cache_hit_tokens. A missing total is input + output (catalog.SumTokens).
// The counts are as reported: catalog.CheckUsage judges them.
func ChatUsage(u gjson.Result) (usage catalog.Usage, ok bool) {
	if !u.IsObject() {
		return catalog.Usage{}, false
	}
	// One walk over the object (and its two detail objects) instead of a
	// lookup per field. Of repeated keys the first counts, as a lookup
	// takes it; a field inside a detail object is taken from the first
	// such object that has it.
	var out catalog.Usage
	var seen chatUsageFields
	var hitTokens int64
	u.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "prompt_tokens":
			seen.set(&out.InputTokens, chatPrompt, v)
		case "completion_tokens":
			seen.set(&out.OutputTokens, chatCompletion, v)
		case "total_tokens":
			seen.set(&out.TotalTokens, chatTotal, v)
		case "prompt_cache_hit_tokens":
			seen.set(&hitTokens, chatCacheHit, v)
		case "prompt_tokens_details":
			v.ForEach(func(k, v gjson.Result) bool {
				switch k.Str {
				case "cached_tokens":
					seen.set(&out.CachedInputTokens, chatCached, v)
				case "cache_write_tokens":
					seen.set(&out.CacheWriteInputTokens, chatCacheWrite, v)
				}
				return true
			})
		case "completion_tokens_details":
			v.ForEach(func(k, v gjson.Result) bool {
				if k.Str == "reasoning_tokens" {
					seen.set(&out.ReasoningTokens, chatReasoning, v)
				}
				return true
			})
		}
		return true
	})
	if out.CachedInputTokens == 0 {
		out.CachedInputTokens = hitTokens
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = catalog.SumTokens(out.InputTokens, out.OutputTokens)
	}
	return out, true
}

// chatUsageFields marks the fields of a usage object ChatUsage has read.
type chatUsageFields uint16

const (
	chatPrompt chatUsageFields = 1 << iota
	chatCompletion
	chatTotal
	chatCacheHit
	chatCached
	chatCacheWrite
	chatReasoning
)

// set stores v's integer in dst unless field f was read before.
func (s *chatUsageFields) set(dst *int64, f chatUsageFields, v gjson.Result) {
	if *s&f == 0 {
		*s |= f
		*dst = v.Int()
	}
}

// WriteChatUsage writes u as an OpenAI usage object: prompt_tokens counts
// cached and cache-written tokens too; prompt_tokens_details says how many
// of them were read from (cached_tokens) and written to
// (cache_write_tokens) the cache; completion_tokens_details.reasoning_tokens
// is written when there are any.
func WriteChatUsage(w *Writer, u catalog.Usage) {
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
