package audittest

import (
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// testBreakdownRows checks that the breakdown rows sum the records per
// period, user path, key, provider, model and endpoint, and that hour
// rows go with the records while day rows stay.
func testBreakdownRows(t *testing.T, open Open) {
	s := open(t)
	rec := func(min int, key, endpoint string, status int, ms int64, cost float64) *audit.UsageRecord {
		r := UsageAt(Base.Add(time.Duration(min)*time.Minute), "/a", "", "gpt", cost)
		r.AuthKeyID, r.Endpoint, r.StatusCode, r.DurationNs = key, endpoint, status, ms*int64(time.Millisecond)
		return r
	}
	r1 := rec(5, "k1", "/v1/chat/completions", 200, 80, 0.5)
	r2 := rec(10, "k1", "/v1/chat/completions", 502, 900, 0.25)
	hit := rec(15, "k1", "/v1/chat/completions", 200, 3, 2)
	avoided, spent := 2.0, 0.0
	hit.CacheType, hit.CostAvoided, hit.TotalCost = audit.CacheTypeExact, &avoided, &spent
	free := rec(20, "k1", "/v1/chat/completions", 499, 20_000, 0)
	free.TotalCost, free.CostSource = nil, ""
	other := rec(25, "k2", "/v1/messages", 200, 100, 1)
	later := rec(70, "k1", "/v1/chat/completions", 200, 80, 1)
	MustAppendUsage(t, s, r1, r2, hit, free, other, later)
	Flush(t, s)

	tok := func(n int64) catalog.Usage {
		return catalog.Usage{InputTokens: 100 * n, OutputTokens: 10 * n, TotalTokens: 110 * n, CachedInputTokens: 20 * n}
	}
	hist := func(ms ...int64) (h [audit.NumDurationBuckets]int64) {
		for _, m := range ms {
			h[audit.DurationBucket(m*int64(time.Millisecond))]++
		}
		return h
	}
	k1 := audit.BreakdownRow{Start: Base, UserPath: "/a", KeyID: "k1", Provider: "openai-main", Model: "gpt",
		Endpoint: "/v1/chat/completions", Requests: 4, CacheHits: 1, Priced: 2, Tokens: tok(4),
		Cost: 750_000_000, CostAvoided: 2_000_000_000, Errors4xx: 1, Errors5xx: 1, Durations: hist(80, 900, 3, 20_000)}
	k2 := audit.BreakdownRow{Start: Base, UserPath: "/a", KeyID: "k2", Provider: "openai-main", Model: "gpt",
		Endpoint: "/v1/messages", Requests: 1, Priced: 1, Tokens: tok(1), Cost: 1_000_000_000, Durations: hist(100)}
	k1Later := audit.BreakdownRow{Start: Base.Add(time.Hour), UserPath: "/a", KeyID: "k1", Provider: "openai-main",
		Model: "gpt", Endpoint: "/v1/chat/completions", Requests: 1, Priced: 1, Tokens: tok(1), Cost: 1_000_000_000,
		Durations: hist(80)}
	hours, err := s.BreakdownRows(audit.Hourly, Base, Base.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	JSONEq(t, "hour rows", hours, []audit.BreakdownRow{k1, k2, k1Later})
	if only, _ := s.BreakdownRows(audit.Hourly, Base.Add(time.Hour), time.Time{}); len(only) != 1 {
		t.Fatalf("rows from the second hour: %d, want 1", len(only))
	}
	// The day row of k1 sums both hours.
	k1Day := k1
	k1Day.Add(&k1Later)
	days, err := s.BreakdownRows(audit.Daily, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	JSONEq(t, "day rows", days, []audit.BreakdownRow{k1Day, k2})

	// Retention takes the hour rows with the records, not the day rows.
	if _, err := s.DeleteUsageBefore(Base.Add(24*time.Hour), 100); err != nil {
		t.Fatal(err)
	}
	if hours, _ := s.BreakdownRows(audit.Hourly, time.Time{}, time.Time{}); len(hours) != 0 {
		t.Fatalf("hour rows after retention: %d", len(hours))
	}
	if days, _ := s.BreakdownRows(audit.Daily, time.Time{}, time.Time{}); len(days) != 2 {
		t.Fatalf("day rows after retention: %d, want 2", len(days))
	}
}
