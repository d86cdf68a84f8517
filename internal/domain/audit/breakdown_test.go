package audit_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// breakdownFixture writes usage records over several paths, keys, models,
// providers and endpoints; see the table in the body.
func breakdownFixture(t *testing.T) *audit.UsageQueries {
	st, s := openStore(t)
	n := 0
	rec := func(when, path, key, prov, model, endpoint string, status int, ms int64, cost float64, hit bool) {
		n++
		r := &audit.UsageRecord{ID: audit.NewID(at(when)), Timestamp: at(when), UserPath: path, AuthKeyID: key,
			ProviderName: prov, Model: model, Endpoint: endpoint, StatusCode: status, DurationNs: ms * int64(time.Millisecond),
			Usage: catalog.Usage{InputTokens: 100, OutputTokens: 10, TotalTokens: 110, ReasoningTokens: 1}}
		if cost >= 0 {
			r.TotalCost = &cost
		}
		if hit {
			zero := 0.0
			r.CacheType, r.CostAvoided, r.TotalCost = audit.CacheTypeExact, r.TotalCost, &zero
		}
		if !st.AppendUsage(r) {
			t.Fatal("usage refused")
		}
	}
	const chat, msgs = "/v1/chat/completions", "/v1/messages"
	rec("2026-04-01 10:00:00.000", "/org/a/app", "k1", "p1", "gpt", chat, 200, 40, 1, false)
	rec("2026-04-01 11:00:00.000", "/org/a", "k1", "p1", "gpt", chat, 200, 60, 2, false)
	rec("2026-04-01 12:00:00.000", "/org/a", "k1", "p1", "gpt", chat, 200, 5, 2, true)
	rec("2026-04-02 09:00:00.000", "/org/b", "k2", "p2", "claude", msgs, 502, 900, 4, false)
	rec("2026-04-02 09:10:00.000", "/org/b", "k2", "p2", "claude", msgs, 499, 2500, -1, false)
	rec("2026-04-02 09:20:00.000", "/solo", "", "p1", "free", chat, 200, 100, -1, false)
	rec("2026-03-20 09:20:00.000", "/org/a", "k1", "p1", "gpt", chat, 200, 100, 100, false) // outside 7 days
	flush(t, s)
	return audit.NewUsageQueries(st, clock)
}

func breakdown(t *testing.T, uq *audit.UsageQueries, query string) audit.BreakdownPage {
	t.Helper()
	v, _ := url.ParseQuery(query)
	q, err := audit.ParseBreakdownQuery(v, now)
	if err != nil {
		t.Fatal(err)
	}
	p, err := uq.Breakdown(q)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func boolInt(b bool) catalog.Nanos {
	if b {
		return 1
	}
	return 0
}

func groups(p audit.BreakdownPage) []string {
	out := []string{}
	for _, r := range p.Rows {
		out = append(out, r.Group)
	}
	return out
}

func TestBreakdownGroupsAndSums(t *testing.T) {
	uq := breakdownFixture(t)
	p := breakdown(t, uq, "by=key&days=7")
	jsonEq(t, "key groups", groups(p), []string{"k2", "k1", ""})
	k1 := p.Rows[1]
	// Three requests, a cache hit whose price is avoided, not spent.
	if k1.Requests != 3 || k1.CacheHits != 1 || *k1.TotalCost != 3_000_000_000 || k1.CostAvoided != 2_000_000_000 ||
		k1.InputTokens != 300 || k1.ReasoningTokens != 3 || k1.Errors4xx != 0 || *k1.P50Ms != 50 || *k1.P95Ms != 75 {
		t.Fatalf("k1: %+v", k1)
	}
	k2 := p.Rows[0]
	if k2.Errors4xx != 1 || k2.Errors5xx != 1 || *k2.TotalCost != 4_000_000_000 || *k2.P50Ms != 1000 || *k2.P95Ms != 3000 {
		t.Fatalf("k2: %+v", k2)
	}
	// Nothing priced: a null cost, not zero.
	if p.Rows[2].TotalCost != nil {
		t.Fatalf("unpriced group has cost %v", *p.Rows[2].TotalCost)
	}
	if p.By != audit.ByKey || p.StartDate != "2026-03-27" || p.EndDate != "2026-04-02" || !p.ServerTime.Equal(now) || p.Next != nil {
		t.Fatalf("page: %+v", p)
	}

	jsonEq(t, "paths", groups(breakdown(t, uq, "by=user_path")), []string{"/org/a", "/org/b", "/org/a/app", "/solo"})
	jsonEq(t, "paths, depth 1", groups(breakdown(t, uq, "by=user_path&depth=1&days=7")), []string{"/org", "/solo"})
	jsonEq(t, "models", groups(breakdown(t, uq, "by=model&days=7")), []string{"claude", "gpt", "free"})
	jsonEq(t, "providers", groups(breakdown(t, uq, "by=provider&days=7")), []string{"p2", "p1"})
	jsonEq(t, "endpoints", groups(breakdown(t, uq, "by=endpoint&days=7")), []string{"/v1/messages", "/v1/chat/completions"})
	// A window holding a whole month reads March from its monthly rows
	// and the days around it from daily rows: the same sums.
	for _, q := range []string{"by=user_path&start_date=2026-02-15&end_date=2026-04-02",
		"by=user_path&start_date=2026-03-01&end_date=2026-03-31", "by=user_path&start_date=2026-03-20&end_date=2026-03-20"} {
		if p := breakdown(t, uq, q); *p.Rows[0].TotalCost != 100_000_000_000+2_000_000_000*boolInt(!strings.Contains(q, "03-31") && !strings.Contains(q, "03-20&")) {
			t.Errorf("%s: /org/a cost %v", q, *p.Rows[0].TotalCost)
		}
	}
	// The 30-day default takes the older record too.
	if p := breakdown(t, uq, "by=user_path"); *p.Rows[0].TotalCost != 102_000_000_000 {
		t.Fatalf("/org/a over 30 days: %v", *p.Rows[0].TotalCost)
	}

	// Filters: a path covers those below it; key, model and provider are exact.
	jsonEq(t, "under /org/a", groups(breakdown(t, uq, "by=user_path&days=7&user_path=/org/a")), []string{"/org/a", "/org/a/app"})
	jsonEq(t, "key k2", groups(breakdown(t, uq, "by=model&days=7&key_id=k2")), []string{"claude"})
	jsonEq(t, "model gpt", groups(breakdown(t, uq, "by=key&days=7&model=gpt")), []string{"k1"})
	jsonEq(t, "provider p1", groups(breakdown(t, uq, "by=model&days=7&provider=p1")), []string{"gpt", "free"})
}

func TestBreakdownPages(t *testing.T) {
	uq := breakdownFixture(t)
	var got []string
	q := "by=user_path&days=7&limit=1"
	for range 10 {
		p := breakdown(t, uq, q)
		got = append(got, groups(p)...)
		if p.Next == nil {
			break
		}
		q = "by=user_path&days=7&limit=1&after=" + url.QueryEscape(*p.Next)
	}
	jsonEq(t, "paged", got, []string{"/org/b", "/org/a", "/org/a/app", "/solo"})
}

func TestBreakdownBadParams(t *testing.T) {
	for _, q := range []string{"", "by=team", "by=key&depth=1", "by=user_path&depth=0", "by=key&limit=0",
		"by=key&after=%21", "by=key&user_path=a//b", "by=key&days=0"} {
		v, _ := url.ParseQuery(q)
		if _, err := audit.ParseBreakdownQuery(v, now); err == nil {
			t.Errorf("%q accepted", q)
		}
	}
}

func TestPathPrefix(t *testing.T) {
	for _, c := range [][3]any{{"/a/b/c", 1, "/a"}, {"/a/b/c", 2, "/a/b"}, {"/a/b/c", 3, "/a/b/c"}, {"/a", 2, "/a"}, {"/", 1, "/"}, {"/a/b", 0, "/a/b"}} {
		if got := audit.PathPrefix(c[0].(string), c[1].(int)); got != c[2] {
			t.Errorf("PathPrefix(%v, %v) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

func TestSummaryAndPeriodsFilters(t *testing.T) {
	uq := breakdownFixture(t)
	w := window(t, "days=7")
	for _, c := range []struct {
		f        audit.UsageFilter
		requests int64
		cost     catalog.Amount
	}{
		{audit.UsageFilter{}, 6, 7},
		{audit.UsageFilter{KeyID: "k1"}, 3, 3}, // the cache hit counts, its price does not
		{audit.UsageFilter{KeyID: "k1", UserPath: "/org/a/app"}, 1, 1},
		{audit.UsageFilter{KeyID: "nobody"}, 0, 0},
		{audit.UsageFilter{Model: "claude"}, 2, 4},
		{audit.UsageFilter{Provider: "p1"}, 4, 3},
		{audit.UsageFilter{UserPath: "/org"}, 5, 7},
	} {
		s, err := uq.Summary(w, c.f)
		if err != nil || s.TotalRequests != c.requests || s.TotalCost != c.cost {
			t.Errorf("%+v: %d requests, cost %v (%v); want %d, %v", c.f, s.TotalRequests, s.TotalCost, err, c.requests, c.cost)
		}
	}
	ps, err := uq.Periods(w, audit.IntervalDaily, audit.UsageFilter{KeyID: "k2"})
	if err != nil || len(ps) != 1 || ps[0].Date != "2026-04-02" || ps[0].Requests != 2 || ps[0].Cost != 4 {
		t.Fatalf("k2 per day: %+v (%v)", ps, err)
	}
	v, _ := url.ParseQuery("user_path=a//b")
	if _, err := audit.ParseUsageFilter(v); err == nil {
		t.Fatal("bad user_path accepted")
	}
	for _, q := range []string{"key_id=k1", "provider=p1"} {
		v, _ := url.ParseQuery(q)
		if _, err := audit.ParseSessionQuery(v, now); err == nil {
			t.Errorf("sessions accepted %s", q)
		}
	}
}
