package catalog

import "testing"

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
