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

// MessagesUsage accumulates Anthropic Messages usage objects, whose
// input_tokens counts only the uncached part of the prompt. The zero value
// is ready to use.
type MessagesUsage struct {
	input, cacheWrite, cacheRead, output int64
}

// Merge takes the counts an Anthropic usage object carries. Stream events
// (message_start, message_delta) report cumulative counts, so a later value
// replaces an earlier one.
func (m *MessagesUsage) Merge(u gjson.Result) {
	if v := u.Get("input_tokens"); v.Exists() {
		m.input = v.Int()
	}
	if v := u.Get("cache_creation_input_tokens"); v.Exists() {
		m.cacheWrite = v.Int()
	}
	if v := u.Get("cache_read_input_tokens"); v.Exists() {
		m.cacheRead = v.Int()
	}
	if v := u.Get("output_tokens"); v.Exists() {
		m.output = v.Int()
	}
}

// Usage converts to gateway terms: every prompt token, cached or not,
// counts as input; cache reads are CachedInputTokens and cache writes
// CacheWriteInputTokens. The sums are catalog.SumTokens's (a negative part counts
// 0, a sum never wraps); the counts are as reported, for catalog.CheckUsage to
// judge.
func (m MessagesUsage) Usage() catalog.Usage {
	in := catalog.SumTokens(catalog.SumTokens(m.input, m.cacheWrite), m.cacheRead)
	return catalog.Usage{
		InputTokens:           in,
		OutputTokens:          m.output,
		TotalTokens:           catalog.SumTokens(in, m.output),
		CachedInputTokens:     m.cacheRead,
		CacheWriteInputTokens: m.cacheWrite,
	}
}

// WriteMessagesUsage writes u as an Anthropic usage object, whose
// input_tokens leaves out the cache reads and writes listed beside it.
func WriteMessagesUsage(w *Writer, u catalog.Usage) {
	w.Obj()
	w.KeyInt("input_tokens", max(0, u.InputTokens-u.CachedInputTokens-u.CacheWriteInputTokens))
	w.KeyInt("cache_creation_input_tokens", u.CacheWriteInputTokens)
	w.KeyInt("cache_read_input_tokens", u.CachedInputTokens)
	w.KeyInt("output_tokens", u.OutputTokens)
	w.EndObj()
}
