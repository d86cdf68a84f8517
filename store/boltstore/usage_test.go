package boltstore

import (
	"errors"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/audit"
	"github.com/modelgate/modelgate/tokens"
)

func TestUsageAggregatesSumRecordsOfABatch(t *testing.T) {
	a, s := openAudit(t)
	r1 := usageAt(base.Add(10*time.Minute), "/a", "s1", "gpt", 0.5)
	r2 := usageAt(base.Add(20*time.Minute), "/a", "s1", "gpt", 0.25)
	hit := usageAt(base.Add(30*time.Minute), "/a", "s1", "gpt", 0.5)
	hit.CacheType = audit.CacheTypeExact
	free := usageAt(base.Add(40*time.Minute), "/a", "", "gpt", 0)
	free.TotalCost = nil
	other := usageAt(base.Add(70*time.Minute), "/a", "", "gpt", 1)
	mustAppendUsage(t, a, r1, r2, hit, free, other)
	flush(t, s)

	tok := func(n int64) tokens.Usage {
		return tokens.Usage{InputTokens: 100 * n, OutputTokens: 10 * n, TotalTokens: 110 * n, CachedInputTokens: 20 * n}
	}
	hours, err := a.UsageAggregates(audit.Hourly, base, base.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	jsonEq(t, "hour rows", hours, []audit.UsageAggregate{
		{Start: base, UserPath: "/a", Provider: "openai-main", Model: "gpt", Requests: 4, CacheHits: 1, Unpriced: 1, Tokens: tok(4), Cost: 0.75},
		{Start: base.Add(time.Hour), UserPath: "/a", Provider: "openai-main", Model: "gpt", Requests: 1, Tokens: tok(1), Cost: 1},
	})
	days, err := a.UsageAggregates(audit.Daily, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	jsonEq(t, "day rows", days, []audit.UsageAggregate{
		{Start: base, UserPath: "/a", Provider: "openai-main", Model: "gpt", Requests: 5, CacheHits: 1, Unpriced: 1, Tokens: tok(5), Cost: 1.75},
	})

	var seen []audit.ID
	if err := a.UsageRecords(base.Add(15*time.Minute), base.Add(40*time.Minute), func(r *audit.UsageRecord) bool {
		seen = append(seen, r.ID)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0] != r2.ID || seen[1] != hit.ID {
		t.Fatalf("records in range: %v", seen)
	}
	var back *audit.UsageRecord
	_ = a.UsageRecords(time.Time{}, base.Add(11*time.Minute), func(r *audit.UsageRecord) bool { back = r; return false })
	jsonEq(t, "record read back", back, r1)
}

func TestSessionsFollowLatestActivity(t *testing.T) {
	a, s := openAudit(t)
	// Three sessions; s1 and s2 under /a, the same id s1 under /b (another
	// tenant's session, never merged with /a's).
	mustAppendUsage(t, a,
		usageAt(base.Add(1*time.Minute), "/a", "s1", "gpt", 1),
		usageAt(base.Add(2*time.Minute), "/a", "s2", "gpt", 1),
		usageAt(base.Add(3*time.Minute), "/b", "s1", "claude", 1),
	)
	flush(t, s)
	// s1 of /a becomes the most recent; a late record of s2 from before
	// its last activity must not move s2 back.
	hit := usageAt(base.Add(5*time.Minute), "/a", "s1", "claude", 3)
	hit.CacheType = audit.CacheTypeExact
	mustAppendUsage(t, a, usageAt(base.Add(4*time.Minute), "/a", "s1", "gpt", 2), hit,
		usageAt(base.Add(90*time.Second), "/a", "s2", "gpt", 1))
	flush(t, s)

	rows, next, err := a.Sessions(audit.SessionQuery{Limit: 10})
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
		if g.UserPath != w.path || g.SessionID != w.id || !g.FirstSeen.Equal(base.Add(w.first)) ||
			!g.LastSeen.Equal(base.Add(w.last)) || g.Requests != w.reqs || g.CacheHits != w.hits ||
			g.Cost != w.cost || g.InputTokens != w.input || len(g.Models) != len(w.models) {
			t.Fatalf("session %d = %+v, want %+v", i, g, w)
		}
		for j := range w.models {
			if g.Models[j] != w.models[j] {
				t.Fatalf("session %d models = %v", i, g.Models)
			}
		}
	}
	// One recent-order key per session: the old ones were replaced.
	_ = s.View(func(tx *bbolt.Tx) error {
		if n := tx.Bucket(bucketSessionsRecent).Stats().KeyN; n != 3 {
			t.Errorf("%d recent keys for 3 sessions", n)
		}
		return nil
	})

	// Pages of one, following the cursor, give the same order.
	var got []string
	cursor := ""
	for range 5 {
		rows, next, err := a.Sessions(audit.SessionQuery{Limit: 1, Cursor: cursor})
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
	rows, _, _ = a.Sessions(audit.SessionQuery{Limit: 10, UserPath: "/b"})
	if len(rows) != 1 || rows[0].UserPath != "/b" {
		t.Fatalf("user path filter: %+v", rows)
	}
	// Latest activity within [From, To).
	rows, _, _ = a.Sessions(audit.SessionQuery{Limit: 10, From: base.Add(2 * time.Minute), To: base.Add(4 * time.Minute)})
	if len(rows) != 2 || rows[0].UserPath != "/b" || rows[1].SessionID != "s2" {
		t.Fatalf("time filter: %+v", rows)
	}
	for _, bad := range []string{"%%%", "AAAA", "QUJDREVGR0hJSg"} {
		if _, _, err := a.Sessions(audit.SessionQuery{Limit: 1, Cursor: bad}); !errors.Is(err, audit.ErrBadCursor) {
			t.Fatalf("cursor %q: %v", bad, err)
		}
	}
}

func TestDeleteUsageBeforeKeepsDays(t *testing.T) {
	a, s := openAudit(t)
	var rs []*audit.UsageRecord
	for i := range 48 { // two days, one record an hour, a session per day
		at := base.Add(time.Duration(i) * time.Hour)
		rs = append(rs, usageAt(at, "/a", "day"+at.Format("02"), "gpt", 1))
	}
	mustAppendUsage(t, a, rs...)
	flush(t, s)

	cutoff := base.Add(30 * time.Hour)
	deleted := 0
	for {
		n, err := a.DeleteUsageBefore(cutoff, 7)
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
	_ = a.UsageRecords(time.Time{}, time.Time{}, func(*audit.UsageRecord) bool { n++; return true })
	if n != 18 {
		t.Fatalf("%d records left, want 18", n)
	}
	hours, _ := a.UsageAggregates(audit.Hourly, time.Time{}, time.Time{})
	if len(hours) != 18 || !hours[0].Start.Equal(cutoff) {
		t.Fatalf("%d hour rows left, first %v", len(hours), hours[0].Start)
	}
	days, _ := a.UsageAggregates(audit.Daily, time.Time{}, time.Time{})
	if len(days) != 2 || days[0].Requests != 24 || days[1].Requests != 24 {
		t.Fatalf("day rows = %+v", days)
	}
	sess, _, _ := a.Sessions(audit.SessionQuery{Limit: 10})
	if len(sess) != 1 || sess[0].SessionID != "day31" {
		t.Fatalf("sessions = %+v", sess)
	}
}
