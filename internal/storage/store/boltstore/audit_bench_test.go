package boltstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// jsonBody returns a chat request body of about n bytes.
func jsonBody(n int) json.RawMessage {
	pad := strings.Repeat("x", max(0, n-80))
	return json.RawMessage(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"` + pad + `"}]}`)
}

// benchEntry returns an entry with request and response bodies of about
// bodyBytes each, and its usage record.
func benchEntry(t time.Time, i int, body json.RawMessage) (*audit.Entry, *audit.UsageRecord) {
	e := &audit.Entry{
		ID: ids.New(t), RequestID: fmt.Sprintf("req-%d", i), Timestamp: t,
		Method: "POST", Path: "/v1/chat/completions", StatusCode: 200, DurationNs: int64(40 * time.Millisecond),
		AuthMethod: "api_key", AuthKeyID: "key-1", UserPath: fmt.Sprintf("/team/%d", i%20),
		SessionID: fmt.Sprintf("sess-%d", i%5000), Provider: "openai", ProviderName: fmt.Sprintf("openai-%d", i%4),
		RequestedModel: fmt.Sprintf("model-%d", i%8), ResolvedModel: fmt.Sprintf("model-%d", i%8),
		Usage: audit.UsageOf(catalog.Usage{InputTokens: 120, OutputTokens: 40, TotalTokens: 160}),
		Data: &audit.Data{
			APIKeyHash: "0123456789abcdef", RequestBody: body, ResponseBody: body, UserAgent: "bench/1.0",
			RequestHeaders:  map[string]string{"authorization": audit.Redacted, "content-type": "application/json", "user-agent": "bench/1.0"},
			ResponseHeaders: map[string]string{"content-type": "application/json"},
			Attempts:        []audit.Attempt{{Seq: 1, Kind: audit.AttemptPrimary, ProviderName: "openai-0", StatusCode: 200, Success: true, StartedAt: t}},
		},
	}
	cost := 0.0012
	u := &audit.UsageRecord{
		ID: ids.New(t), RequestID: e.ID, Timestamp: t, UserPath: e.UserPath, SessionID: e.SessionID,
		ProviderName: e.ProviderName, ProviderType: "openai", Model: e.ResolvedModel, Endpoint: e.Path,
		AuthKeyID: fmt.Sprintf("key-%d", i%50), StatusCode: e.StatusCode, DurationNs: int64(i%3000) * int64(time.Millisecond),
		Usage: e.Usage.Usage, TotalCost: &cost, InputCost: &cost, OutputCost: new(float64),
	}
	if i%2 == 1 {
		u.Endpoint = "/v1/messages"
	}
	return e, u
}

// BenchmarkWriter measures sustained committed throughput of audit entries
// with 1 KiB request and response bodies plus their usage records, through
// the store's batched writer with real fsync. Like request goroutines,
// GOMAXPROCS producers encode and queue records in parallel; a full queue
// makes a producer back off and retry, so entries/s is what producers and
// writer sustain together. Run with -benchtime 2s or more.
func BenchmarkWriter(b *testing.B) {
	s, err := store.Open(store.Options{Path: filepath.Join(b.TempDir(), "writer.db")})
	if err != nil {
		b.Fatal(err)
	}
	a := NewAudit(s)
	body := jsonBody(1024)
	var waits, seq atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			e, u := benchEntry(time.Now(), int(seq.Add(1)), body)
			for !a.AppendEntry(e) {
				waits.Add(1)
				time.Sleep(50 * time.Microsecond)
			}
			for !a.AppendUsage(u) {
				waits.Add(1)
				time.Sleep(50 * time.Microsecond)
			}
		}
	})
	if err := s.Flush(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	cpu := processCPU() - cpu0
	st := s.Stats()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "entries/s")
	// CPU per entry and its usage record, producers and writer together:
	// the figure that holds on a loaded machine, where entries/s does not.
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(waits.Load())/float64(b.N), "full-waits/op")
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	if st.Committed != uint64(2*b.N) || st.Failed != 0 {
		b.Fatalf("stats %+v for %d entries", st, b.N)
	}
}

// BenchmarkWriterOnly measures the writer alone: b.N entries with 1 KiB
// bodies and their usage records are encoded before the timer starts, then
// queued at once and committed with real fsync. entries/s is the rate the
// single writer goroutine commits at when producers are not the limit.
func BenchmarkWriterOnly(b *testing.B) {
	s, err := store.Open(store.Options{Path: filepath.Join(b.TempDir(), "writer.db"), QueueSize: 2*b.N + 16})
	if err != nil {
		b.Fatal(err)
	}
	a := NewAudit(s)
	body := jsonBody(1024)
	ws := make([]store.Write, 0, 2*b.N)
	for i := 0; i < b.N; i++ {
		e, u := benchEntry(time.Now(), i, body)
		ew, err := a.newEntryWrite(e)
		if err != nil {
			b.Fatal(err)
		}
		uw, err := a.newUsageWrite(u)
		if err != nil {
			b.Fatal(err)
		}
		ws = append(ws, ew.write(), store.Write{Apply: uw.apply})
	}
	b.ResetTimer()
	cpu0 := processCPU()
	tx0 := s.DB().Stats().TxStats
	for _, w := range ws {
		if !s.Enqueue(w) {
			b.Fatal("queue full")
		}
	}
	if err := s.Flush(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	cpu := processCPU() - cpu0
	tx := s.DB().Stats().TxStats
	st := s.Stats()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "entries/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(st.Batches), "batches")
	// Load-independent measures of the writer's work per entry.
	b.ReportMetric(float64(tx.GetWrite()-tx0.GetWrite())/float64(b.N), "page-writes/op")
	b.ReportMetric(float64(tx.GetNodeCount()-tx0.GetNodeCount())/float64(b.N), "nodes/op")
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	if st.Committed != uint64(2*b.N) {
		b.Fatalf("committed %d of %d", st.Committed, 2*b.N)
	}
}

// BenchmarkEncodeEntry measures what AppendEntry costs its caller: encoding
// an entry with 1 KiB bodies, its meta and its index terms.
func BenchmarkEncodeEntry(b *testing.B) {
	body := jsonBody(1024)
	e, _ := benchEntry(time.Now(), 1, body)
	a := &Audit{}
	b.ReportAllocs()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		w, err := a.newEntryWrite(e)
		if err != nil || len(w.head) == 0 {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
}

// BenchmarkBuildEntry measures what BenchmarkWriter spends building each
// entry and usage record (the request path's work, not the writer's), so
// that its cpu-µs/op can be read net of it.
func BenchmarkBuildEntry(b *testing.B) {
	body := jsonBody(1024)
	b.ReportAllocs()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		e, u := benchEntry(time.Now(), i, body)
		if e == nil || u == nil {
			b.Fatal("no entry")
		}
	}
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
}

// BenchmarkEncodeUsage measures what AppendUsage costs its caller.
func BenchmarkEncodeUsage(b *testing.B) {
	_, u := benchEntry(time.Now(), 1, nil)
	a := &Audit{}
	b.ReportAllocs()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		if _, err := a.newUsageWrite(u); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
}

// TestBigDataset fills a store with 1,000,000 usage records and 200,000
// audit entries spread over 90 days and times the reads that must stay
// under 100 ms: the 30-day usage summary, the 30-day request statistics,
// the first page of the audit log (with and without filters) and the
// 90-day usage breakdowns (20 user paths, 50 keys, 4 providers, 8 models,
// 2 endpoints). It takes
// minutes, so it runs only with MODELGATE_BIG_BENCH=1.
func TestBigDataset(t *testing.T) {
	if os.Getenv("MODELGATE_BIG_BENCH") != "1" {
		t.Skip("set MODELGATE_BIG_BENCH=1 to generate 1M usage records and 200k entries")
	}
	const (
		usageN = 1_000_000
		entryN = 200_000
		span   = 90 * 24 * time.Hour
	)
	dir := t.TempDir()
	s, err := store.Open(store.Options{Path: filepath.Join(dir, "big.db"), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a := NewAudit(s)
	now := time.Date(2026, 5, 20, 15, 30, 0, 0, time.UTC)
	start := now.Add(-span)
	rng := rand.New(rand.NewPCG(1, 2))
	body := jsonBody(256)
	began := time.Now()
	put := func(ok func() bool) {
		for !ok() {
			time.Sleep(100 * time.Microsecond)
		}
	}
	for i := range usageN {
		at := start.Add(time.Duration(rng.Int64N(int64(span))))
		var e *audit.Entry
		e, u := benchEntry(at, rng.IntN(1<<20), body)
		if i < entryN {
			e.StatusCode = []int{200, 200, 200, 200, 200, 200, 200, 429, 500, 401}[rng.IntN(10)]
			put(func() bool { return a.AppendEntry(e) })
		}
		put(func() bool { return a.AppendUsage(u) })
	}
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	gen := time.Since(began)
	fi, _ := os.Stat(filepath.Join(dir, "big.db"))
	t.Logf("generated %d usage records and %d entries in %s (%.0f records/s); file %d MiB",
		usageN, entryN, gen.Round(time.Second), float64(usageN+entryN)/gen.Seconds(), fi.Size()>>20)

	clock := func() time.Time { return now }
	uq := audit.NewUsageQueries(a, clock)
	qs := audit.NewQueries(a, clock)
	win := audit.LastDays(30, now)
	timeIt := func(name string, fn func() error) {
		if err := fn(); err != nil { // warm the page cache once
			t.Fatal(err)
		}
		var ds []time.Duration
		for range 7 {
			t0 := time.Now()
			if err := fn(); err != nil {
				t.Fatal(err)
			}
			ds = append(ds, time.Since(t0))
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		t.Logf("%-40s median %8.2f ms  max %8.2f ms", name, ms(ds[len(ds)/2]), ms(ds[len(ds)-1]))
		if ds[len(ds)/2] > 100*time.Millisecond {
			t.Errorf("%s: median %s, want under 100 ms", name, ds[len(ds)/2])
		}
	}
	var sum audit.UsageSummary
	timeIt("usage summary, 30 days", func() (err error) { sum, err = uq.Summary(win, audit.UsageFilter{}); return err })
	var st audit.Stats
	timeIt("audit stats, 30 days", func() (err error) { st, err = qs.Stats(win); return err })
	var page audit.ListResult
	timeIt("audit log first page", func() (err error) { page, err = qs.List(audit.EntryQuery{Limit: 50}); return err })
	timeIt("audit log first page, 30 days", func() (err error) {
		_, err = qs.List(audit.EntryQuery{Limit: 50, From: win.Start, To: win.End})
		return err
	})
	timeIt("audit log first page, model filter", func() (err error) {
		_, err = qs.List(audit.EntryQuery{Limit: 50, Model: "model-3"})
		return err
	})
	timeIt("audit log first page, path+status", func() (err error) {
		_, err = qs.List(audit.EntryQuery{Limit: 50, UserPath: "/team/7", StatusClass: 5})
		return err
	})
	timeIt("usage periods, weekly, 30 days", func() error { _, err := uq.Periods(win, audit.IntervalWeekly, audit.UsageFilter{}); return err })
	timeIt("usage sessions, first page", func() error { _, err := uq.Sessions(audit.SessionQuery{Limit: 50}); return err })
	win90 := audit.LastDays(90, now)
	var bd audit.BreakdownPage
	for _, c := range []struct {
		name string
		q    audit.BreakdownQuery
	}{
		{"breakdown by user path, 90 days", audit.BreakdownQuery{By: audit.ByUserPath}},
		{"breakdown by key, 90 days", audit.BreakdownQuery{By: audit.ByKey}},
		{"breakdown by model of a path, 90 days", audit.BreakdownQuery{By: audit.ByModel, Filter: audit.UsageFilter{UserPath: "/team/3"}}},
	} {
		c.q.Window, c.q.Limit = win90, audit.DefaultBreakdownLimit
		timeIt(c.name, func() (err error) { bd, err = uq.Breakdown(c.q); return err })
		if len(bd.Rows) == 0 {
			t.Errorf("%s: no rows", c.name)
		}
	}
	t.Logf("summary: %d requests, cost %.2f; stats: %d %s buckets, %d requests; list total %d",
		sum.TotalRequests, sum.TotalCost, len(st.Buckets), st.Interval, st.Summary.Requests, page.Total)
	if page.Total != entryN || len(page.Entries) != 50 {
		t.Errorf("list total %d, page %d", page.Total, len(page.Entries))
	}
}

// ms returns d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// BenchmarkWriterHeap64KiB queues entries with 64 KiB request and response
// bodies (each with buffers of its own, as requests have) and their usage
// records at a steady 2,000 entries/s, and reports the peak of the Go heap
// in use above where it started (sampled every 2 ms): what bodies waiting
// for their batch cost in memory, with the queue's default byte budget,
// with a smaller and an out-of-reach budget (batches cut by count and
// interval only).
func BenchmarkWriterHeap64KiB(b *testing.B) {
	const rate = 2000
	for _, bc := range []struct {
		name   string
		budget int64
	}{{"budget=2MiB", 2 << 20}, {"budget=default", 0}, {"budget=none", 1 << 40}} {
		b.Run(bc.name, func(b *testing.B) {
			s, err := store.Open(store.Options{Path: filepath.Join(b.TempDir(), "heap.db"), MaxBatchBytes: bc.budget})
			if err != nil {
				b.Fatal(err)
			}
			a := NewAudit(s)
			body := jsonBody(64 << 10)
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			base := ms.HeapInuse
			var peak atomic.Uint64
			stop, done := make(chan struct{}), make(chan struct{})
			go func() {
				defer close(done)
				t := time.NewTicker(2 * time.Millisecond)
				defer t.Stop()
				for {
					select {
					case <-stop:
						return
					case <-t.C:
						var m runtime.MemStats
						runtime.ReadMemStats(&m)
						peak.Store(max(peak.Load(), m.HeapInuse))
					}
				}
			}()
			dropped := 0
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if d := time.Until(start.Add(time.Duration(i) * time.Second / rate)); d > 0 {
					time.Sleep(d)
				}
				e, u := benchEntry(time.Now(), i, bytes.Clone(body))
				e.Data.ResponseBody = bytes.Clone(body)
				if !a.AppendEntry(e) {
					dropped++
				}
				if !a.AppendUsage(u) {
					dropped++
				}
			}
			if err := s.Flush(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			close(stop)
			<-done
			b.ReportMetric(float64(peak.Load()-min(peak.Load(), base))/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(s.Stats().Batches), "batches")
			b.ReportMetric(float64(dropped), "dropped")
			if err := s.Close(); err != nil {
				b.Fatal(err)
			}
		})
	}
}
