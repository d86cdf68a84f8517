package e2e

// The admin endpoints' parameters and answers: the usage windows and
// intervals, the request statistics' buckets, budgets addressed by their
// composite key, and the live log stream of real traffic, checked
// through the public HTTP API.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/storage/store/boltstore"
	"github.com/modelgate/modelgate/internal/surface/admin"
)

// seedCacheHit writes the usage record of a response-cache hit at at,
// priced at cost, into the running gateway's store.
func seedCacheHit(t *testing.T, at time.Time, userPath, session string, cost float64) {
	t.Helper()
	st := activeApp(t).Store()
	u := catalog.Usage{InputTokens: 12, OutputTokens: 8, TotalTokens: 20}
	r := &audit.UsageRecord{ID: audit.NewID(at), RequestID: audit.NewID(at), Timestamp: at, UserPath: userPath, SessionID: session,
		ProviderName: "demo", ProviderType: "mock", Model: "mock-model", Endpoint: "/v1/chat/completions", CacheType: "exact",
		Usage: u, TotalCost: &cost}
	if !boltstore.NewAudit(st).AppendUsage(r) {
		t.Fatal("the store refused a record")
	}
	if err := st.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestSpecEndpointsUsageWindows: the usage summary covers the last 30
// days by default, the last N with days, and start_date..end_date when
// given, which win over days; the per-period usage is dated YYYY-MM-DD,
// YYYY-Www (ISO week), YYYY-MM or YYYY by interval, newest first; the
// session usage leaves out rows without a session, counts cache hits in
// requests and tokens but not in cost.
func TestSpecEndpointsUsageWindows(t *testing.T) {
	g := startMockGateway(t)
	now := time.Now().UTC()
	times := []time.Time{now.Add(-time.Minute), now.AddDate(0, 0, -10), now.AddDate(0, 0, -40), now.AddDate(0, 0, -400)}
	for i, at := range times {
		seedRecord(t, at, 200, "/team/a", fmt.Sprint("sess-", i), 1)
	}
	seedRecord(t, now.Add(-2*time.Minute), 200, "/team/a", "", 1) // no session
	seedCacheHit(t, now.Add(-30*time.Second), "/team/a", "sess-0", 5)
	day := func(d time.Time) string { return d.Format(time.DateOnly) }

	summary := func(query string) map[string]any {
		t.Helper()
		res := adminCall(t, g, "GET", "/admin/usage/summary"+query, "")
		if res.Status != 200 {
			t.Fatalf("summary%s: %d %s", query, res.Status, res.Body)
		}
		return res.JSON(t)
	}
	for _, c := range []struct {
		query      string
		requests   float64
		start, end string
	}{
		{"", 4, day(now.AddDate(0, 0, -29)), day(now)},
		{"?days=7", 3, day(now.AddDate(0, 0, -6)), day(now)},
		{"?days=60", 5, day(now.AddDate(0, 0, -59)), day(now)},
		{"?start_date=" + day(times[1]) + "&end_date=" + day(times[1]), 1, day(times[1]), day(times[1])},
		{"?days=1&start_date=" + day(times[2]) + "&end_date=" + day(times[1]), 2, day(times[2]), day(times[1])},
	} {
		m := summary(c.query)
		if m["total_requests"] != c.requests || m["start_date"] != c.start || m["end_date"] != c.end {
			t.Errorf("summary%s: %v requests from %v to %v, want %v from %s to %s", c.query,
				m["total_requests"], m["start_date"], m["end_date"], c.requests, c.start, c.end)
		}
	}

	for interval, key := range map[string]func(time.Time) string{
		"daily":   func(d time.Time) string { return d.Format(time.DateOnly) },
		"weekly":  func(d time.Time) string { y, w := d.ISOWeek(); return fmt.Sprintf("%04d-W%02d", y, w) },
		"monthly": func(d time.Time) string { return d.Format("2006-01") },
		"yearly":  func(d time.Time) string { return d.Format("2006") },
	} {
		res := adminCall(t, g, "GET", "/admin/usage/daily?days=60&interval="+interval, "")
		var rows []struct {
			Date     string  `json:"date"`
			Requests float64 `json:"requests"`
		}
		if res.Status != 200 || json.Unmarshal(res.Body, &rows) != nil {
			t.Fatalf("daily %s: %d %s", interval, res.Status, res.Body)
		}
		want := map[string]float64{}
		for _, at := range []time.Time{times[0], now.Add(-2 * time.Minute), now.Add(-30 * time.Second), times[1], times[2]} {
			want[key(at)]++
		}
		got := map[string]float64{}
		for i, r := range rows {
			got[r.Date] = r.Requests
			if i > 0 && rows[i-1].Date <= r.Date {
				t.Errorf("daily %s: %s listed before %s, want newest first", interval, rows[i-1].Date, r.Date)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("daily %s: %v, want %v", interval, got, want)
		}
	}

	res := adminCall(t, g, "GET", "/admin/usage/sessions", "")
	var s struct {
		Sessions []struct {
			SessionID string  `json:"session_id"`
			Requests  float64 `json:"requests"`
			Tokens    float64 `json:"total_tokens"`
			Cost      float64 `json:"cost"`
			CacheHits float64 `json:"cache_hits"`
		} `json:"sessions"`
	}
	if res.Status != 200 || json.Unmarshal(res.Body, &s) != nil || len(s.Sessions) == 0 {
		t.Fatalf("sessions: %d %s", res.Status, res.Body)
	}
	for _, row := range s.Sessions {
		if row.SessionID == "" {
			t.Errorf("a row without a session is listed: %s", res.Body)
		}
	}
	if first := s.Sessions[0]; first.SessionID != "sess-0" || first.Requests != 2 || first.Tokens != 40 || first.Cost != 1 || first.CacheHits != 1 {
		t.Errorf("the latest session %+v, want sess-0 first with 2 requests, 40 tokens, cost 1 (the cache hit's cost left out), 1 cache hit", first)
	}
}

// TestSpecEndpointsAuditStatsBuckets: the statistics' hourly buckets run
// from the window's start up to the current hour, zero-filled; each
// provider's latency series has one value per bucket, null where the
// provider served no successful request, and averages only the
// successful requests the provider answered.
func TestSpecEndpointsAuditStatsBuckets(t *testing.T) {
	g := startMockGateway(t)
	if res := chatAs(t, g, "/team/a"); res.Status != 200 {
		t.Fatalf("chat: %d %s", res.Status, res.Body)
	}
	entry := mapOf(listOf(adminCall(t, g, "GET", "/admin/audit/log?limit=1", "").JSON(t)["entries"])[0])
	at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(entry["timestamp"]))
	if err != nil {
		t.Fatalf("entry %v", entry)
	}
	seedRecord(t, at, 502, "/team/a", "s", 0) // failed: not in the average
	buckets := func(now time.Time) int { return 24 + now.Hour() + 1 }
	before := buckets(time.Now().UTC())
	m := adminCall(t, g, "GET", "/admin/audit/stats?days=2", "").JSON(t)
	after := buckets(time.Now().UTC())
	bs := listOf(m["buckets"])
	if m["interval"] != "hour" || (len(bs) != before && len(bs) != after) {
		t.Fatalf("interval %v with %d buckets, want hour with %d", m["interval"], len(bs), before)
	}
	start := at.UTC().AddDate(0, 0, -1).Truncate(24 * time.Hour)
	served := int(at.Sub(start) / time.Hour)
	for i, b := range bs {
		bucket := mapOf(b)
		if bucket["start"] != start.Add(time.Duration(i)*time.Hour).Format(time.RFC3339) {
			t.Fatalf("bucket %d starts at %v", i, bucket["start"])
		}
		want := 0.0
		if i == served {
			want = 2
		}
		if bucket["requests"] != want {
			t.Fatalf("bucket %d: %v requests, want %v", i, bucket["requests"], want)
		}
	}
	lat := listOf(m["provider_latency"])
	if len(lat) != 1 {
		t.Fatalf("provider latency %v", lat)
	}
	series := mapOf(lat[0])
	avgs := listOf(series["avg_duration_ms"])
	if series["provider"] != "demo" || len(avgs) != len(bs) || len(listOf(series["requests"])) != len(bs) {
		t.Fatalf("latency series %v for %d buckets", series, len(bs))
	}
	for i, v := range avgs {
		switch {
		case i == served && v != entry["duration_ns"].(float64)/1e6:
			t.Errorf("bucket %d average %v, want the successful request's %v ns in ms", i, v, entry["duration_ns"])
		case i != served && v != nil:
			t.Errorf("bucket %d average %v, want null", i, v)
		}
	}
}

// TestSpecEndpointsBudgetKeys: a budget is identified by user path and
// period, or user path and period_seconds: budgets of one path with
// different periods, and of different paths with one period, are
// separate; reset-one answers {budgets: [the entry], server_time} and
// resets that budget only; DELETE on the URL-encoded path removes one.
func TestSpecEndpointsBudgetKeys(t *testing.T) {
	g := startMockGateway(t)
	for _, p := range []string{"/admin/budgets/%2Fteam/daily", "/admin/budgets/%2Fteam/7200", "/admin/budgets/%2Fother/daily"} {
		if res := adminCall(t, g, "PUT", p, `{"amount":10}`); res.Status != 200 {
			t.Fatalf("PUT %s: %d %s", p, res.Status, res.Body)
		}
	}
	list := func() map[string]map[string]any {
		t.Helper()
		out := map[string]map[string]any{}
		for _, v := range listOf(adminCall(t, g, "GET", "/admin/budgets", "").JSON(t)["budgets"]) {
			b := mapOf(v)
			out[fmt.Sprintf("%v %v", b["user_path"], b["period_seconds"])] = b
		}
		return out
	}
	if l := list(); len(l) != 3 || l["/team 86400"] == nil || l["/team 7200"] == nil || l["/other 86400"] == nil {
		t.Fatalf("budgets %v", l)
	}

	res := adminCall(t, g, "POST", "/admin/budgets/reset-one", `{"user_path":"/team","period_seconds":7200}`)
	m := res.JSON(t)
	one := listOf(m["budgets"])
	if res.Status != 200 || len(one) != 1 || mapOf(one[0])["period_seconds"] != 7200.0 || mapOf(one[0])["user_path"] != "/team" {
		t.Fatalf("reset-one: %d %s", res.Status, res.Body)
	}
	if _, err := time.Parse(time.RFC3339Nano, fmt.Sprint(m["server_time"])); err != nil {
		t.Fatalf("reset-one server_time %v", m["server_time"])
	}
	l := list()
	if l["/team 7200"]["last_reset_at"] == "" || l["/team 86400"]["last_reset_at"] != "" || l["/other 86400"]["last_reset_at"] != "" {
		t.Fatalf("reset-one reset more than its budget: %v", l)
	}
	adminCall(t, g, "POST", "/admin/budgets/reset-one", `{"user_path":"/nobody","period":"daily"}`).
		ExpectErr(t, 404, "not_found_error", "budget_not_found")
	request(t, "POST", g.URL+"/admin/budgets/reset-one", `{"user_path":"/team","period":"daily"}`).
		ExpectErr(t, 401, "authentication_error", "missing_api_key")

	if res := adminCall(t, g, "DELETE", "/admin/budgets/%2Fteam/daily", ""); res.Status != 204 {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	if l := list(); len(l) != 2 || l["/team 86400"] != nil || l["/team 7200"] == nil || l["/other 86400"] == nil {
		t.Fatalf("after deleting /team daily: %v", l)
	}
}

// TestSpecEndpointsLiveLogsOfRealTraffic: a request to a model endpoint
// appears on the live stream as audit events (start, then complete) and
// a usage event, each with a rising sequence id; a client reconnecting
// with ?cursor= (or Last-Event-ID) set to the last id it saw receives
// exactly the events after it. The start event already names the caller's
// credential kind, the model asked for and whether the request streams.
func TestSpecEndpointsLiveLogsOfRealTraffic(t *testing.T) {
	clearEnv(t)
	t.Setenv("DASHBOARD_LIVE_LOGS_ENABLED", "true")
	g := startGateway(t, mockBlock(""))
	c := openLiveStream(t, g, "")
	if ev := c.next(t); ev.event != "connected" {
		t.Fatalf("first %+v", ev)
	}
	if res := chatAs(t, g, "/team/live"); res.Status != 200 {
		t.Fatalf("chat: %d %s", res.Status, res.Body)
	}
	var evs []liveEvent
	for len(evs) < 3 {
		if ev := c.next(t); ev.event != "heartbeat" {
			evs = append(evs, ev)
		}
	}
	c.close()
	var start, complete, usage map[string]any
	for i, ev := range evs {
		var m map[string]any
		if err := json.Unmarshal([]byte(ev.data), &m); err != nil {
			t.Fatalf("event %+v: %v", ev, err)
		}
		switch {
		case ev.event == "audit" && m["phase"] == "start":
			start = m
		case ev.event == "audit" && m["phase"] == "complete":
			complete = m
		case ev.event == "usage":
			usage = m
		}
		if i > 0 {
			prev, _ := strconv.Atoi(evs[i-1].id)
			if id, err := strconv.Atoi(ev.id); err != nil || id != prev+1 {
				t.Fatalf("event ids %q after %q", ev.id, evs[i-1].id)
			}
		}
	}
	if start == nil || complete == nil || usage == nil || start["id"] != complete["id"] || usage["request_id"] != complete["id"] ||
		complete["status_code"] != 200.0 || complete["user_path"] != "/team/live" || usage["user_path"] != "/team/live" {
		t.Fatalf("events %+v", evs)
	}

	// The start preview already names the caller and the model asked for.
	if start["requested_model"] != "mock-chat" || start["auth_method"] != "master_key" || start["stream"] != false {
		t.Fatalf("start preview %v", start)
	}

	// Reconnecting after the first event replays the other two, by either
	// cursor.
	for _, how := range []string{"cursor", "Last-Event-ID"} {
		var rc *liveConn
		if how == "cursor" {
			rc = openLiveStreamAt(t, g, "?cursor="+evs[0].id)
		} else {
			rc = openLiveStream(t, g, evs[0].id)
		}
		if ev := rc.next(t); ev.event != "connected" {
			t.Fatalf("%s: first %+v", how, ev)
		}
		for _, want := range evs[1:] {
			if ev := rc.next(t); ev.id != want.id || ev.event != want.event || ev.data != want.data {
				t.Fatalf("%s replay %+v, want %+v", how, ev, want)
			}
		}
		rc.close()
	}

	// A streamed request's start preview says it streams.
	sc := openLiveStreamAt(t, g, "?cursor="+evs[2].id)
	if ev := sc.next(t); ev.event != "connected" {
		t.Fatalf("first %+v", ev)
	}
	body := `{"model":"mock-chat","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	if res := request(t, "POST", g.URL+"/v1/chat/completions", body, bearer(masterKey)...); res.Status != 200 {
		t.Fatalf("stream: %d %s", res.Status, res.Body)
	}
	for _, phase := range []string{"start", "complete"} {
		ev := sc.next(t)
		var m map[string]any
		if ev.event != "audit" || json.Unmarshal([]byte(ev.data), &m) != nil || m["phase"] != phase ||
			m["stream"] != true || m["requested_model"] != "mock-chat" {
			t.Fatalf("streamed request's %s event %+v", phase, ev)
		}
	}
}

// TestSpecEndpointsInventoryBeforeRegistryReady: while the first model
// listings are still arriving, GET /admin/models answers 200 with an
// empty array; once they are in, it lists the models.
func TestSpecEndpointsInventoryBeforeRegistryReady(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"held-model","object":"model","created":1,"owned_by":"x"}]}`)
	}))
	t.Cleanup(up.Close)
	clearEnv(t)
	g := startGateway(t, "master_key "+masterKey+"\n"+providerBlock("held", "openai", "sk-up", up.URL+"/v1"))
	t.Cleanup(func() { once.Do(func() { close(release) }) })

	res := adminCall(t, g, "GET", "/admin/models", "")
	if res.Status != 200 || strings.TrimSpace(string(res.Body)) != "[]" {
		t.Fatalf("before the first listing: %d %s", res.Status, res.Body)
	}
	once.Do(func() { close(release) })
	poll(t, 5*time.Second, "held/held-model in the inventory after the listing", func() bool {
		res := adminCall(t, g, "GET", "/admin/models", "")
		return res.Status == 200 && strings.Contains(string(res.Body), `"selector":"held/held-model"`)
	})
}

// TestSpecEndpointsLiveLogsStaleCursor: a client whose cursor fell out of
// the replay buffer (more events were published since than it holds)
// receives reset, naming the latest sequence, and then the live events;
// a cursor within the buffer replays what follows it.
func TestSpecEndpointsLiveLogsStaleCursor(t *testing.T) {
	clearEnv(t)
	t.Setenv("DASHBOARD_LIVE_LOGS_ENABLED", "true")
	g := startGateway(t, mockBlock(""))
	hub := activeApp(t).LiveHub()
	if hub == nil {
		t.Fatal("no live hub")
	}
	const published = audit.DefaultLiveBuffer + 10
	for i := range published {
		hub.PublishAudit(&audit.AuditPreview{Phase: audit.PhaseStart, Method: "POST", Path: fmt.Sprintf("/v1/seq-%d", i+1)})
	}
	c := openLiveStreamAt(t, g, "?cursor=1")
	ev := c.next(t)
	if ev.event != "reset" || ev.id != strconv.Itoa(published) || !strings.Contains(ev.data, strconv.Itoa(published)) {
		t.Fatalf("stale cursor: %+v, want reset at %d", ev, published)
	}
	hub.PublishAudit(&audit.AuditPreview{Phase: audit.PhaseStart, Method: "POST", Path: "/v1/after-reset"})
	if ev := c.next(t); ev.event != "audit" || ev.id != strconv.Itoa(published+1) || !strings.Contains(ev.data, "/v1/after-reset") {
		t.Fatalf("after the reset: %+v", ev)
	}
	c.close()

	c = openLiveStreamAt(t, g, fmt.Sprintf("?cursor=%d", published-2))
	if ev := c.next(t); ev.event != "connected" {
		t.Fatalf("first %+v", ev)
	}
	for seq := published - 1; seq <= published+1; seq++ {
		if ev := c.next(t); ev.event != "audit" || ev.id != strconv.Itoa(seq) {
			t.Fatalf("replay: %+v, want event %d", ev, seq)
		}
	}
}

// openLiveStreamAt connects to /admin/live/logs with the master key and
// query (e.g. "?cursor=3"), and fails unless it answers a stream.
func openLiveStreamAt(t *testing.T, g *gateway, query string) *liveConn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	req, _ := http.NewRequestWithContext(ctx, "GET", g.URL+"/admin/live/logs"+query, nil)
	req.Header.Set("Authorization", "Bearer "+masterKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		cancel()
		_ = resp.Body.Close()
		t.Fatalf("live stream%s: %d %v", query, resp.StatusCode, resp.Header)
	}
	c := &liveConn{rd: bufio.NewReader(resp.Body), close: func() { cancel(); _ = resp.Body.Close() }}
	t.Cleanup(c.close)
	return c
}

// TestSpecEndpointsVersioning: the API description is version 1.0; every
// method of the admin API answers under the legacy /admin/api/v1/ alias
// with Deprecation: true, the Sunset date and a Link to the same path
// under /admin/: served (writes included) while the alias is on, 410 Gone
// endpoint_sunset once it is retired, whoever asks.
func TestSpecEndpointsVersioning(t *testing.T) {
	clearEnv(t)
	legacyHeaders := func(t *testing.T, what string, res response, successor string) {
		t.Helper()
		if res.Header.Get("Deprecation") != "true" || res.Header.Get("Sunset") != "Sun, 09 Aug 2026 00:00:00 GMT" ||
			res.Header.Get("Link") != "<"+successor+`>; rel="successor-version"` {
			t.Fatalf("%s: legacy headers %v", what, res.Header)
		}
	}
	calls := []struct{ method, path, body string }{
		{"PUT", "rate-limits", `{"user_path":"/legacy","period":"hour","max_requests":5}`},
		{"POST", "rate-limits/reset-one", `{"user_path":"/legacy","period":"hour"}`},
		{"GET", "rate-limits", ""},
		{"DELETE", "rate-limits", `{"user_path":"/legacy","period":"hour"}`},
		{"PUT", "budgets/%2Flegacy/daily", `{"amount":1}`},
		{"DELETE", "budgets/%2Flegacy/daily", ""},
		{"GET", "models", ""},
	}

	t.Run("on", func(t *testing.T) {
		g := startGateway(t, mockBlock("admin {\n legacy_alias on\n}"))
		doc := adminCall(t, g, "GET", "/admin/openapi.json", "").JSON(t)
		if info := mapOf(doc["info"]); info["version"] != "1.0" {
			t.Fatalf("API description version %v, want 1.0", info["version"])
		}
		for _, c := range calls {
			what := c.method + " /admin/api/v1/" + c.path
			res := adminCall(t, g, c.method, "/admin/api/v1/"+c.path, c.body)
			if res.Status/100 != 2 {
				t.Fatalf("%s: %d %s", what, res.Status, res.Body)
			}
			legacyHeaders(t, what, res, "/admin/"+c.path)
			if c.method == "PUT" && c.path == "rate-limits" {
				rateRule(t, g, "user_path", "/legacy", "hour") // written through the alias
			}
		}
	})

	t.Run("auto", func(t *testing.T) {
		g := startGateway(t, mockBlock(""))
		if time.Now().Before(admin.LegacySunset) {
			t.Skip("the alias is served until its sunset; TestAccessLegacyAlias checks that side")
		}
		for _, c := range calls {
			what := c.method + " /admin/api/v1/" + c.path
			for _, headers := range [][]string{bearer(masterKey), nil} {
				res := request(t, c.method, g.URL+"/admin/api/v1/"+c.path, c.body, headers...)
				res.ExpectErr(t, 410, "invalid_request_error", "endpoint_sunset")
				legacyHeaders(t, what, res, "/admin/"+c.path)
			}
		}
		// Nothing was written through the retired alias.
		for _, v := range listOf(adminCall(t, g, "GET", "/admin/rate-limits", "").JSON(t)["rules"]) {
			if mapOf(v)["subject"] == "/legacy" {
				t.Fatalf("a retired alias wrote %v", v)
			}
		}
	})
}

// TestSpecEndpointsSessionDetection: a request's session is the first of
// the X-Session-Id header, the x-claude-code-session-id header, the
// body's metadata.session_id, metadata.user_id, prompt_cache_key, the
// session of the response previous_response_id names, else a fingerprint
// of user path, system prompt and first user message, which the later
// turns of one conversation share and another user path does not; the
// session usage groups the requests so.
func TestSpecEndpointsSessionDetection(t *testing.T) {
	g := startMockGateway(t)
	session := func(path, body string, headers ...string) (string, response) {
		t.Helper()
		res := request(t, "POST", g.URL+path, body, append(bearer(masterKey), headers...)...)
		m := adminCall(t, g, "GET", "/admin/audit/log?limit=1", "").JSON(t)
		e := mapOf(listOf(m["entries"])[0])
		return fmt.Sprint(e["session_id"]), res
	}
	all := `{"model":"mock-chat","messages":[{"role":"user","content":"a"}],"metadata":{"session_id":"meta-session","user_id":"meta-user"},"prompt_cache_key":"cache-key"}`
	for _, c := range []struct {
		name, body string
		headers    []string
		want       string
	}{
		{"X-Session-Id first", all, []string{"X-Session-Id", "header-session", "x-claude-code-session-id", "claude-session"}, "header-session"},
		{"then x-claude-code-session-id", all, []string{"x-claude-code-session-id", "claude-session"}, "claude-session"},
		{"then metadata.session_id", all, nil, "meta-session"},
		{"then metadata.user_id", `{"model":"mock-chat","messages":[{"role":"user","content":"a"}],"metadata":{"user_id":"meta-user"},"prompt_cache_key":"cache-key"}`, nil, "meta-user"},
		{"then prompt_cache_key", `{"model":"mock-chat","messages":[{"role":"user","content":"a"}],"prompt_cache_key":"cache-key"}`, nil, "cache-key"},
	} {
		if got, res := session("/v1/chat/completions", c.body, c.headers...); got != c.want || res.Status != 200 {
			t.Errorf("%s: session %q (%d), want %q", c.name, got, res.Status, c.want)
		}
	}
	if got, _ := session("/v1/messages", `{"model":"mock-chat","max_tokens":10,"messages":[{"role":"user","content":"a"}],"metadata":{"user_id":"anthropic-user"}}`); got != "anthropic-user" {
		t.Errorf("Anthropic metadata.user_id: session %q", got)
	}

	// previous_response_id: the session of the response it names.
	got, res := session("/v1/responses", `{"model":"mock-chat","input":"first","prompt_cache_key":"responses-session"}`)
	if got != "responses-session" || res.Status != 200 {
		t.Fatalf("first response: session %q (%d) %s", got, res.Status, res.Body)
	}
	id := fmt.Sprint(res.JSON(t)["id"])
	if got, _ := session("/v1/responses", `{"model":"mock-chat","input":"second","previous_response_id":"`+id+`"}`); got != "responses-session" {
		t.Errorf("previous_response_id %s: session %q, want responses-session", id, got)
	}

	// The fingerprint: one conversation's turns share it, per user path.
	turn1 := `{"model":"mock-chat","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"plan a trip"}]}`
	turn2 := `{"model":"mock-chat","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"plan a trip"},{"role":"assistant","content":"where?"},{"role":"user","content":"Rome"}]}`
	fp1, _ := session("/v1/chat/completions", turn1, userPathHeader, "/fp/a")
	fp2, _ := session("/v1/chat/completions", turn2, userPathHeader, "/fp/a")
	other, _ := session("/v1/chat/completions", turn1, userPathHeader, "/fp/b")
	if fp1 == "" || fp1 != fp2 || other == fp1 {
		t.Fatalf("fingerprints: turn 1 %q, turn 2 %q, another path %q", fp1, fp2, other)
	}
	rows := map[string]float64{}
	for _, v := range listOf(adminCall(t, g, "GET", "/admin/usage/sessions?limit=200", "").JSON(t)["sessions"]) {
		r := mapOf(v)
		rows[fmt.Sprint(r["user_path"], " ", r["session_id"])] = r["requests"].(float64)
	}
	if rows["/fp/a "+fp1] != 2 || rows["/fp/b "+other] != 1 {
		t.Fatalf("session usage %v", rows)
	}
}
