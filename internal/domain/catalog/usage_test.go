package catalog

import (
	"math"
	"testing"
)

func TestUsageAddAndIsZero(t *testing.T) {
	a := Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15, CachedInputTokens: 2, CacheWriteInputTokens: 1, ReasoningTokens: 3}
	b := Usage{InputTokens: 1, OutputTokens: 1, TotalTokens: 2}
	got := a.Add(b)
	want := Usage{InputTokens: 11, OutputTokens: 6, TotalTokens: 17, CachedInputTokens: 2, CacheWriteInputTokens: 1, ReasoningTokens: 3}
	if got != want {
		t.Fatalf("Add = %+v, want %+v", got, want)
	}
	if !(Usage{}).IsZero() || got.IsZero() {
		t.Fatal("IsZero wrong")
	}
}

func TestCheckUsage(t *testing.T) {
	for _, c := range []struct {
		name  string
		in    Usage
		want  Usage
		fault UsageFault
		ok    bool
	}{
		{"plausible", Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}, Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}, UsageFaultNone, true},
		{"at the bound", Usage{InputTokens: MaxTokenCount, TotalTokens: MaxTokenCount}, Usage{InputTokens: MaxTokenCount, TotalTokens: MaxTokenCount}, UsageFaultNone, true},
		{"negative", Usage{InputTokens: -7, OutputTokens: 5, TotalTokens: 5, ReasoningTokens: -1},
			Usage{OutputTokens: 5, TotalTokens: 5}, UsageFaultNegative, true},
		{"min int", Usage{InputTokens: math.MinInt64, OutputTokens: 3}, Usage{OutputTokens: 3}, UsageFaultNegative, true},
		{"above the bound", Usage{InputTokens: 1, OutputTokens: MaxTokenCount + 1}, Usage{}, UsageFaultTooLarge, false},
		{"max int", Usage{InputTokens: 3, TotalTokens: math.MaxInt64}, Usage{}, UsageFaultTooLarge, false},
		{"too large wins", Usage{InputTokens: -1, CacheWriteInputTokens: math.MaxInt64}, Usage{}, UsageFaultTooLarge, false},
	} {
		got, fault, ok := CheckUsage(c.in)
		if got != c.want || fault != c.fault || ok != c.ok {
			t.Errorf("%s: CheckUsage(%+v) = %+v, %q, %v; want %+v, %q, %v", c.name, c.in, got, fault, ok, c.want, c.fault, c.ok)
		}
	}
}

func TestSumTokens(t *testing.T) {
	for _, c := range []struct{ a, b, want int64 }{
		{2, 3, 5},
		{-5, 10, 10},
		{-5, -10, 0},
		{math.MaxInt64, 1, math.MaxInt64},
		{math.MaxInt64, math.MaxInt64, math.MaxInt64},
	} {
		if got := SumTokens(c.a, c.b); got != c.want {
			t.Errorf("SumTokens(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestUsageAddSaturates(t *testing.T) {
	a := Usage{InputTokens: math.MaxInt64 - 1, TotalTokens: math.MaxInt64}
	got := a.Add(Usage{InputTokens: 5, TotalTokens: math.MaxInt64, OutputTokens: 2})
	want := Usage{InputTokens: math.MaxInt64, TotalTokens: math.MaxInt64, OutputTokens: 2}
	if got != want {
		t.Fatalf("Add = %+v, want %+v (saturated, not wrapped)", got, want)
	}
}
