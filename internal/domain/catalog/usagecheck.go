package catalog

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
