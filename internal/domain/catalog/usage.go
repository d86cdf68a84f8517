package catalog

// Usage is the token usage of one answer, in gateway terms. Translation,
// the request record, cost calculation and usage records all use this one
// type, so that no look-alike struct is copied field by field between them.
//
// InputTokens counts every prompt token, including those read from or
// written to a prompt cache (so it equals OpenAI's prompt_tokens and
// Anthropic's input_tokens + cache_read_input_tokens +
// cache_creation_input_tokens). CachedInputTokens and CacheWriteInputTokens
// are the parts of InputTokens read from and written to the cache.
// OutputTokens includes ReasoningTokens. TotalTokens is InputTokens +
// OutputTokens unless the upstream reported a different total.
type Usage struct {
	// InputTokens is every prompt token, cached or not.
	InputTokens int64 `json:"input_tokens"`
	// OutputTokens is every generated token, reasoning included.
	OutputTokens int64 `json:"output_tokens"`
	// TotalTokens is the upstream's total, or input + output.
	TotalTokens int64 `json:"total_tokens"`
	// CachedInputTokens is the part of InputTokens read from a prompt cache.
	CachedInputTokens int64 `json:"cached_input_tokens"`
	// CacheWriteInputTokens is the part of InputTokens written to a prompt cache.
	CacheWriteInputTokens int64 `json:"cache_write_input_tokens"`
	// ReasoningTokens is the part of OutputTokens spent on reasoning.
	ReasoningTokens int64 `json:"reasoning_tokens"`
}

// IsZero reports whether no token was counted.
func (u Usage) IsZero() bool { return u == Usage{} }

// Add returns the sum of u and o, field by field; a field whose sum would
// overflow stays at the largest count (SaturatingAdd) instead of wrapping.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		InputTokens:           SaturatingAdd(u.InputTokens, o.InputTokens),
		OutputTokens:          SaturatingAdd(u.OutputTokens, o.OutputTokens),
		TotalTokens:           SaturatingAdd(u.TotalTokens, o.TotalTokens),
		CachedInputTokens:     SaturatingAdd(u.CachedInputTokens, o.CachedInputTokens),
		CacheWriteInputTokens: SaturatingAdd(u.CacheWriteInputTokens, o.CacheWriteInputTokens),
		ReasoningTokens:       SaturatingAdd(u.ReasoningTokens, o.ReasoningTokens),
	}
}
