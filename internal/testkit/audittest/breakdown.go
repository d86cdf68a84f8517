package audittest

import (
	"fmt"
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
	rows := func(g audit.Granularity, from, to time.Time) ([]audit.BreakdownRow, error) {
		return s.Breakdown(audit.BreakdownSelect{Granularity: g, From: from, To: to})
	}

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
	hours, err := rows(audit.Hourly, Base, Base.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	JSONEq(t, "hour rows", hours, []audit.BreakdownRow{k1, k2, k1Later})
	if only, _ := rows(audit.Hourly, Base.Add(time.Hour), time.Time{}); len(only) != 1 {
		t.Fatalf("rows from the second hour: %d, want 1", len(only))
	}
	// The day row of k1 sums both hours.
	k1Day := k1
	k1Day.Add(&k1Later)
	days, err := rows(audit.Daily, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	JSONEq(t, "day rows", days, []audit.BreakdownRow{k1Day, k2})
	// Base is in March: the month rows start on March 1.
	months, err := rows(audit.Monthly, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	k1Month, k2Month := k1Day, k2
	k1Month.Start, k2Month.Start = audit.Monthly.Truncate(Base), audit.Monthly.Truncate(Base)
	JSONEq(t, "month rows", months, []audit.BreakdownRow{k1Month, k2Month})

	// Grouped by a dimension, filtered: the sums of the matching rows,
	// each carrying only its group's value.
	grouped := func(by audit.BreakdownBy, f audit.UsageFilter) map[string]audit.BreakdownRow {
		t.Helper()
		rs, err := s.Breakdown(audit.BreakdownSelect{Granularity: audit.Daily, From: Base, To: Base.Add(24 * time.Hour), Filter: f, By: by})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]audit.BreakdownRow{}
		for _, r := range rs {
			out[r.UserPath+"|"+r.KeyID+"|"+r.Provider+"|"+r.Model+"|"+r.Endpoint] = r
		}
		return out
	}
	only := func(r audit.BreakdownRow, by audit.BreakdownBy) audit.BreakdownRow {
		g := audit.BreakdownRow{}
		g.Add(&r)
		switch by {
		case audit.ByUserPath:
			g.UserPath = r.UserPath
		case audit.ByKey:
			g.KeyID = r.KeyID
		case audit.ByProvider:
			g.Provider = r.Provider
		case audit.ByModel:
			g.Model = r.Model
		case audit.ByEndpoint:
			g.Endpoint = r.Endpoint
		}
		return g
	}
	both := k1Day
	both.Add(&k2)
	JSONEq(t, "by key", grouped(audit.ByKey, audit.UsageFilter{}), map[string]audit.BreakdownRow{
		"|k1|||": only(k1Day, audit.ByKey), "|k2|||": only(k2, audit.ByKey)})
	JSONEq(t, "by endpoint", grouped(audit.ByEndpoint, audit.UsageFilter{}), map[string]audit.BreakdownRow{
		"||||/v1/chat/completions": only(k1Day, audit.ByEndpoint), "||||/v1/messages": only(k2, audit.ByEndpoint)})
	JSONEq(t, "by path", grouped(audit.ByUserPath, audit.UsageFilter{}), map[string]audit.BreakdownRow{"/a||||": only(both, audit.ByUserPath)})
	JSONEq(t, "by model", grouped(audit.ByModel, audit.UsageFilter{}), map[string]audit.BreakdownRow{"|||gpt|": only(both, audit.ByModel)})
	JSONEq(t, "by provider of k2", grouped(audit.ByProvider, audit.UsageFilter{KeyID: "k2"}),
		map[string]audit.BreakdownRow{"||openai-main||": only(k2, audit.ByProvider)})
	for _, f := range []audit.UsageFilter{{UserPath: "/ab"}, {UserPath: "/a/b"}, {KeyID: "k3"}, {Model: "gp"}, {Provider: "openai"}} {
		if got := grouped(audit.ByKey, f); len(got) != 0 {
			t.Errorf("filter %+v kept %v", f, got)
		}
	}
	for _, f := range []audit.UsageFilter{{UserPath: "/"}, {UserPath: "/a"}, {Model: "gpt", Provider: "openai-main"}} {
		if got := grouped(audit.ByKey, f); len(got) != 2 {
			t.Errorf("filter %+v kept %d groups, want 2", f, len(got))
		}
	}

	// Retention takes the hour rows with the records, not the day rows.
	if _, err := s.DeleteUsageBefore(Base.Add(24*time.Hour), 100); err != nil {
		t.Fatal(err)
	}
	if hours, _ := rows(audit.Hourly, time.Time{}, time.Time{}); len(hours) != 0 {
		t.Fatalf("hour rows after retention: %d", len(hours))
	}
	if days, _ := rows(audit.Daily, time.Time{}, time.Time{}); len(days) != 2 {
		t.Fatalf("day rows after retention: %d, want 2", len(days))
	}

	// A path filter covers the paths below it.
	below := UsageAt(Base.Add(48*time.Hour), "/a/x", "", "gpt", 1)
	MustAppendUsage(t, s, below)
	Flush(t, s)
	rs, err := s.Breakdown(audit.BreakdownSelect{Granularity: audit.Daily, From: Base.Add(48 * time.Hour),
		Filter: audit.UsageFilter{UserPath: "/a"}, By: audit.ByUserPath})
	if err != nil || len(rs) != 1 || rs[0].UserPath != "/a/x" || rs[0].Requests != 1 {
		t.Fatalf("rows under /a: %+v (%v)", rs, err)
	}
}

// testSessionsByModel checks that a model filter keeps the sessions that
// used the model, and pages them.
func testSessionsByModel(t *testing.T, open Open) {
	s := open(t)
	MustAppendUsage(t, s,
		UsageAt(Base.Add(time.Minute), "/a", "s1", "gpt", 1),
		UsageAt(Base.Add(2*time.Minute), "/a", "s2", "claude", 1),
		UsageAt(Base.Add(3*time.Minute), "/a", "s3", "gpt", 1),
		UsageAt(Base.Add(4*time.Minute), "/a", "s3", "claude", 1),
		UsageAt(Base.Add(5*time.Minute), "/b", "s4", "gpt", 1))
	Flush(t, s)
	var got []string
	cursor := ""
	for range 10 {
		page, next, err := s.Sessions(audit.SessionQuery{Model: "claude", Limit: 1, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range page {
			got = append(got, p.SessionID)
		}
		if cursor = next; cursor == "" {
			break
		}
	}
	JSONEq(t, "sessions that used claude", got, []string{"s3", "s2"})
	page, _, err := s.Sessions(audit.SessionQuery{Model: "gpt", UserPath: "/a", Limit: 10})
	if err != nil || len(page) != 2 || page[0].SessionID != "s3" || page[1].SessionID != "s1" {
		t.Fatalf("gpt sessions under /a: %+v (%v)", page, err)
	}
}

// testListKeyErrorStatusModel checks the list filters by key id, error
// code, several statuses and model substring, alone and with an indexed
// filter.
func testListKeyErrorStatusModel(t *testing.T, open Open) {
	s := open(t)
	mk := func(min, status int, key, code, model string) *audit.Entry {
		e := EntryAt(Base.Add(time.Duration(min)*time.Minute), status)
		e.AuthKeyID, e.PrincipalID, e.Data.ErrorCode = key, key, code
		if model != "" {
			e.RequestedModel, e.ResolvedModel = model, model
		}
		return e
	}
	e1 := mk(1, 200, "k1", "", "")
	e2 := mk(2, 429, "k2", "rate_limited", "")
	e3 := mk(3, 502, "k1", "upstream_error", "Claude-X")
	e4 := mk(4, 404, "", "model_not_found", "")
	e4.UserPath = "/team/b"
	MustAppend(t, s, e1, e2, e3, e4)
	Flush(t, s)
	for _, c := range []struct {
		name string
		q    audit.EntryQuery
		want []*audit.Entry
	}{
		{"key", audit.EntryQuery{KeyID: "k1"}, []*audit.Entry{e3, e1}},
		{"key is exact", audit.EntryQuery{KeyID: "k"}, nil},
		{"error code", audit.EntryQuery{ErrorCode: "rate_limited"}, []*audit.Entry{e2}},
		{"error code is exact", audit.EntryQuery{ErrorCode: "rate"}, nil},
		{"4xx or 5xx", audit.EntryQuery{StatusAny: []int{4, 5}}, []*audit.Entry{e4, e3, e2}},
		{"429 or 5xx", audit.EntryQuery{StatusAny: []int{429, 5}}, []*audit.Entry{e3, e2}},
		{"model substring, any case", audit.EntryQuery{ModelContains: "cLAUDE"}, []*audit.Entry{e3}},
		{"model substring", audit.EntryQuery{ModelContains: "4o-mini"}, []*audit.Entry{e4, e2, e1}},
		{"key and class", audit.EntryQuery{KeyID: "k1", StatusAny: []int{5, 1}}, []*audit.Entry{e3}},
		{"path and key", audit.EntryQuery{UserPath: "/team/a", KeyID: "k2"}, []*audit.Entry{e2}},
		{"path and statuses", audit.EntryQuery{UserPath: "/team/b", StatusAny: []int{4}}, []*audit.Entry{e4}},
		{"search and error code", audit.EntryQuery{Search: "team", ErrorCode: "upstream_error"}, []*audit.Entry{e3}},
	} {
		c.q.Limit = 10
		page, err := s.ListEntries(c.q)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got, want []string
		for _, e := range page.Entries {
			got = append(got, e.ID.String())
		}
		for _, e := range c.want {
			want = append(want, e.ID.String())
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || page.Total != len(c.want) {
			t.Errorf("%s: got %v (total %d), want %v", c.name, got, page.Total, want)
		}
	}
}
