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

// MaxTokenCount is the largest count one answer's usage may report in any
// field. No model reads or writes a billion tokens in one request; a
// larger figure is an upstream fault, and taken as reported it would
// price a request at millions and swamp every total it is added to.
const MaxTokenCount = 1_000_000_000

// UsageFault says what was wrong with a usage object an upstream reported.
type UsageFault string

// Consequence says, for a log line, what the gateway made of usage with
// this fault.
func (f UsageFault) Consequence() string {
	switch f {
	case UsageFaultNegative:
		return "a negative token count is counted as 0"
	case UsageFaultTooLarge:
		return "an implausible token count makes the usage unknown"
	}
	return ""
}

const (
	// UsageFaultNone: the counts are plausible.
	UsageFaultNone UsageFault = ""
	// UsageFaultNegative: a count was negative; it is taken as 0.
	UsageFaultNegative UsageFault = "negative"
	// UsageFaultTooLarge: a count exceeded MaxTokenCount; the whole
	// usage is refused, as if the upstream had reported none.
	UsageFaultTooLarge UsageFault = "too_large"
)

// CheckUsage returns the usage an upstream reported as the gateway takes
// it: each negative count becomes 0 (fault UsageFaultNegative); a count
// above MaxTokenCount refuses the whole usage (ok false, fault
// UsageFaultTooLarge), since no figure of an answer that reports one can
// be trusted. Every upstream usage goes through CheckUsage before it is
// recorded, priced or charged.
func CheckUsage(u Usage) (out Usage, fault UsageFault, ok bool) {
	fields := [...]*int64{&u.InputTokens, &u.OutputTokens, &u.TotalTokens, &u.CachedInputTokens,
		&u.CacheWriteInputTokens, &u.ReasoningTokens}
	for _, f := range fields {
		if *f > MaxTokenCount {
			return Usage{}, UsageFaultTooLarge, false
		}
	}
	for _, f := range fields {
		if *f < 0 {
			*f, fault = 0, UsageFaultNegative
		}
	}
	return u, fault, true
}

// SumTokens adds counts an upstream reported, to derive one it left out
// (a total, a prompt made of cached and uncached parts): each negative
// count counts as 0, and a sum past math.MaxInt64 stays there (so that
// CheckUsage refuses it) instead of wrapping.
func SumTokens(a, b int64) int64 {
	return SaturatingAdd(max(a, 0), max(b, 0))
}
