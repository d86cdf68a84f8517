package boltstore

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// openAudit opens a store in a temp dir and returns its audit storage.
func openAudit(t testing.TB) (*Audit, *store.Store) {
	t.Helper()
	s, err := store.Open(store.Options{Path: filepath.Join(t.TempDir(), "audit.db"), NoSync: true,
		FlushInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return NewAudit(s), s
}

// flush waits until everything queued is committed.
func flush(t testing.TB, s *store.Store) {
	t.Helper()
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// base is a Monday, 2026-03-30 00:00 UTC: the last week of a month.
var base = time.Date(2026, 3, 30, 0, 0, 0, 0, time.UTC)

// ids makes ids in creation order.
var ids = audit.NewIDGenerator()

// entryAt returns a typical completed chat entry made at t.
func entryAt(t time.Time, status int) *audit.Entry {
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

// usageAt returns a priced usage record made at t.
func usageAt(t time.Time, path, session, model string, cost float64) *audit.UsageRecord {
	c := cost
	return &audit.UsageRecord{
		ID: ids.New(t), Timestamp: t, UserPath: path, SessionID: session,
		ProviderName: "openai-main", ProviderType: "openai", Model: model, Endpoint: "/v1/chat/completions",
		Usage:     catalog.Usage{InputTokens: 100, OutputTokens: 10, TotalTokens: 110, CachedInputTokens: 20},
		TotalCost: &c,
	}
}

// mustAppend appends entries and fails the test on a refusal.
func mustAppend(t testing.TB, a *Audit, es ...*audit.Entry) {
	t.Helper()
	for _, e := range es {
		if !a.AppendEntry(e) {
			t.Fatalf("entry %s refused", e.ID)
		}
	}
}

// mustAppendUsage appends usage records and fails the test on a refusal.
func mustAppendUsage(t testing.TB, a *Audit, rs ...*audit.UsageRecord) {
	t.Helper()
	for _, r := range rs {
		if !a.AppendUsage(r) {
			t.Fatalf("usage %s refused", r.ID)
		}
	}
}

// jsonEq fails unless a and b encode to the same JSON.
func jsonEq(t testing.TB, what string, got, want any) {
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

// ids of a page, as text.
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
