package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/testkit/pgtest"
)

// benchIDs makes the benchmarks' ids.
var benchIDs = audit.NewIDGenerator()

// jsonBody returns a chat request body of about n bytes.
func jsonBody(n int) json.RawMessage {
	pad := strings.Repeat("x", max(0, n-80))
	return json.RawMessage(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"` + pad + `"}]}`)
}

// benchPair returns an entry with request and response bodies body, made
// at t, and its usage record.
func benchPair(t time.Time, i int, body json.RawMessage) (*audit.Entry, *audit.UsageRecord) {
	e := &audit.Entry{
		ID: benchIDs.New(t), RequestID: fmt.Sprintf("req-%d", i), Timestamp: t,
		Method: "POST", Path: "/v1/chat/completions", StatusCode: 200 + 100*(i%7/5)*2, DurationNs: int64(40 * time.Millisecond),
		AuthMethod: "api_key", AuthKeyID: fmt.Sprintf("key-%d", i%50), UserPath: fmt.Sprintf("/team/%d/app-%d", i%20, i%3),
		SessionID: fmt.Sprintf("sess-%d", i%5000), Provider: "openai", ProviderName: fmt.Sprintf("openai-%d", i%4),
		RequestedModel: fmt.Sprintf("model-%d", i%8), ResolvedModel: fmt.Sprintf("model-%d", i%8),
		Usage: audit.UsageOf(catalog.Usage{InputTokens: 120, OutputTokens: 40, TotalTokens: 160}),
		Data: &audit.Data{
			APIKeyHash: "0123456789abcdef", RequestBody: body, ResponseBody: body, UserAgent: "bench/1.0",
			RequestHeaders:  map[string]string{"authorization": audit.Redacted, "content-type": "application/json"},
			ResponseHeaders: map[string]string{"content-type": "application/json"},
			Attempts:        []audit.Attempt{{Seq: 1, Kind: audit.AttemptPrimary, ProviderName: "openai-0", StatusCode: 200, Success: true, StartedAt: t}},
		},
	}
	cost := 0.0012
	u := &audit.UsageRecord{
		ID: benchIDs.New(t), RequestID: e.ID, Timestamp: t, UserPath: e.UserPath, SessionID: e.SessionID,
		ProviderName: e.ProviderName, ProviderType: "openai", Model: e.ResolvedModel, Endpoint: e.Path,
		AuthKeyID: e.AuthKeyID, StatusCode: e.StatusCode, DurationNs: int64(i%3000) * int64(time.Millisecond),
		Usage: e.Usage.Usage, TotalCost: &cost, InputCost: &cost, OutputCost: new(float64),
	}
	return e, u
}

// BenchmarkAuditAppend measures the request path: queueing an entry and
// its usage record, without any I/O (the database is unreachable, so
// everything stays queued).
func BenchmarkAuditAppend(b *testing.B) {
	dsn := pgtest.NewDatabase(b)
	px, viaProxy := newProxy(b, dsn)
	db := openDB(b, viaProxy)
	px.down()
	a := NewAudit(db, AuditOptions{QueueSize: 1 << 30, QueueBytes: 1 << 50, MaxBackoff: time.Minute})
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		_ = a.Close(ctx)
	}()
	e, u := benchPair(time.Now(), 1, jsonBody(1024))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if !a.AppendEntry(e) || !a.AppendUsage(u) {
				b.Error("append refused")
				return
			}
		}
	})
}

// BenchmarkAuditWriter measures sustained committed throughput of audit
// entries with 1 KiB and 64 KiB request and response bodies plus their
// usage records: GOMAXPROCS producers queue pairs in parallel (backing
// off when the queue is full) while the writer commits them. Run with
// -benchtime 20000x or more.
func BenchmarkAuditWriter(b *testing.B) {
	for _, size := range []int{1 << 10, 64 << 10} {
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) { benchAuditWriter(b, jsonBody(size)) })
	}
	b.Run("64KiB-text", func(b *testing.B) { benchAuditWriter(b, textBody(64<<10)) })
}

// textBody is a chat request of about n bytes whose content is words of
// random letters: text that compresses about as little as prose.
func textBody(n int) json.RawMessage {
	r := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	for sb.Len() < n-80 {
		for range 2 + r.IntN(8) {
			sb.WriteByte(byte('a' + r.IntN(26)))
		}
		sb.WriteByte(' ')
	}
	return json.RawMessage(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"` + sb.String() + `"}]}`)
}

// benchAuditWriter is BenchmarkAuditWriter with one body.
func benchAuditWriter(b *testing.B, body json.RawMessage) {
	a, _ := openAudit(b, AuditOptions{})
	start := time.Now().Add(-time.Hour)
	var n atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	began := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := int(n.Add(1))
			e, u := benchPair(start.Add(time.Duration(i)*time.Millisecond), i, body)
			for !a.AppendEntry(e) {
				time.Sleep(time.Millisecond)
			}
			for !a.AppendUsage(u) {
				time.Sleep(time.Millisecond)
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := a.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(began)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "pairs/s")
}

// BenchmarkAuditReads measures the admin reads over 90 days of traffic:
// 200,000 entries and 1,000,000 usage records, written through the
// writer (20 × 3 user paths, 50 keys, 4 providers, 8 models). Run with
// -benchtime 20x; seeding takes a few minutes.
func BenchmarkAuditReads(b *testing.B) {
	const days, entries, usage = 90, 200_000, 1_000_000
	a, _ := openAudit(b, AuditOptions{Batch: 5000, QueueSize: 50_000})
	now := time.Now().UTC()
	from := now.Add(-days * 24 * time.Hour)
	body := jsonBody(256)
	seedStart := time.Now()
	for i := range usage {
		t := from.Add(time.Duration(i) * (days * 24 * time.Hour / usage))
		e, u := benchPair(t, i, body)
		if i%(usage/entries) == 0 {
			for !a.AppendEntry(e) {
				time.Sleep(time.Millisecond)
			}
		}
		for !a.AppendUsage(u) {
			time.Sleep(time.Millisecond)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	if err := a.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := a.db.Pool.Exec(ctx, `VACUUM ANALYZE`); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d entries and %d usage records in %v", entries, usage, time.Since(seedStart).Round(time.Second))
	w, w90 := audit.LastDays(30, now), audit.LastDays(days, now)
	qs, uq := audit.NewQueries(a, nil), audit.NewUsageQueries(a, nil)
	breakdown := func(by audit.BreakdownBy, f audit.UsageFilter) func() error {
		return func() error {
			p, err := uq.Breakdown(audit.BreakdownQuery{By: by, Window: w90, Filter: f, Limit: audit.DefaultBreakdownLimit})
			if err == nil && len(p.Rows) == 0 {
				err = fmt.Errorf("empty breakdown")
			}
			return err
		}
	}
	for _, c := range []struct {
		name string
		fn   func() error
	}{
		{"UsageSummary30d", func() error {
			s, err := uq.Summary(w, audit.UsageFilter{})
			if err == nil && s.TotalRequests == 0 {
				err = fmt.Errorf("empty summary")
			}
			return err
		}},
		{"UsageSummary30dUserPath", func() error { _, err := uq.Summary(w, audit.UsageFilter{UserPath: "/team/3"}); return err }},
		{"Breakdown90dByUserPath", breakdown(audit.ByUserPath, audit.UsageFilter{})},
		{"Breakdown90dByKey", breakdown(audit.ByKey, audit.UsageFilter{})},
		{"Breakdown90dByModelOfPath", breakdown(audit.ByModel, audit.UsageFilter{UserPath: "/team/3"})},
		{"AuditStats30d", func() error { _, err := qs.Stats(w); return err }},
		{"AuditLogFirstPage", func() error {
			r, err := qs.List(audit.EntryQuery{Limit: audit.DefaultListLimit})
			if err == nil && r.Total != entries {
				err = fmt.Errorf("total %d", r.Total)
			}
			return err
		}},
		{"AuditLogFirstPage30d", func() error {
			_, err := qs.List(audit.EntryQuery{From: w.Start, To: w.End, Limit: audit.DefaultListLimit})
			return err
		}},
		{"AuditLogFirstPageUserPath", func() error {
			_, err := qs.List(audit.EntryQuery{UserPath: "/team/5", Limit: audit.DefaultListLimit})
			return err
		}},
		{"AuditLogFirstPageSearch", func() error {
			_, err := qs.List(audit.EntryQuery{Search: "req-12345", Limit: audit.DefaultListLimit})
			return err
		}},
		{"Sessions", func() error {
			_, err := uq.Sessions(audit.SessionQuery{Limit: 50})
			return err
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if err := c.fn(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
