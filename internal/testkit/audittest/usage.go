package audittest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
)

func testUsageAggregates(t *testing.T, open Open) {
	s := open(t)
	r1 := UsageAt(Base.Add(10*time.Minute), "/a", "s1", "gpt", 0.5)
	r1.CostSource = catalog.CostSourceProvider // read back below
	r2 := UsageAt(Base.Add(20*time.Minute), "/a", "s1", "gpt", 0.25)
	hit := UsageAt(Base.Add(30*time.Minute), "/a", "s1", "gpt", 0.5)
	hit.CacheType = audit.CacheTypeExact
	free := UsageAt(Base.Add(40*time.Minute), "/a", "", "gpt", 0)
	free.TotalCost, free.CostSource = nil, ""
	other := UsageAt(Base.Add(70*time.Minute), "/a", "", "gpt", 1)
	MustAppendUsage(t, s, r1, r2, hit, free, other)
	Flush(t, s)

	tok := func(n int64) catalog.Usage {
		return catalog.Usage{InputTokens: 100 * n, OutputTokens: 10 * n, TotalTokens: 110 * n, CachedInputTokens: 20 * n}
	}
	hours, err := s.UsageAggregates(audit.Hourly, Base, Base.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	JSONEq(t, "hour rows", hours, []audit.UsageAggregate{
		{Start: Base, UserPath: "/a", Provider: "openai-main", Model: "gpt", Requests: 4, CacheHits: 1, Unpriced: 1, Tokens: tok(4), Cost: 750_000_000},
		{Start: Base.Add(time.Hour), UserPath: "/a", Provider: "openai-main", Model: "gpt", Requests: 1, Tokens: tok(1), Cost: 1_000_000_000},
	})
	days, err := s.UsageAggregates(audit.Daily, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	JSONEq(t, "day rows", days, []audit.UsageAggregate{
		{Start: Base, UserPath: "/a", Provider: "openai-main", Model: "gpt", Requests: 5, CacheHits: 1, Unpriced: 1, Tokens: tok(5), Cost: 1_750_000_000},
	})

	var seen []audit.ID
	if err := s.UsageRecords(Base.Add(15*time.Minute), Base.Add(40*time.Minute), func(r *audit.UsageRecord) bool {
		seen = append(seen, r.ID)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0] != r2.ID || seen[1] != hit.ID {
		t.Fatalf("records in range: %v", seen)
	}
	var back *audit.UsageRecord
	_ = s.UsageRecords(time.Time{}, Base.Add(11*time.Minute), func(r *audit.UsageRecord) bool { back = r; return false })
	JSONEq(t, "record read back", back, r1)
}

func testSessions(t *testing.T, open Open) {
	s := open(t)
	// Three sessions; s1 and s2 under /a, the same id s1 under /b (another
	// tenant's session, never merged with /a's).
	MustAppendUsage(t, s,
		UsageAt(Base.Add(1*time.Minute), "/a", "s1", "gpt", 1),
		UsageAt(Base.Add(2*time.Minute), "/a", "s2", "gpt", 1),
		UsageAt(Base.Add(3*time.Minute), "/b", "s1", "claude", 1),
	)
	Flush(t, s)
	// s1 of /a becomes the most recent; a late record of s2 from before
	// its last activity must not move s2 back.
	hit := UsageAt(Base.Add(5*time.Minute), "/a", "s1", "claude", 3)
	hit.CacheType = audit.CacheTypeExact
	MustAppendUsage(t, s, UsageAt(Base.Add(4*time.Minute), "/a", "s1", "gpt", 2), hit,
		UsageAt(Base.Add(90*time.Second), "/a", "s2", "gpt", 1))
	Flush(t, s)

	rows, next, err := s.Sessions(audit.SessionQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if next != "" {
		t.Fatalf("next = %q on the only page", next)
	}
	type row struct {
		path, id    string
		first, last time.Duration
		reqs, hits  int64
		cost        float64
		input       int64
		models      []string
	}
	want := []row{
		{"/a", "s1", time.Minute, 5 * time.Minute, 3, 1, 3, 300, []string{"gpt", "claude"}},
		{"/b", "s1", 3 * time.Minute, 3 * time.Minute, 1, 0, 1, 100, []string{"claude"}},
		{"/a", "s2", 90 * time.Second, 2 * time.Minute, 2, 0, 2, 200, []string{"gpt"}},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d sessions: %+v", len(rows), rows)
	}
	for i, w := range want {
		g := rows[i]
		if g.UserPath != w.path || g.SessionID != w.id || !g.FirstSeen.Equal(Base.Add(w.first)) ||
			!g.LastSeen.Equal(Base.Add(w.last)) || g.Requests != w.reqs || g.CacheHits != w.hits ||
			g.Cost.Float() != w.cost || g.InputTokens != w.input || fmt.Sprint(g.Models) != fmt.Sprint(w.models) {
			t.Fatalf("session %d = %+v, want %+v", i, g, w)
		}
	}

	// Pages of one, following the cursor, give the same order.
	var got []string
	cursor := ""
	for range 5 {
		rows, next, err := s.Sessions(audit.SessionQuery{Limit: 1, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			got = append(got, r.UserPath+" "+r.SessionID)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	eqStrings(t, "paged sessions", got, []string{"/a s1", "/b s1", "/a s2"})

	// A user path keeps its own sessions and those below it.
	rows, _, _ = s.Sessions(audit.SessionQuery{Limit: 10, UserPath: "/b"})
	if len(rows) != 1 || rows[0].UserPath != "/b" {
		t.Fatalf("user path filter: %+v", rows)
	}
	MustAppendUsage(t, s, UsageAt(Base.Add(time.Minute), "/bb", "s9", "gpt", 1),
		UsageAt(Base.Add(time.Minute), "/b/c", "s9", "gpt", 1))
	Flush(t, s)
	rows, _, _ = s.Sessions(audit.SessionQuery{Limit: 10, UserPath: "/b"})
	if len(rows) != 2 || rows[0].UserPath != "/b" || rows[1].UserPath != "/b/c" {
		t.Fatalf("user path filter with a sibling and a child: %+v", rows)
	}
	// Latest activity within [From, To).
	rows, _, _ = s.Sessions(audit.SessionQuery{Limit: 10, From: Base.Add(2 * time.Minute), To: Base.Add(4 * time.Minute)})
	if len(rows) != 2 || rows[0].UserPath != "/b" || rows[1].SessionID != "s2" {
		t.Fatalf("time filter: %+v", rows)
	}
	for _, bad := range []string{"%%%", "AAAA", "QUJDREVGR0hJSg"} {
		if _, _, err := s.Sessions(audit.SessionQuery{Limit: 1, Cursor: bad}); !errors.Is(err, audit.ErrBadCursor) {
			t.Fatalf("cursor %q: %v", bad, err)
		}
	}
}

func testDeleteUsageBefore(t *testing.T, open Open) {
	s := open(t)
	var rs []*audit.UsageRecord
	for i := range 48 { // two days, one record an hour, a session per day
		at := Base.Add(time.Duration(i) * time.Hour)
		rs = append(rs, UsageAt(at, "/a", "day"+at.Format("02"), "gpt", 1))
	}
	MustAppendUsage(t, s, rs...)
	Flush(t, s)

	cutoff := Base.Add(30 * time.Hour)
	deleted := 0
	for {
		n, err := s.DeleteUsageBefore(cutoff, 7)
		if err != nil {
			t.Fatal(err)
		}
		deleted += n
		if n < 7 {
			break
		}
	}
	if deleted != 30+1 { // 30 records and the first day's session
		t.Fatalf("deleted %d", deleted)
	}
	n := 0
	_ = s.UsageRecords(time.Time{}, time.Time{}, func(*audit.UsageRecord) bool { n++; return true })
	if n != 18 {
		t.Fatalf("%d records left, want 18", n)
	}
	hours, _ := s.UsageAggregates(audit.Hourly, time.Time{}, time.Time{})
	if len(hours) != 18 || !hours[0].Start.Equal(cutoff) {
		t.Fatalf("%d hour rows left, first %v", len(hours), hours[0].Start)
	}
	days, _ := s.UsageAggregates(audit.Daily, time.Time{}, time.Time{})
	if len(days) != 2 || days[0].Requests != 24 || days[1].Requests != 24 {
		t.Fatalf("day rows = %+v", days)
	}
	sess, _, _ := s.Sessions(audit.SessionQuery{Limit: 10})
	if len(sess) != 1 || sess[0].SessionID != "day31" {
		t.Fatalf("sessions = %+v", sess)
	}
}

// testBatchSums: many usage records and entries committed in one batch
// leave the same hour and session rows as the records added one by one,
// and a second batch adds to the rows the first wrote.
func testBatchSums(t *testing.T, open Open) {
	s := open(t)
	wantHours := map[string]audit.UsageAggregate{}
	wantSessions := map[string]*audit.SessionTotals{}
	add := func(n int, at time.Time) {
		for i := range n {
			ts := at.Add(time.Duration(i) * 37 * time.Second)
			cost := 0.001 * float64(i%7)
			u := &audit.UsageRecord{ID: audit.NewID(ts), Timestamp: ts, UserPath: fmt.Sprintf("/t/%d", i%3),
				SessionID: fmt.Sprintf("s%d", i%4), ProviderName: "p", ProviderType: "openai", Model: "m",
				Usage: catalog.Usage{InputTokens: int64(i), OutputTokens: 2, TotalTokens: int64(i) + 2}, TotalCost: &cost}
			u.RequestID = u.ID
			e := EntryAt(ts, 200+100*(i%4))
			if !s.AppendUsage(u) || !s.AppendEntry(e) {
				t.Fatal("queue full")
			}
			h := audit.UsageAggregateOf(audit.Hourly, u)
			k := h.Start.String() + h.UserPath
			w := wantHours[k]
			w.AddRecord(u)
			wantHours[k] = w
			sk := u.UserPath + "|" + u.SessionID
			if wantSessions[sk] == nil {
				wantSessions[sk] = &audit.SessionTotals{}
			}
			wantSessions[sk].AddRecord(u)
		}
		Flush(t, s)
	}
	add(500, Base)
	add(300, Base.Add(90*time.Minute))
	rows, err := s.UsageAggregates(audit.Hourly, Base.Add(-time.Hour), Base.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(wantHours) {
		t.Fatalf("%d hour rows, want %d", len(rows), len(wantHours))
	}
	for _, r := range rows {
		w := wantHours[r.Start.String()+r.UserPath]
		// Costs add up in whole Nanos: exactly, on every engine.
		if r.Requests != w.Requests || r.Tokens != w.Tokens || r.Cost != w.Cost {
			t.Errorf("row %s %s: %+v, want %+v", r.Start, r.UserPath, r, w)
		}
	}
	sessions, _, err := s.Sessions(audit.SessionQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(sessions) != len(wantSessions) {
		t.Fatalf("%d sessions, want %d", len(sessions), len(wantSessions))
	}
	for i, got := range sessions {
		w := wantSessions[got.UserPath+"|"+got.SessionID]
		if w == nil || got.Requests != w.Requests || !got.LastSeen.Equal(w.LastSeen) || !got.FirstSeen.Equal(w.FirstSeen) ||
			got.Cost != w.Cost || got.Usage != w.Usage {
			t.Errorf("session %+v, want %+v", got, w)
		}
		if i > 0 && got.LastSeen.After(sessions[i-1].LastSeen) {
			t.Error("sessions not in latest-activity order")
		}
	}
	hours, err := s.AuditHours(Base.Add(-time.Hour), Base.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var requests int64
	for _, h := range hours {
		requests += h.Requests
	}
	if requests != 800 {
		t.Fatalf("audit hours count %d requests, want 800", requests)
	}
}

// testRetention runs the retention pass over a store of a week of traffic
// and finds it empty afterwards.
func testRetention(t *testing.T, open Open) {
	s := open(t)
	at := Base
	for i := range 300 {
		at = at.Add(7 * 24 * time.Hour / 300)
		e := EntryAt(at, 200)
		e.SessionID = fmt.Sprintf("s%d", i%10)
		MustAppend(t, s, e)
		MustAppendUsage(t, s, UsageAt(at, "/a", e.SessionID, "gpt", 1))
	}
	Flush(t, s)
	cutoff := at.Add(time.Hour).Truncate(time.Hour)
	r := audit.Retention{Entries: s, Usage: s, AuditDays: 1, UsageDays: 1, Batch: 50,
		Now: func() time.Time { return cutoff.Add(24 * time.Hour) }}
	ne, nu, err := r.RunOnce(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if ne != 300 || nu != 310 {
		t.Fatalf("deleted %d entries, %d usage records and sessions", ne, nu)
	}
	p, err := s.ListEntries(audit.EntryQuery{Limit: 1})
	if err != nil || p.Total != 0 || len(p.Entries) != 0 {
		t.Fatalf("entries left after retention: %d (%v)", p.Total, err)
	}
	if rows, _ := s.AuditHours(time.Time{}, time.Time{}); len(rows) != 0 {
		t.Fatalf("%d hour rows left", len(rows))
	}
	if days, _ := s.UsageAggregates(audit.Daily, time.Time{}, time.Time{}); len(days) == 0 {
		t.Fatal("day rows went with the records")
	}
}
