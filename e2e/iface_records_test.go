package e2e

// The audit log, usage records and budgets as a client of the public HTTP
// API sees them: what each setting changes in an entry, which headers are
// redacted, how ids sort and reads filter, and how budget periods are
// anchored and enforced.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// auditEntryOf returns the one audit entry (bodies and headers included)
// of the session, read through the admin API.
func auditEntryOf(t *testing.T, g *gateway, session string) map[string]any {
	t.Helper()
	res := adminCall(t, g, "GET", "/admin/audit/log?session_id="+session, "")
	if res.Status != 200 {
		t.Fatalf("log of %s: %d %s", session, res.Status, res.Body)
	}
	ents, _ := res.JSON(t)["entries"].([]any)
	if len(ents) != 1 {
		t.Fatalf("session %s has %d entries, want 1: %s", session, len(ents), res.Body)
	}
	id, _ := ents[0].(map[string]any)["id"].(string)
	one := adminCall(t, g, "GET", "/admin/audit/log/"+id, "")
	if one.Status != 200 {
		t.Fatalf("entry %s: %d %s", id, one.Status, one.Body)
	}
	return one.JSON(t)
}

// ifaceChat sends a chat request to the mock provider in session.
func ifaceChat(t *testing.T, g *gateway, session, content string, headers ...string) response {
	t.Helper()
	body := fmt.Sprintf(`{"model":"mock-chat","messages":[{"role":"user","content":%q}]}`, content)
	h := append(bearer(masterKey), "X-Session-Id", session)
	return request(t, "POST", g.URL+"/v1/chat/completions", body, append(h, headers...)...)
}

// TestIfaceAuditBodySettings: a body over logging.max_body_bytes is
// omitted with *_too_big_to_handle true, a smaller one stored as parsed
// JSON, a body that is not JSON as a string; with LOGGING_LOG_BODIES and
// LOGGING_LOG_HEADERS off the entry holds neither bodies nor headers, yet
// the request is still recorded.
func TestIfaceAuditBodySettings(t *testing.T) {
	clearEnv(t)
	cfg := writeFile(t, "logging.yaml", "logging:\n  max_body_bytes: 600\n")
	g := startGateway(t, mockBlock("config_file "+cfg+"\n"))

	if res := ifaceChat(t, g, "small", "hi"); res.Status != 200 {
		t.Fatalf("small: %d %s", res.Status, res.Body)
	}
	d := auditEntryOf(t, g, "small")["data"].(map[string]any)
	if jsonAt(d["request_body"], "messages.0.content") != "hi" || jsonAt(d["response_body"], "object") != "chat.completion" ||
		d["request_body_too_big_to_handle"] != false || d["response_body_too_big_to_handle"] != false {
		t.Errorf("small bodies: %v / %v", d["request_body"], d["response_body"])
	}

	if res := ifaceChat(t, g, "big", strings.Repeat("x", 700)); res.Status != 200 {
		t.Fatalf("big: %d %s", res.Status, res.Body)
	}
	d = auditEntryOf(t, g, "big")["data"].(map[string]any)
	if d["request_body"] != nil || d["request_body_too_big_to_handle"] != true ||
		d["response_body"] != nil || d["response_body_too_big_to_handle"] != true {
		t.Errorf("big bodies: %v %v / %v %v", d["request_body"], d["request_body_too_big_to_handle"],
			d["response_body"], d["response_body_too_big_to_handle"])
	}

	res := request(t, "POST", g.URL+"/v1/chat/completions", "not json at all",
		append(bearer(masterKey), "X-Session-Id", "notjson", "Content-Type", "application/json")...)
	if res.Status != 400 {
		t.Fatalf("not JSON: %d %s", res.Status, res.Body)
	}
	if d = auditEntryOf(t, g, "notjson")["data"].(map[string]any); d["request_body"] != "not json at all" {
		t.Errorf("a body that is not JSON is stored as %#v, want the string", d["request_body"])
	}

	t.Setenv("LOGGING_LOG_BODIES", "false")
	t.Setenv("LOGGING_LOG_HEADERS", "false")
	g = restartGateway(t, mockBlock(""))
	if res := ifaceChat(t, g, "quiet", "hi"); res.Status != 200 {
		t.Fatalf("quiet: %d %s", res.Status, res.Body)
	}
	e := auditEntryOf(t, g, "quiet")
	d = e["data"].(map[string]any)
	if e["status_code"] != 200.0 || d["request_body"] != nil || d["response_body"] != nil {
		t.Errorf("bodies off: status %v bodies %v / %v", e["status_code"], d["request_body"], d["response_body"])
	}
	if h, _ := d["request_headers"].(map[string]any); len(h) != 0 {
		t.Errorf("headers off: request headers %v", h)
	}
	if h, _ := d["response_headers"].(map[string]any); len(h) != 0 {
		t.Errorf("headers off: response headers %v", h)
	}
}

// TestIfaceAuditRedaction: authorization, proxy-authorization, x-api-key,
// api-key, x-goog-api-key, cookie and set-cookie, and every header whose
// value holds a configured provider key, are stored as [REDACTED], in the
// request's headers and in the answer's.
func TestIfaceAuditRedaction(t *testing.T) {
	clearEnv(t)
	const provKey = "sk-prov-redact-SECRET-4242"
	up := newRecordingUpstream(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Set-Cookie", "session=abc")
		w.Header().Set("X-Echo-Key", "key="+provKey)
		_, _ = io.WriteString(w, chatAnswer)
	})
	t.Setenv("ENABLED_PASSTHROUGH_PROVIDERS", "oai")
	g := startGateway(t, "master_key "+masterKey+"\n"+providerBlock("oai", "openai", provKey, up.URL+"/v1"))
	res := request(t, "POST", g.URL+"/p/oai/v1/chat/completions", `{"model":"gpt-4o-mini","messages":[]}`,
		"Authorization", "Bearer "+masterKey, "Proxy-Authorization", "Basic dXNlcjpwYXNz", "Api-Key", "k-1",
		"X-Goog-Api-Key", "k-2", "Cookie", "a=b", "X-Leak", "prefix "+provKey+" suffix", "X-Plain", "kept",
		"X-Session-Id", "redact", "Content-Type", "application/json")
	if res.Status != 200 {
		t.Fatalf("passthrough: %d %s", res.Status, res.Body)
	}
	d := auditEntryOf(t, g, "redact")["data"].(map[string]any)
	reqH, _ := d["request_headers"].(map[string]any)
	for _, h := range []string{"authorization", "proxy-authorization", "api-key", "x-goog-api-key", "cookie", "x-leak"} {
		if reqH[h] != "[REDACTED]" {
			t.Errorf("request header %s stored as %v", h, reqH[h])
		}
	}
	if reqH["x-plain"] != "kept" {
		t.Errorf("x-plain stored as %v", reqH["x-plain"])
	}
	respH, _ := d["response_headers"].(map[string]any)
	for _, h := range []string{"set-cookie", "x-echo-key"} {
		if respH[h] != "[REDACTED]" {
			t.Errorf("response header %s stored as %v", h, respH[h])
		}
	}
	b, _ := json.Marshal(d)
	if strings.Contains(string(b), provKey) || strings.Contains(string(b), masterKey) {
		t.Error("a stored entry holds a secret")
	}
}

// TestIfaceAuditIDsAndReads: entry ids are 26 characters and sort by
// time; /v1/models and /v1/usage leave no entry; ?session_id= filters the
// log; time windows take days from 1 to 366 or start_date/end_date, the
// explicit dates winning, and answer 400 for an inverted or unparseable
// range.
func TestIfaceAuditIDsAndReads(t *testing.T) {
	clearEnv(t)
	g := startMockGateway(t)
	for i := range 3 {
		if res := ifaceChat(t, g, "ids", fmt.Sprint("n", i)); res.Status != 200 {
			t.Fatalf("chat %d: %d %s", i, res.Status, res.Body)
		}
	}
	request(t, "GET", g.URL+"/v1/models", "", append(bearer(masterKey), "X-Session-Id", "ids")...)
	request(t, "GET", g.URL+"/v1/usage", "", append(bearer(masterKey), "X-Session-Id", "ids")...)
	if res := ifaceChat(t, g, "other", "x"); res.Status != 200 {
		t.Fatalf("other: %d", res.Status)
	}
	res := adminCall(t, g, "GET", "/admin/audit/log?session_id=ids", "")
	m := res.JSON(t)
	ents, _ := m["entries"].([]any)
	if m["total"] != 3.0 || len(ents) != 3 {
		t.Fatalf("session ids: %s", res.Body)
	}
	// Newest first: ids descend as their timestamps do.
	var prevID, prevTS string
	for i, e := range ents {
		em := e.(map[string]any)
		id, ts := em["id"].(string), em["timestamp"].(string)
		if len(id) != 26 || em["path"] != "/v1/chat/completions" {
			t.Errorf("entry %d: id %q path %v", i, id, em["path"])
		}
		if i > 0 && (id >= prevID || ts > prevTS) {
			t.Errorf("entry %d: id %s after %s, timestamps %s after %s: ids do not sort by time", i, id, prevID, ts, prevTS)
		}
		prevID, prevTS = id, ts
	}
	all := adminCall(t, g, "GET", "/admin/audit/log?limit=100", "").JSON(t)
	if all["total"] != 4.0 {
		t.Errorf("%v entries, want the 4 chat requests only", all["total"])
	}
	for _, e := range all["entries"].([]any) {
		if p := e.(map[string]any)["path"]; p != "/v1/chat/completions" {
			t.Errorf("%v was audited", p)
		}
	}

	// An entry a week old: seen through explicit dates even with days=1.
	old := time.Now().UTC().AddDate(0, 0, -7)
	seedRecord(t, old, 200, "/old", "sess-old", 1)
	day := old.Format("2006-01-02")
	if m := adminCall(t, g, "GET", "/admin/audit/log?user_path=/old&days=1&start_date="+day+"&end_date="+day, "").JSON(t); m["total"] != 1.0 {
		t.Errorf("explicit dates do not win over days: %v", m)
	}
	if m := adminCall(t, g, "GET", "/admin/usage/summary?days=1&start_date="+day+"&end_date="+day, "").JSON(t); m["total_requests"] != 1.0 {
		t.Errorf("summary: explicit dates do not win over days: %v", m)
	}
	if m := adminCall(t, g, "GET", "/admin/usage/summary?days=366", "").JSON(t); m["total_requests"] != 5.0 {
		t.Errorf("summary over 366 days: %v", m)
	}
	for _, p := range []string{"/admin/usage/summary", "/admin/usage/daily", "/admin/audit/stats", "/admin/audit/log"} {
		for _, q := range []string{"days=0", "days=367", "days=x", "start_date=2026-13-01", "end_date=yesterday",
			"start_date=2026-03-02&end_date=2026-03-01"} {
			if res := adminCall(t, g, "GET", p+"?"+q, ""); res.Status != 400 || res.Err(t).Type != "invalid_request_error" {
				t.Errorf("%s?%s: %d %s", p, q, res.Status, res.Body)
			}
		}
	}
}

// TestIfaceUsageRecordOnLiveLog: the usage record of a completed request
// carries its audit entry's id as request_id, the session, the provider's
// name and type, the model and endpoint, token counts and a null cost for
// a model without a price.
func TestIfaceUsageRecordOnLiveLog(t *testing.T) {
	clearEnv(t)
	t.Setenv("DASHBOARD_LIVE_LOGS_ENABLED", "true")
	g := startGateway(t, mockBlock(""))
	req, _ := http.NewRequest("GET", g.URL+"/admin/live/logs", nil)
	req.Header.Set("Authorization", "Bearer "+masterKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if res := ifaceChat(t, g, "live-usage", "hello", userPathHeader, "/team/live"); res.Status != 200 {
		t.Fatalf("chat: %d %s", res.Status, res.Body)
	}
	entry := auditEntryOf(t, g, "live-usage")
	br := bufio.NewReader(resp.Body)
	var event string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("live log ended before the usage event: %v", err)
		}
		line = strings.TrimRight(line, "\n")
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			event = v
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || event != "usage" {
			continue
		}
		var u map[string]any
		if err := json.Unmarshal([]byte(data), &u); err != nil {
			t.Fatal(err)
		}
		if u["session_id"] != "live-usage" {
			continue
		}
		want := map[string]any{"request_id": entry["id"], "user_path": "/team/live", "provider_name": "demo",
			"provider_type": "mock", "model": "mock-chat", "endpoint": "/v1/chat/completions", "cache_type": "",
			"total_cost": nil, "input_cost": nil, "output_cost": nil}
		for k, v := range want {
			if got, ok := u[k]; !ok || got != v {
				t.Errorf("usage %s = %#v, want %#v", k, got, v)
			}
		}
		for _, k := range []string{"id", "timestamp", "input_tokens", "output_tokens", "total_tokens", "cached_input_tokens",
			"cache_write_input_tokens", "reasoning_tokens"} {
			if _, ok := u[k]; !ok {
				t.Errorf("usage record lacks %s: %s", k, data)
			}
		}
		if u["id"] == entry["id"] || u["total_tokens"] != u["input_tokens"].(float64)+u["output_tokens"].(float64) {
			t.Errorf("usage record %s", data)
		}
		return
	}
}

// budgetRow returns the budget (userPath, period) of GET /admin/budgets.
func budgetRow(t *testing.T, g *gateway, userPath string, periodSeconds float64) map[string]any {
	t.Helper()
	res := adminCall(t, g, "GET", "/admin/budgets", "")
	for _, b := range res.JSON(t)["budgets"].([]any) {
		m := b.(map[string]any)
		if m["user_path"] == userPath && m["period_seconds"] == periodSeconds {
			return m
		}
	}
	t.Fatalf("no budget %s/%v in %s", userPath, periodSeconds, res.Body)
	return nil
}

// TestIfaceBudgetPeriodAnchors: daily periods start at daily_reset_hour,
// weekly ones on weekly_reset_weekday, monthly ones on monthly_reset_day
// clamped to the month's last day, custom ones on epoch-aligned windows
// of their seconds; hourly on the hour.
func TestIfaceBudgetPeriodAnchors(t *testing.T) {
	clearEnv(t)
	g := startMockGateway(t)
	if res := adminCall(t, g, "PUT", "/admin/budgets/settings",
		`{"daily_reset_hour":6,"weekly_reset_weekday":3,"monthly_reset_day":31}`); res.Status != 200 {
		t.Fatalf("settings: %d %s", res.Status, res.Body)
	}
	for _, p := range []string{"hourly", "daily", "weekly", "monthly", "7200"} {
		if res := adminCall(t, g, "PUT", "/admin/budgets/%2Fanchors/"+p, `{"amount":1}`); res.Status != 200 {
			t.Fatalf("put %s: %d %s", p, res.Status, res.Body)
		}
	}
	now := time.Now().UTC()
	day := func(y int, m time.Month, d, h int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, time.UTC) }
	lastDay := func(y int, m time.Month) int { return day(y, m+1, 0, 0).Day() }
	monthStart := func(y int, m time.Month) time.Time { return day(y, m, min(31, lastDay(y, m)), 6) }
	hour := now.Truncate(time.Hour)
	dstart := day(now.Year(), now.Month(), now.Day(), 6)
	if now.Before(dstart) {
		dstart = dstart.AddDate(0, 0, -1)
	}
	wstart := day(now.Year(), now.Month(), now.Day()-(int(now.Weekday())-3+7)%7, 6)
	if now.Before(wstart) {
		wstart = wstart.AddDate(0, 0, -7)
	}
	mstart := monthStart(now.Year(), now.Month())
	if now.Before(mstart) {
		mstart = monthStart(now.Year(), now.Month()-1)
	}
	mend := monthStart(mstart.Year(), mstart.Month()+1)
	custom := time.Unix(now.Unix()/7200*7200, 0).UTC()
	for _, c := range []struct {
		seconds    float64
		start, end time.Time
	}{
		{3600, hour, hour.Add(time.Hour)},
		{86400, dstart, dstart.AddDate(0, 0, 1)},
		{604800, wstart, wstart.AddDate(0, 0, 7)},
		{-1, mstart, mend},
		{7200, custom, custom.Add(2 * time.Hour)},
	} {
		var row map[string]any
		if c.seconds < 0 {
			res := adminCall(t, g, "GET", "/admin/budgets", "")
			for _, b := range res.JSON(t)["budgets"].([]any) {
				if m := b.(map[string]any); m["user_path"] == "/anchors" && m["period"] == "monthly" {
					row = m
				}
			}
		} else {
			row = budgetRow(t, g, "/anchors", c.seconds)
		}
		if row == nil {
			t.Fatal("no monthly budget listed")
		}
		if fmt.Sprint(row["period_start"]) != c.start.Format(time.RFC3339) || fmt.Sprint(row["period_end"]) != c.end.Format(time.RFC3339) {
			t.Errorf("%v: period %v – %v, want %s – %s", c.seconds, row["period_start"], row["period_end"],
				c.start.Format(time.RFC3339), c.end.Format(time.RFC3339))
		}
	}
}

// TestIfaceBudgetRootAndHourly: a budget on / covers every path; the
// YAML forms {user_path, daily, monthly} and {user_path, period, amount}
// both load; an hourly budget refuses with Retry-After the seconds to the
// end of the hour; reset-one sets last_reset_at and spend counts only what
// follows it.
func TestIfaceBudgetRootAndHourly(t *testing.T) {
	clearEnv(t)
	c := replayChatCost(t)
	u := newReplay(t, "openai")
	cfg := writeFile(t, "budgets.yaml", fmt.Sprintf(`budgets:
  user_paths:
    - {user_path: /, daily: %g, monthly: %g}
    - {user_path: /hourly, period: hourly, amount: %g}
`, 100*c, 200*c, 0.8*c)) // /hourly fits one reservation
	g := startGateway(t, "master_key "+masterKey+"\nstorage "+filepath.Join(t.TempDir(), "b.db")+"\nconfig_file "+cfg+"\n"+
		providerBlock("openai", "openai", "sk-openai-prov-SECRET-1111", u.BaseURL()))
	for _, p := range []string{"/", "/a/b", "/c"} {
		if res := budgetChatAs(t, g, p, budgetChat); res.Status != 200 {
			t.Fatalf("%s: %d %s", p, res.Status, res.Body)
		}
	}
	for _, s := range []float64{86400, 2592000} {
		if row := budgetRow(t, g, "/", s); math.Abs(row["spent"].(float64)-3*c) > 1e-9 || row["source"] != "config" {
			t.Errorf("/ %v: spent %v, want %v (every path): %v", s, row["spent"], 3*c, row)
		}
	}
	if res := budgetChatAs(t, g, "/hourly/x", budgetChat); res.Status != 200 {
		t.Fatalf("first hourly: %d %s", res.Status, res.Body)
	}
	res := budgetChatAs(t, g, "/hourly/x", budgetChat)
	res.ExpectErr(t, 429, "rate_limit_error", "budget_exceeded")
	now := time.Now()
	want := now.Truncate(time.Hour).Add(time.Hour).Sub(now).Seconds()
	if ra, err := strconv.ParseFloat(res.Header.Get("Retry-After"), 64); err != nil || ra < want-5 || ra > want+5 {
		t.Errorf("Retry-After %q, want about %.0f", res.Header.Get("Retry-After"), want)
	}

	if res := adminCall(t, g, "POST", "/admin/budgets/reset-one", `{"user_path":"/hourly","period":"hourly"}`); res.Status != 200 {
		t.Fatalf("reset-one: %d %s", res.Status, res.Body)
	}
	row := budgetRow(t, g, "/hourly", 3600)
	if row["spent"] != 0.0 || row["last_reset_at"] == "" || row["last_reset_at"] == nil {
		t.Errorf("after reset-one: %v", row)
	}
	if res := budgetChatAs(t, g, "/hourly", budgetChat); res.Status != 200 {
		t.Fatalf("after reset-one: %d %s", res.Status, res.Body)
	}
	if row := budgetRow(t, g, "/hourly", 3600); math.Abs(row["spent"].(float64)-c) > 1e-9 {
		t.Errorf("spent after reset %v, want %v", row["spent"], c)
	}
}
