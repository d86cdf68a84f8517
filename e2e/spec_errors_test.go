package e2e

// Known error conditions and size limits of the admin API, checked through
// the public HTTP API.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestSpecAdminModelsLimitsAndErrors: GET /admin/models answers at most
// 10000 rows whatever the providers list; a bad category is 400, no
// credential 401, and a managed key without dashboard access 403
// dashboard_access_denied.
func TestSpecAdminModelsLimitsAndErrors(t *testing.T) {
	const listed = 10050
	var listing strings.Builder
	listing.WriteString(`{"object":"list","data":[`)
	for i := range listed {
		if i > 0 {
			listing.WriteByte(',')
		}
		fmt.Fprintf(&listing, `{"id":"m-%05d","object":"model","created":1,"owned_by":"x"}`, i)
	}
	listing.WriteString(`]}`)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(listing.String()))
	}))
	t.Cleanup(up.Close)
	clearEnv(t)
	g := startGateway(t, "master_key "+masterKey+"\n"+providerBlock("big", "openai", "sk-up", up.URL+"/v1"))

	var rows []json.RawMessage
	poll(t, 15*time.Second, "/admin/models lists the models", func() bool {
		res := adminCall(t, g, "GET", "/admin/models", "")
		if res.Status != 200 {
			t.Fatalf("/admin/models: %d %s", res.Status, res.Body)
		}
		if err := json.Unmarshal(res.Body, &rows); err != nil {
			t.Fatalf("/admin/models: %v %.200s", err, res.Body)
		}
		return len(rows) > 0
	})
	if len(rows) != 10000 {
		t.Fatalf("/admin/models answered %d rows of %d listed, want 10000", len(rows), listed)
	}

	adminCall(t, g, "GET", "/admin/models?category=bogus", "").ExpectErr(t, 400, "invalid_request_error", "invalid_value")
	if res := request(t, "GET", g.URL+"/admin/models", ""); res.Status != 401 || res.Err(t).Type != "authentication_error" {
		t.Fatalf("without a credential: %d %s", res.Status, res.Body)
	}
	plain := createKey(t, g, `{"name":"plain"}`)
	request(t, "GET", g.URL+"/admin/models", "", bearer(plain.Secret)...).
		ExpectErr(t, 403, "authentication_error", "dashboard_access_denied")
}

// TestSpecAuditConversationAndStatsLimits: a conversation answers 40
// entries by default and at most 200 whatever limit asks; stats use hourly
// buckets for windows up to 3 days and daily buckets beyond.
func TestSpecAuditConversationAndStatsLimits(t *testing.T) {
	g := startMockGateway(t)
	now := time.Now().UTC()
	const seeded = 205
	var last string
	for i := range seeded {
		e := seedRecord(t, now.Add(time.Duration(i-seeded)*time.Second), 200, "/team/conv", "sess-long", 0)
		last = e.ID.String()
	}
	for _, c := range []struct {
		query string
		want  int
	}{
		{"", 40},
		{"&limit=41", 41},
		{"&limit=200", 200},
		{"&limit=1000", 200},
	} {
		res := adminCall(t, g, "GET", "/admin/audit/conversation?log_id="+last+c.query, "")
		if res.Status != 200 {
			t.Fatalf("conversation%s: %d %s", c.query, res.Status, res.Body)
		}
		m := res.JSON(t)
		ents := m["entries"].([]any)
		if len(ents) != c.want || ents[len(ents)-1].(map[string]any)["id"] != last || m["truncated"] != true {
			t.Fatalf("conversation%s: %d entries (truncated %v), want %d ending with the anchor", c.query, len(ents), m["truncated"], c.want)
		}
	}

	day := func(d time.Time) string { return d.Format("2006-01-02") }
	for _, c := range []struct {
		days     int
		interval string
	}{
		{1, "hour"}, {3, "hour"}, {4, "day"},
	} {
		q := "/admin/audit/stats?start_date=" + day(now.AddDate(0, 0, -(c.days-1))) + "&end_date=" + day(now)
		m := adminCall(t, g, "GET", q, "").JSON(t)
		if m["interval"] != c.interval {
			t.Fatalf("%d-day window: interval %v, want %s", c.days, m["interval"], c.interval)
		}
	}
}

// TestSpecVirtualModelSlowdownRange: slowdown is 0 (off) or between 0.1
// and 10; any other value is refused naming the field.
func TestSpecVirtualModelSlowdownRange(t *testing.T) {
	g := startMockGateway(t)
	row := func(slowdown string) string {
		return `{"source":"slow","targets":[{"provider":"demo","model":"mock-chat"}],"slowdown":` + slowdown + `}`
	}
	for _, v := range []string{"0", "0.1", "1", "10"} {
		if res := adminCall(t, g, "PUT", "/admin/virtual-models", row(v)); res.Status != 200 {
			t.Errorf("slowdown %s: %d %s", v, res.Status, res.Body)
		}
	}
	for _, v := range []string{"0.09", "-1", "10.01", "1e9"} {
		e := adminCall(t, g, "PUT", "/admin/virtual-models", row(v)).ExpectErr(t, 400, "invalid_request_error", "invalid_value")
		if orNull(e.Param) != "slowdown" {
			t.Errorf("slowdown %s: param %s", v, orNull(e.Param))
		}
	}
}
