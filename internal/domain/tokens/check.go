package tokens

import "github.com/modelgate/modelgate/internal/platform/saturate"

// MaxCount is the largest count one answer's usage may report in any
// field. No model reads or writes a billion tokens in one request; a
// larger figure is an upstream fault, and taken as reported it would
// price a request at millions and swamp every total it is added to.
const MaxCount = 1_000_000_000

// Fault says what was wrong with a usage object an upstream reported.
type Fault string

// Consequence says, for a log line, what the gateway made of usage with
// this fault.
func (f Fault) Consequence() string {
	switch f {
	case FaultNegative:
		return "a negative token count is counted as 0"
	case FaultTooLarge:
		return "an implausible token count makes the usage unknown"
	}
	return ""
}

const (
	// FaultNone: the counts are plausible.
	FaultNone Fault = ""
	// FaultNegative: a count was negative; it is taken as 0.
	FaultNegative Fault = "negative"
	// FaultTooLarge: a count exceeded MaxCount; the whole usage is
	// refused, as if the upstream had reported none.
	FaultTooLarge Fault = "too_large"
)

// Checked returns the usage an upstream reported as the gateway takes
// it: each negative count becomes 0 (fault FaultNegative); a count above
// MaxCount refuses the whole usage (ok false, fault FaultTooLarge), since
// no figure of an answer that reports one can be trusted. Every upstream
// usage goes through Checked before it is recorded, priced or charged.
func Checked(u Usage) (out Usage, fault Fault, ok bool) {
	fields := [...]*int64{&u.InputTokens, &u.OutputTokens, &u.TotalTokens, &u.CachedInputTokens,
		&u.CacheWriteInputTokens, &u.ReasoningTokens}
	for _, f := range fields {
		if *f > MaxCount {
			return Usage{}, FaultTooLarge, false
		}
	}
	for _, f := range fields {
		if *f < 0 {
			*f, fault = 0, FaultNegative
		}
	}
	return u, fault, true
}

// Sum adds counts an upstream reported, to derive one it left out (a
// total, a prompt made of cached and uncached parts): each negative count
// counts as 0, and a sum past math.MaxInt64 stays there (so that Checked
// refuses it) instead of wrapping.
func Sum(a, b int64) int64 {
	return saturate.Add(max(a, 0), max(b, 0))
}
