package translate

// Usage is token usage in gateway terms.
//
// InputTokens counts every prompt token, including those read from or
// written to a prompt cache (so it equals OpenAI's prompt_tokens and
// Anthropic's input_tokens + cache_read_input_tokens +
// cache_creation_input_tokens). CachedInputTokens and CacheWriteInputTokens
// are the parts of InputTokens read from and written to the cache.
// OutputTokens includes ReasoningTokens. TotalTokens is InputTokens +
// OutputTokens unless the upstream reported a different total.
type Usage struct {
	InputTokens           int64
	OutputTokens          int64
	TotalTokens           int64
	CachedInputTokens     int64
	CacheWriteInputTokens int64
	ReasoningTokens       int64
}
