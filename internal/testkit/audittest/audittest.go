// Package audittest checks an audit.Storage implementation against the
// behaviour every implementation must share: the same appends give the
// same reads, whatever the store.
package audittest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// Storage is an audit.Storage whose queued records can be waited for.
type Storage interface {
	audit.Storage
	// Flush waits until every record queued before the call is committed.
	Flush(ctx context.Context) error
}

// Open returns a new, empty storage for one test.
type Open func(t *testing.T) Storage

// Run runs every contract test against storages made by open.
func Run(t *testing.T, open Open) {
	tests := []struct {
		name string
		fn   func(*testing.T, Open)
	}{
		{"EntryRoundTrip", testEntryRoundTrip},
		{"EntryWithoutBodies", testEntryWithoutBodies},
		{"RefusesRecordsWithoutID", testRefusesWithoutID},
		{"ListFiltersPagingAndTotals", testListFiltersPagingAndTotals},
		{"ListByKeyErrorStatusesModel", testListKeyErrorStatusModel},
		{"AuditHoursSumEntries", testAuditHours},
		{"SessionEntryIDs", testSessionEntryIDs},
		{"DeleteEntriesBefore", testDeleteEntriesBefore},
		{"UsageAggregatesSumRecords", testUsageAggregates},
		{"BreakdownRowsSumRecords", testBreakdownRows},
		{"SessionsFollowLatestActivity", testSessions},
		{"SessionsByModel", testSessionsByModel},
		{"DeleteUsageBeforeKeepsDays", testDeleteUsageBefore},
		{"BatchSumsMatchRecordSums", testBatchSums},
		{"RetentionEmptiesTheStore", testRetention},
		{"SumsSaturate", testSumsSaturate},
		{"RepriceMovesAggregates", testReprice},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open) })
	}
}

// Base is a Monday, 2026-03-30 00:00 UTC: the last week of a month.
var Base = time.Date(2026, 3, 30, 0, 0, 0, 0, time.UTC)

// ids makes ids in creation order.
var ids = audit.NewIDGenerator()

// NewID returns a fresh id made at t, after every id made before.
func NewID(t time.Time) audit.ID { return ids.New(t) }

// EntryAt returns a typical completed chat entry made at t.
func EntryAt(t time.Time, status int) *audit.Entry {
	return &audit.Entry{
		ID: ids.New(t), RequestID: "req-" + t.Format(time.RFC3339Nano), Timestamp: t,
		Method: "POST", Path: "/v1/chat/completions", StatusCode: status, DurationNs: int64(100 * time.Millisecond),
		AuthMethod: "api_key", UserPath: "/team/a", SessionID: "s1",
		Provider: "openai", ProviderName: "openai-main", RequestedModel: "fast", ResolvedModel: "gpt-4o-mini",
		Usage: audit.UsageOf(catalog.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}),
		Data: &audit.Data{
			APIKeyHash:      audit.APIKeyHash("sk_mg_secret"),
			RequestBody:     json.RawMessage(`{"model":"fast","messages":[{"role":"user","content":"hi"}]}`),
			ResponseBody:    json.RawMessage(`{"id":"chatcmpl-1","choices":[]}`),
			RequestHeaders:  map[string]string{"authorization": audit.Redacted, "content-type": "application/json"},
			ResponseHeaders: map[string]string{"content-type": "application/json"},
			UserAgent:       "test-agent/1.0",
			Attempts: []audit.Attempt{
				{Seq: 1, Kind: audit.AttemptPrimary, ProviderName: "openai-main", StatusCode: 500,
					ResponseBody: json.RawMessage(`{"error":"boom"}`), StartedAt: t},
				{Seq: 2, Kind: audit.AttemptFailover, ProviderName: "openai-main", StatusCode: 200, Success: true, StartedAt: t},
			},
		},
	}
}

// UsageAt returns a usage record made at t, priced from the catalog.
func UsageAt(t time.Time, path, session, model string, cost float64) *audit.UsageRecord {
	c := cost
	return &audit.UsageRecord{
		ID: ids.New(t), Timestamp: t, UserPath: path, SessionID: session,
		ProviderName: "openai-main", ProviderType: "openai", Model: model, Endpoint: "/v1/chat/completions",
		Usage:     catalog.Usage{InputTokens: 100, OutputTokens: 10, TotalTokens: 110, CachedInputTokens: 20},
		TotalCost: &c, CostSource: catalog.CostSourceCatalog,
	}
}

// Flush waits until everything queued in s is committed.
func Flush(t testing.TB, s Storage) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// MustAppend appends entries and fails the test on a refusal.
func MustAppend(t testing.TB, s audit.EntryStorage, es ...*audit.Entry) {
	t.Helper()
	for _, e := range es {
		if !s.AppendEntry(e) {
			t.Fatalf("entry %s refused", e.ID)
		}
	}
}

// MustAppendUsage appends usage records and fails the test on a refusal.
func MustAppendUsage(t testing.TB, s audit.UsageStorage, rs ...*audit.UsageRecord) {
	t.Helper()
	for _, r := range rs {
		if !s.AppendUsage(r) {
			t.Fatalf("usage %s refused", r.ID)
		}
	}
}

// JSONEq fails unless got and want encode to the same JSON.
func JSONEq(t testing.TB, what string, got, want any) {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if string(g) != string(w) {
		t.Fatalf("%s:\n got %s\nwant %s", what, g, w)
	}
}

// pageIDs returns the ids of a page, as text.
func pageIDs(p audit.EntryPage) []string {
	out := make([]string, len(p.Entries))
	for i, e := range p.Entries {
		out[i] = e.ID.String()
	}
	return out
}

// idStrings returns the text ids of entries in the order given.
func idStrings(es ...*audit.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID.String()
	}
	return out
}

// eqStrings fails unless got equals want.
func eqStrings(t testing.TB, what string, got, want []string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s:\n got %v\nwant %v", what, got, want)
	}
}
