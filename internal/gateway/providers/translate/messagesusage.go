package translate

import (
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

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
