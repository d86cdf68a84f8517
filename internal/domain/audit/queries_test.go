package audit_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/storage/store"
	"github.com/modelgate/modelgate/internal/storage/store/boltstore"
)

// now is the injected clock: Thursday 2026-04-02 10:30 UTC, in ISO week
// 2026-W14 (Monday 2026-03-30 to Sunday 2026-04-05).
var now = time.Date(2026, 4, 2, 10, 30, 0, 0, time.UTC)

func clock() time.Time { return now }

// at parses a UTC time "2006-01-02 15:04:05.000".
func at(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05.000", s)
	if err != nil {
		panic(err)
	}
	return t
}

// openStore returns the bbolt audit storage of a fresh store.
func openStore(t *testing.T) (*boltstore.Audit, *store.Store) {
	t.Helper()
	s, err := store.Open(store.Options{Path: filepath.Join(t.TempDir(), "a.db"), NoSync: true, FlushInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return boltstore.NewAudit(s), s
}

// openQueueingStore returns the bbolt audit storage of a fresh store
// whose writer commits only when asked to (its flush interval outlasts
// any test), so records stay queued until a read or a flush commits them.
func openQueueingStore(t *testing.T) *boltstore.Audit {
	t.Helper()
	s, err := store.Open(store.Options{Path: filepath.Join(t.TempDir(), "q.db"), NoSync: true, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return boltstore.NewAudit(s)
}

func flush(t *testing.T, s *store.Store) {
	t.Helper()
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func window(t *testing.T, query string) audit.Window {
	t.Helper()
	v, _ := url.ParseQuery(query)
	w, err := audit.ParseWindow(v, now)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func jsonEq(t *testing.T, what string, got, want any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Fatalf("%s:\n got %s\nwant %s", what, g, w)
	}
}

// usageFixture writes eight usage records; record i has i×100 input and
// i×10 output tokens.
//
//	u1 2026-03-29 23:30 Sun W13 March   /team/a   s1  gpt    1.00
//	u2 2026-03-30 00:15 Mon W14 March   /team/a   s1  gpt    2.00
//	u3 2026-03-31 23:59 Tue W14 March   /team/b   s2  claude 4.00
//	u4 2026-04-01 00:00 Wed W14 April   /team/b   s2  claude 8.00, response-cache hit
//	u5 2026-04-01 13:00 Wed W14 April   /team/a/x s3  gpt    no price
//	u6 2026-04-02 09:59 Thu W14 April   /team/a   -   gpt    16.00
//	u7 2025-12-31 12:00 Wed 2026-W01    /team/a   s0  gpt    32.00
//	u8 2026-03-30 12:00 Mon W14 March   /team/b   s1  gpt    0.50 (same id as /team/a's s1)
func usageFixture(t *testing.T) *audit.UsageQueries {
	st, s := openStore(t)
	rec := func(i int64, when, path, session, model string, cost float64, cache bool) *audit.UsageRecord {
		r := &audit.UsageRecord{
			ID: audit.NewID(at(when)), Timestamp: at(when), UserPath: path, SessionID: session,
			ProviderName: "p1", ProviderType: "openai", Model: model, Endpoint: "/v1/chat/completions",
			Usage: catalog.Usage{InputTokens: 100 * i, OutputTokens: 10 * i, TotalTokens: 110 * i},
		}
		if !math.IsNaN(cost) {
			r.TotalCost = &cost
		}
		if cache {
			r.CacheType = audit.CacheTypeExact
		}
		return r
	}
	recs := []*audit.UsageRecord{
		rec(1, "2026-03-29 23:30:00.000", "/team/a", "s1", "gpt", 1, false),
		rec(2, "2026-03-30 00:15:00.000", "/team/a", "s1", "gpt", 2, false),
		rec(3, "2026-03-31 23:59:00.000", "/team/b", "s2", "claude", 4, false),
		rec(4, "2026-04-01 00:00:00.000", "/team/b", "s2", "claude", 8, true),
		rec(5, "2026-04-01 13:00:00.000", "/team/a/x", "s3", "gpt", math.NaN(), false),
		rec(6, "2026-04-02 09:59:00.000", "/team/a", "", "gpt", 16, false),
		rec(7, "2025-12-31 12:00:00.000", "/team/a", "s0", "gpt", 32, false),
		rec(8, "2026-03-30 12:00:00.000", "/team/b", "s1", "gpt", 0.5, false),
	}
	for _, r := range recs {
		if !st.AppendUsage(r) {
			t.Fatal("usage refused")
		}
	}
	flush(t, s)
	return audit.NewUsageQueries(st, clock)
}

func TestUsageSummary(t *testing.T) {
	uq := usageFixture(t)
	got, err := uq.Summary(window(t, "days=7"), audit.UsageFilter{})
	if err != nil {
		t.Fatal(err)
	}
	jsonEq(t, "last 7 days", got, audit.UsageSummary{TotalRequests: 7, TotalInputTokens: 2900, TotalOutputTokens: 290,
		TotalTokens: 3190, TotalCost: 23.5, StartDate: "2026-03-27", EndDate: "2026-04-02"})
	// A user path covers the paths below it.
	got, _ = uq.Summary(window(t, "days=7"), audit.UsageFilter{UserPath: "/team/a"})
	jsonEq(t, "/team/a", got, audit.UsageSummary{TotalRequests: 4, TotalInputTokens: 1400, TotalOutputTokens: 140,
		TotalTokens: 1540, TotalCost: 19, StartDate: "2026-03-27", EndDate: "2026-04-02"})
	// An explicit range ending at a month boundary.
	got, _ = uq.Summary(window(t, "start_date=2026-03-30&end_date=2026-03-31"), audit.UsageFilter{})
	if got.TotalRequests != 3 || got.TotalCost != 6.5 || got.TotalInputTokens != 1300 {
		t.Fatalf("Mar 30-31: %+v", got)
	}
}

func TestUsagePeriods(t *testing.T) {
	uq := usageFixture(t)
	w := window(t, "start_date=2025-12-01&end_date=2026-04-02")
	p := func(date string, reqs, in int64, cost float64) audit.UsagePeriod {
		return audit.UsagePeriod{Date: date, Requests: reqs, InputTokens: in, OutputTokens: in / 10, TotalTokens: in * 11 / 10, Cost: catalog.Amount(cost)}
	}
	cases := []struct {
		interval audit.Interval
		want     []audit.UsagePeriod
	}{
		{audit.IntervalDaily, []audit.UsagePeriod{p("2026-04-02", 1, 600, 16), p("2026-04-01", 2, 900, 0),
			p("2026-03-31", 1, 300, 4), p("2026-03-30", 2, 1000, 2.5), p("2026-03-29", 1, 100, 1), p("2025-12-31", 1, 700, 32)}},
		// 2025-12-31 lies in ISO week 1 of 2026.
		{audit.IntervalWeekly, []audit.UsagePeriod{p("2026-W14", 6, 2800, 22.5), p("2026-W13", 1, 100, 1), p("2026-W01", 1, 700, 32)}},
		{audit.IntervalMonthly, []audit.UsagePeriod{p("2026-04", 3, 1500, 16), p("2026-03", 4, 1400, 7.5), p("2025-12", 1, 700, 32)}},
		{audit.IntervalYearly, []audit.UsagePeriod{p("2026", 7, 2900, 23.5), p("2025", 1, 700, 32)}},
	}
	for _, c := range cases {
		got, err := uq.Periods(w, c.interval, audit.UsageFilter{})
		if err != nil {
			t.Fatal(err)
		}
		jsonEq(t, string(c.interval), got, c.want)
	}
	// The window cuts week 14: only its days inside count.
	got, _ := uq.Periods(window(t, "start_date=2026-03-29&end_date=2026-03-31"), audit.IntervalWeekly, audit.UsageFilter{})
	jsonEq(t, "cut week", got, []audit.UsagePeriod{p("2026-W14", 3, 1300, 6.5), p("2026-W13", 1, 100, 1)})
	if got, _ := uq.Periods(window(t, "start_date=2026-01-05&end_date=2026-01-31"), audit.IntervalDaily, audit.UsageFilter{}); len(got) != 0 {
		t.Fatalf("no data: %+v", got)
	}
	for _, q := range []string{"interval=hourly", "interval=Weekly"} {
		v, _ := url.ParseQuery(q)
		if _, err := audit.ParseInterval(v); err == nil {
			t.Fatalf("%s accepted", q)
		}
	}
}

func TestUsageSessions(t *testing.T) {
	uq := usageFixture(t)
	page, err := uq.Sessions(audit.SessionQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Path, ID    string
		First, Last string
		Reqs, Hits  int64
		In          int64
		Cost        float64
	}
	var got []row
	for _, s := range page.Sessions {
		got = append(got, row{s.UserPath, s.SessionID, s.FirstSeen.Format(time.DateTime), s.LastSeen.Format(time.DateTime),
			s.Requests, s.CacheHits, s.InputTokens, s.Cost.Float()})
	}
	// Ordered by latest activity; the cache hit of s2 counts in requests
	// and tokens, not in cost; /team/b's s1 is not /team/a's s1; u6 has no
	// session and is left out.
	jsonEq(t, "sessions", got, []row{
		{"/team/a/x", "s3", "2026-04-01 13:00:00", "2026-04-01 13:00:00", 1, 0, 500, 0},
		{"/team/b", "s2", "2026-03-31 23:59:00", "2026-04-01 00:00:00", 2, 1, 700, 4},
		{"/team/b", "s1", "2026-03-30 12:00:00", "2026-03-30 12:00:00", 1, 0, 800, 0.5},
		{"/team/a", "s1", "2026-03-29 23:30:00", "2026-03-30 00:15:00", 2, 0, 300, 3},
		{"/team/a", "s0", "2025-12-31 12:00:00", "2025-12-31 12:00:00", 1, 0, 700, 32},
	})
	if page.NextCursor != nil {
		t.Fatal("cursor on the last page")
	}
	// Two at a time through the cursor.
	var ids []string
	q := audit.SessionQuery{Limit: 2}
	for {
		p, err := uq.Sessions(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range p.Sessions {
			ids = append(ids, s.UserPath+"#"+s.SessionID)
		}
		if p.NextCursor == nil {
			break
		}
		q.Cursor = *p.NextCursor
	}
	jsonEq(t, "paged", ids, []string{"/team/a/x#s3", "/team/b#s2", "/team/b#s1", "/team/a#s1", "/team/a#s0"})
	// A user path and a window.
	v, _ := url.ParseQuery("user_path=/team/a&days=7&limit=999")
	sq, err := audit.ParseSessionQuery(v, now)
	if err != nil {
		t.Fatal(err)
	}
	if sq.Limit != audit.MaxSessionsLimit {
		t.Fatalf("limit %d", sq.Limit)
	}
	p, _ := uq.Sessions(sq)
	if len(p.Sessions) != 2 || p.Sessions[0].SessionID != "s3" || p.Sessions[1].SessionID != "s1" {
		t.Fatalf("/team/a, 7 days: %+v", p.Sessions)
	}
	_, err = uq.Sessions(audit.SessionQuery{Limit: 2, Cursor: "garbage!"})
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.StatusCode != 400 {
		t.Fatalf("bad cursor: %v", err)
	}
}

func TestSpendSince(t *testing.T) {
	uq := usageFixture(t)
	// 00:10 is mid-hour: the partial hour comes from raw records (u2), the
	// rest of Mar 30 from hourly rows (u8), later days from daily rows
	// (u3, u4 cache hit, u5 unpriced, u6).
	since := at("2026-03-30 00:10:00.000")
	got, err := uq.SpendSince("/team", false, since)
	if err != nil {
		t.Fatal(err)
	}
	jsonEq(t, "/team", got, map[string]float64{"/team": 22.5})
	got, _ = uq.SpendSince("/team", true, since)
	jsonEq(t, "/team per child", got, map[string]float64{"/team/a": 18, "/team/b": 4.5})
	got, _ = uq.SpendSince("/team", false, at("2026-03-30 00:20:00.000"))
	jsonEq(t, "after u2", got, map[string]float64{"/team": 20.5})
	got, _ = uq.SpendSince("/nobody", false, since)
	jsonEq(t, "nobody", got, map[string]float64{"/nobody": 0})
	tot, _ := uq.Totals("/team/b", since)
	if tot.Requests != 3 || tot.CacheHits != 1 || tot.Cost != 4_500_000_000 || tot.Tokens.InputTokens != 1500 {
		t.Fatalf("totals /team/b: %+v", tot)
	}
}

// statsFixture writes audit entries around 2026-04-01.
func statsFixture(t *testing.T) *audit.Queries {
	st, s := openStore(t)
	entry := func(when string, status int, provider string, dur time.Duration, cache bool) {
		e := &audit.Entry{ID: audit.NewID(at(when)), Timestamp: at(when), Method: "POST", Path: "/v1/chat/completions",
			StatusCode: status, ProviderName: provider, DurationNs: int64(dur), UserPath: "/team/a"}
		if cache {
			e.CacheType = audit.CacheTypeExact
		} else if provider != "" {
			// The provider's call, as the audit stage records it.
			e.Data = &audit.Data{Attempts: []audit.Attempt{{Seq: 1, ProviderName: provider, StatusCode: status, Success: status < 400}}}
		}
		if !st.AppendEntry(e) {
			t.Fatal("entry refused")
		}
	}
	entry("2026-04-01 00:05:00.000", 200, "oa", 100*time.Millisecond, false)
	entry("2026-04-01 00:40:00.000", 200, "oa", 300*time.Millisecond, false)
	entry("2026-04-01 00:50:00.000", 200, "oa", time.Millisecond, true) // cache hit: no latency
	entry("2026-04-01 01:10:00.000", 500, "an", 2*time.Second, false)   // failed: no latency
	entry("2026-04-01 01:20:00.000", 401, "", time.Millisecond, false)  // refused, no provider
	entry("2026-04-01 05:00:00.000", 0, "oa", 5*time.Second, false)     // client went away
	entry("2026-04-02 10:29:00.000", 200, "an", 50*time.Millisecond, false)
	entry("2026-03-31 23:59:59.999", 200, "oa", 10*time.Millisecond, false) // the day before
	flush(t, s)
	return audit.NewQueries(st, clock)
}

func f(v float64) *float64 { return &v }

func TestStatsHourly(t *testing.T) {
	qs := statsFixture(t)
	st, err := qs.Stats(window(t, "start_date=2026-04-01&end_date=2026-04-03"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Interval != audit.IntervalHour {
		t.Fatalf("interval %s", st.Interval)
	}
	// Zero-filled from Apr 1 00:00 up to the bucket holding now (Apr 2
	// 10:00): 35 buckets.
	if len(st.Buckets) != 35 || !st.Buckets[0].Start.Equal(at("2026-04-01 00:00:00.000")) ||
		!st.Buckets[34].Start.Equal(at("2026-04-02 10:00:00.000")) {
		t.Fatalf("%d buckets from %v to %v", len(st.Buckets), st.Buckets[0].Start, st.Buckets[len(st.Buckets)-1].Start)
	}
	counts := map[int]audit.StatusCounts{
		0:  {Requests: 3, Status2xx: 3},
		1:  {Requests: 2, Status4xx: 1, Status5xx: 1},
		5:  {Requests: 1, StatusOther: 1},
		34: {Requests: 1, Status2xx: 1},
	}
	for i, b := range st.Buckets {
		if b.StatusCounts != counts[i] {
			t.Fatalf("bucket %d (%v) = %+v, want %+v", i, b.Start, b.StatusCounts, counts[i])
		}
	}
	// The average covers what the provider latency covers: the 2xx
	// requests that reached a provider, not the cache hit, the failed,
	// refused or abandoned ones (100, 300 and 50 ms).
	want := audit.StatsSummary{StatusCounts: audit.StatusCounts{Requests: 7, Status2xx: 4, Status4xx: 1, Status5xx: 1, StatusOther: 1},
		SuccessRate: 4.0 / 7, AvgDurationMs: 450.0 / 3}
	if d := st.Summary; d.StatusCounts != want.StatusCounts || math.Abs(d.SuccessRate-want.SuccessRate) > 1e-12 ||
		math.Abs(d.AvgDurationMs-want.AvgDurationMs) > 1e-9 {
		t.Fatalf("summary %+v, want %+v", d, want)
	}
	series := func(points map[int]float64, n map[int]int64) audit.ProviderLatency {
		pl := audit.ProviderLatency{Requests: make([]int64, 35), AvgDurationMs: make([]*float64, 35)}
		for i, v := range points {
			pl.AvgDurationMs[i] = f(v)
			pl.Requests[i] = n[i]
		}
		return pl
	}
	an := series(map[int]float64{34: 50}, map[int]int64{34: 1})
	an.Provider = "an"
	oa := series(map[int]float64{0: 200}, map[int]int64{0: 2})
	oa.Provider = "oa"
	jsonEq(t, "provider latency", st.ProviderLatency, []audit.ProviderLatency{an, oa})
}

func TestStatsDailyAndZeroFill(t *testing.T) {
	qs := statsFixture(t)
	st, err := qs.Stats(window(t, "days=7"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Interval != audit.IntervalDay || len(st.Buckets) != 7 || !st.Buckets[0].Start.Equal(at("2026-03-27 00:00:00.000")) {
		t.Fatalf("interval %s, %d buckets from %v", st.Interval, len(st.Buckets), st.Buckets[0].Start)
	}
	reqs := []int64{0, 0, 0, 0, 1, 6, 1}
	for i, b := range st.Buckets {
		if b.Requests != reqs[i] {
			t.Fatalf("bucket %d: %d requests, want %d", i, b.Requests, reqs[i])
		}
	}
	jsonEq(t, "daily latency", st.ProviderLatency, []audit.ProviderLatency{
		{Provider: "an", Requests: []int64{0, 0, 0, 0, 0, 0, 1}, AvgDurationMs: []*float64{nil, nil, nil, nil, nil, nil, f(50)}},
		{Provider: "oa", Requests: []int64{0, 0, 0, 0, 1, 2, 0}, AvgDurationMs: []*float64{nil, nil, nil, nil, f(10), f(200), nil}},
	})
	// A window reaching into the future stops at now: 4 days → daily, one
	// bucket; 3 days → hourly, 11 buckets (Apr 2 00:00 to 10:00).
	if st, _ := qs.Stats(window(t, "start_date=2026-04-02&end_date=2026-04-05")); len(st.Buckets) != 1 || st.Summary.Requests != 1 {
		t.Fatalf("future daily: %d buckets, %d requests", len(st.Buckets), st.Summary.Requests)
	}
	if st, _ := qs.Stats(window(t, "start_date=2026-04-02&end_date=2026-04-04")); len(st.Buckets) != 11 || st.Interval != audit.IntervalHour {
		t.Fatalf("future hourly: %d %s buckets", len(st.Buckets), st.Interval)
	}
}

func TestReadsWithLoggingAndUsageOff(t *testing.T) {
	qs := audit.NewQueries(nil, clock)
	st, err := qs.Stats(window(t, "days=1"))
	if err != nil || len(st.Buckets) != 11 || st.Summary.Requests != 0 || st.ProviderLatency == nil {
		t.Fatalf("stats off: %+v %v", st, err)
	}
	l, err := qs.List(audit.EntryQuery{Limit: 10})
	if err != nil || l.Entries == nil || len(l.Entries) != 0 || l.Total != 0 {
		t.Fatalf("list off: %+v %v", l, err)
	}
	var ae *apierr.Error
	if _, err := qs.Get(audit.NewID(now).String()); !errors.As(err, &ae) || ae.StatusCode != 404 {
		t.Fatalf("get off: %v", err)
	}
	uq := audit.NewUsageQueries(nil, clock)
	sum, err := uq.Summary(window(t, "days=30"), audit.UsageFilter{})
	if err != nil || sum.TotalRequests != 0 || sum.StartDate != "2026-03-04" {
		t.Fatalf("summary off: %+v %v", sum, err)
	}
	ps, err := uq.Periods(window(t, "days=30"), audit.IntervalDaily, audit.UsageFilter{})
	if err != nil || ps == nil || len(ps) != 0 {
		t.Fatalf("periods off: %#v %v", ps, err)
	}
	sp, err := uq.Sessions(audit.SessionQuery{Limit: 5})
	if err != nil || sp.Sessions == nil || len(sp.Sessions) != 0 {
		t.Fatalf("sessions off: %+v %v", sp, err)
	}
	b, _ := json.Marshal(sp)
	if string(b) != `{"sessions":[],"next_cursor":null}` {
		t.Fatalf("sessions off JSON %s", b)
	}
}

func TestConversation(t *testing.T) {
	st, s := openStore(t)
	mk := func(when, path, session string) *audit.Entry {
		e := &audit.Entry{ID: audit.NewID(at(when)), Timestamp: at(when), UserPath: path, SessionID: session,
			StatusCode: 200, Data: &audit.Data{RequestBody: json.RawMessage(`{"turn":"` + when + `"}`)}}
		if !st.AppendEntry(e) {
			t.Fatal("refused")
		}
		return e
	}
	c1 := mk("2026-03-31 23:58:00.000", "/team/a", "conv")
	c2 := mk("2026-03-31 23:59:00.000", "/team/a", "conv")
	other := mk("2026-04-01 00:00:00.000", "/team/b", "conv") // another tenant's "conv"
	c3 := mk("2026-04-01 00:01:00.000", "/team/a", "conv")
	c4 := mk("2026-04-01 00:02:00.000", "/team/a", "conv")
	c5 := mk("2026-04-01 02:00:00.000", "/team/a", "conv")
	lone := mk("2026-04-01 03:00:00.000", "/team/a", "")
	flush(t, s)
	qs := audit.NewQueries(st, clock)

	ids := func(c audit.Conversation) []string {
		var out []string
		for _, e := range c.Entries {
			out = append(out, e.ID.String())
			if e.Data == nil || e.Data.RequestBody == nil {
				t.Fatalf("conversation entry %s without its body", e.ID)
			}
		}
		return out
	}
	str := func(es ...*audit.Entry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.ID.String())
		}
		return out
	}
	cases := []struct {
		anchor    *audit.Entry
		limit     int
		want      []*audit.Entry
		truncated bool
	}{
		{c3, 40, []*audit.Entry{c1, c2, c3, c4, c5}, false},
		{c3, 2, []*audit.Entry{c2, c3}, true},                // ending at the anchor
		{c1, 2, []*audit.Entry{c1, c2}, true},                // fewer before: filled after
		{c5, 3, []*audit.Entry{c3, c4, c5}, true},            // the latest turns
		{c4, 500, []*audit.Entry{c1, c2, c3, c4, c5}, false}, // clamped to 200
		{other, 40, []*audit.Entry{other}, false},            // /team/b's conv holds only itself
		{lone, 40, []*audit.Entry{lone}, false},              // no session
	}
	for i, c := range cases {
		got, err := qs.Conversation(c.anchor.ID.String(), c.limit)
		if err != nil {
			t.Fatal(err)
		}
		if got.AnchorID != c.anchor.ID.String() || got.Truncated != c.truncated {
			t.Fatalf("case %d: anchor %s truncated %v", i, got.AnchorID, got.Truncated)
		}
		jsonEq(t, "conversation", ids(got), str(c.want...))
	}

	var ae *apierr.Error
	if _, err := qs.Conversation("", 10); !errors.As(err, &ae) || ae.StatusCode != 400 {
		t.Fatalf("empty anchor: %v", err)
	}
	for _, id := range []string{audit.NewID(now).String(), "not-an-id"} {
		if _, err := qs.Conversation(id, 10); !errors.As(err, &ae) || ae.StatusCode != 404 || ae.Type != apierr.TypeNotFound {
			t.Fatalf("unknown anchor %q: %v", id, err)
		}
	}
	for q, want := range map[string]int{"": 400, "log_id=x&limit=0": 400, "log_id=x&limit=abc": 400, "log_id=x&max_bytes=0": 400} {
		v, _ := url.ParseQuery(q)
		if _, err := audit.ParseConversationQuery(v); !errors.As(err, &ae) || ae.StatusCode != want {
			t.Fatalf("%q: %v", q, err)
		}
	}
	v, _ := url.ParseQuery("log_id=x&limit=999&before=y&max_bytes=1000")
	if cq, err := audit.ParseConversationQuery(v); err != nil || cq != (audit.ConversationQuery{AnchorID: "x", Limit: audit.MaxConversationLimit, Before: "y", MaxBytes: 1000}) {
		t.Fatalf("clamp: %+v %v", cq, err)
	}
	v, _ = url.ParseQuery("log_id=x")
	if cq, _ := audit.ParseConversationQuery(v); cq.Limit != audit.DefaultConversationLimit || cq.MaxBytes != 0 {
		t.Fatalf("default limit %+v", cq)
	}

	// Paged by the bodies' size (each is 33 bytes): the newest turns
	// first, then the earlier ones before the first turn read.
	pages := []struct {
		before   *audit.Entry
		maxBytes int
		want     []*audit.Entry
		earlier  bool
	}{
		{nil, 70, []*audit.Entry{c4, c5}, true},
		{c4, 70, []*audit.Entry{c2, c3}, true},
		{c2, 70, []*audit.Entry{c1}, false},
		{c4, 10, []*audit.Entry{c3}, true}, // one entry even when its bodies alone are larger
		{c5, 1000, []*audit.Entry{c1, c2, c3, c4}, false},
	}
	for i, p := range pages {
		q := audit.ConversationQuery{AnchorID: c5.ID.String(), Limit: 40, MaxBytes: p.maxBytes}
		if p.before != nil {
			q.Before = p.before.ID.String()
		}
		got, err := qs.ConversationPage(q)
		if err != nil {
			t.Fatal(err)
		}
		if got.Earlier != p.earlier || !got.Truncated {
			t.Fatalf("page %d: earlier %v truncated %v", i, got.Earlier, got.Truncated)
		}
		jsonEq(t, "page", ids(got), str(p.want...))
	}
	// An entry of another session is no cursor of this one.
	if _, err := qs.ConversationPage(audit.ConversationQuery{AnchorID: c5.ID.String(), Limit: 40, Before: other.ID.String()}); !errors.As(err, &ae) || ae.StatusCode != 400 || ae.Param == nil || *ae.Param != "before" {
		t.Fatalf("foreign before: %v", err)
	}
}

func TestListAndGetThroughQueries(t *testing.T) {
	st, s := openStore(t)
	var es []*audit.Entry
	for i := range 5 {
		when := now.Add(-time.Duration(i) * time.Hour)
		e := &audit.Entry{ID: audit.NewID(when), Timestamp: when, StatusCode: 200 + 100*(i%3), UserPath: "/a",
			Data: &audit.Data{ResponseBody: json.RawMessage(`{"n":1}`), Attempts: []audit.Attempt{{Seq: 1, Success: true}}}}
		es = append(es, e)
		st.AppendEntry(e)
	}
	flush(t, s)
	qs := audit.NewQueries(st, clock)
	v, _ := url.ParseQuery("status=2xx&limit=1&offset=1")
	q, err := audit.ParseListQuery(v, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	res, err := qs.List(q)
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 2 || len(res.Entries) != 1 || res.Entries[0].ID != es[3].ID || res.Limit != 1 || res.Offset != 1 {
		t.Fatalf("list: %+v", res)
	}
	if res.Entries[0].Data.ResponseBody != nil {
		t.Fatal("list carries bodies")
	}
	e, err := qs.Get(es[3].ID.String())
	if err != nil || string(e.Data.ResponseBody) != `{"n":1}` {
		t.Fatalf("get: %+v %v", e, err)
	}
	// Lists the entry lacks read as [], headers it lacks (its own and its
	// attempt's) as {}, not null.
	for _, d := range []*audit.Data{res.Entries[0].Data, e.Data} {
		b, _ := json.Marshal(d)
		for _, member := range []string{`"labels":[]`, `"request_revisions":[]`, `"request_headers":{}`,
			`"response_headers":{}`, `"attempts":[{`} {
			if !strings.Contains(string(b), member) {
				t.Errorf("want %s in %s", member, b)
			}
		}
		if h := d.Attempts[0].ResponseHeaders; h == nil {
			t.Errorf("an attempt's headers read as null: %s", b)
		}
	}
}

func TestSpendSinceSeesQueuedRecords(t *testing.T) {
	st := openQueueingStore(t)
	cost := 3.0
	when := now.Add(-time.Minute)
	if !st.AppendUsage(&audit.UsageRecord{ID: audit.NewID(when), Timestamp: when, UserPath: "/t", TotalCost: &cost}) {
		t.Fatal("refused")
	}
	got, err := audit.NewUsageQueries(st, clock).SpendSince("/t", false, now.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	jsonEq(t, "spend", got, map[string]float64{"/t": 3})
}

// TestUsageViewsShowMoneyRounded: the summary, the periods and the session
// rows add costs in whole billionths of a dollar (catalog.Nanos), so
// 0.35 + 0.7 is exactly 1.05, where float64 addition makes it
// 1.0499999999999998.
func TestUsageViewsShowMoneyRounded(t *testing.T) {
	st, s := openStore(t)
	for i, c := range []float64{0.35, 0.7} {
		cost := c
		when := at("2026-04-02 09:00:00.000").Add(time.Duration(i) * time.Minute)
		if !st.AppendUsage(&audit.UsageRecord{ID: audit.NewID(when), Timestamp: when, UserPath: "/team", SessionID: "s1",
			ProviderName: "p1", ProviderType: "openai", Model: "gpt", Endpoint: "/v1/chat/completions",
			Usage: catalog.Usage{InputTokens: 1, TotalTokens: 1}, TotalCost: &cost}) {
			t.Fatal("usage refused")
		}
	}
	flush(t, s)
	uq := audit.NewUsageQueries(st, clock)
	sum, err := uq.Summary(window(t, "days=1"), audit.UsageFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if x, y := 0.35, 0.7; x+y == 1.05 {
		t.Fatal("the test needs a sum with float noise")
	}
	if float64(sum.TotalCost) != 1.05 {
		t.Fatalf("summary cost %v, want exactly 1.05", sum.TotalCost)
	}
	periods, err := uq.Periods(window(t, "days=1"), audit.IntervalDaily, audit.UsageFilter{})
	if err != nil {
		t.Fatal(err)
	}
	page, err := uq.Sessions(audit.SessionQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for what, v := range map[string]any{"summary": sum, "periods": periods, "sessions": page} {
		raw, _ := json.Marshal(v)
		if !strings.Contains(string(raw), "_cost\":1.05,") && !strings.Contains(string(raw), "\"cost\":1.05") {
			t.Errorf("%s JSON %s shows no cost of 1.05", what, raw)
		}
	}
}
