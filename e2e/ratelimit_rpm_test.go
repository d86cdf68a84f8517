package e2e

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
)

// TestRLRequestsPerMinute: SET_RATE_LIMIT_TEAM="rpm=3" admits three
// requests under /team and refuses the fourth with 429, Retry-After, the
// x-ratelimit-* headers and a rate_limit_error body, while /team-alpha is
// unaffected and polling GET /v1/usage consumes nothing.
func TestRLRequestsPerMinute(t *testing.T) {
	clearEnv(t)
	t.Setenv("SET_RATE_LIMIT_TEAM", "rpm=3")
	g := startGateway(t, mockBlock(""))

	for i := 1; i <= 3; i++ {
		res := chatAs(t, g, "/team/a")
		if res.Status != 200 {
			t.Fatalf("request %d: %d %s", i, res.Status, res.Body)
		}
		h := res.Header
		if h.Get("X-Ratelimit-Limit-Requests") != "3" || h.Get("X-Ratelimit-Remaining-Requests") != strconv.Itoa(3-i) ||
			h.Get("X-Ratelimit-Reset-Requests") == "" || h.Get("Retry-After") != "" {
			t.Fatalf("request %d headers: %v", i, h)
		}
		// Polling the caller's own usage is free.
		u := request(t, "GET", g.URL+"/v1/usage", "", append(bearer(masterKey), userPathHeader, "/team/a")...)
		rl := u.JSON(t)["rate_limits"].([]any)
		if u.Status != 200 || len(rl) != 1 {
			t.Fatalf("usage: %d %s", u.Status, u.Body)
		}
		r := rl[0].(map[string]any)
		if r["subject"] != "/team" || r["period"] != "minute" || r["max_requests"] != 3.0 || r["requests_used"] != float64(i) {
			t.Fatalf("usage after %d requests: %v", i, r)
		}
		// So is listing the models.
		if m := request(t, "GET", g.URL+"/v1/models", "", append(bearer(masterKey), userPathHeader, "/team/a")...); m.Status != 200 {
			t.Fatalf("models: %d", m.Status)
		}
	}

	res := chatAs(t, g, "/team/a")
	e := res.ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	retry, err := strconv.Atoi(res.Header.Get("Retry-After"))
	if err != nil || retry < 1 || retry > 120 {
		t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
	}
	if res.Header.Get("X-Ratelimit-Limit-Requests") != "3" || res.Header.Get("X-Ratelimit-Remaining-Requests") != "0" ||
		res.Header.Get("X-Ratelimit-Reset-Requests") == "" {
		t.Fatalf("429 headers %v", res.Header)
	}
	if e.Message != `rate limit exceeded: user_path rule on "/team" allows 3 requests per minute` {
		t.Fatalf("message %q", e.Message)
	}
	t.Logf("fourth request: %d, Retry-After %ds, body %s", res.Status, retry, res.Body)

	// The counter is shared by the whole subtree, and the path itself.
	chatAs(t, g, "/team/b/deep").ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	chatAs(t, g, "/team").ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	// Anthropic clients get their envelope.
	msg := request(t, "POST", g.URL+"/v1/messages", `{"model":"mock-chat","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`,
		append(bearer(masterKey), userPathHeader, "/team/c")...)
	var env struct {
		Type  string `json:"type"`
		Error struct{ Type, Message string }
	}
	if msg.Status != 429 || msg.Header.Get("Retry-After") == "" || json.Unmarshal(msg.Body, &env) != nil ||
		env.Type != "error" || env.Error.Type != "rate_limit_error" {
		t.Fatalf("messages: %d %v %s", msg.Status, msg.Header, msg.Body)
	}

	// A sibling path with a shared prefix is unaffected, and unlimited.
	for i := 0; i < 5; i++ {
		res := chatAs(t, g, "/team-alpha")
		if res.Status != 200 || res.Header.Get("X-Ratelimit-Limit-Requests") != "" {
			t.Fatalf("/team-alpha %d: %d %v", i, res.Status, res.Header)
		}
	}

	// The admin list shows the config rule, read-only, with its usage.
	r := rateRule(t, g, "user_path", "/team", "minute")
	if r["source"] != "config" || r["read_only"] != true || r["requests_used"] != 3.0 || r["max_requests"] != 3.0 {
		t.Fatalf("admin rule %v", r)
	}
	adminCall(t, g, "PUT", "/admin/rate-limits", `{"user_path":"/team","period":"minute","max_requests":100}`).
		ExpectErr(t, 409, "invalid_request_error", "rate_limit_rule_read_only")
	// Resetting its counters lets /team in again.
	if res := adminCall(t, g, "POST", "/admin/rate-limits/reset-one", `{"scope":"user_path","subject":"/team","period":"minute"}`); res.Status != 200 {
		t.Fatalf("reset-one: %d %s", res.Status, res.Body)
	}
	if res := chatAs(t, g, "/team/a"); res.Status != 200 || res.Header.Get("X-Ratelimit-Remaining-Requests") != "2" {
		t.Fatalf("after reset-one: %d %v", res.Status, res.Header)
	}
}

// TestRLManagedRulesAndTemplates: rules written through the admin API
// apply at once; per_child templates give each child its own counter and
// need the quota_templates entitlement.
func TestRLManagedRulesAndTemplates(t *testing.T) {
	clearEnv(t)
	g := startGateway(t, mockBlock(""))
	adminCall(t, g, "PUT", "/admin/rate-limits", `{"user_path":"/customers","period":"minute","max_requests":1,"per_child":true}`).
		ExpectErr(t, 403, "invalid_request_error", "quota_templates_not_entitled")
	if res := adminCall(t, g, "PUT", "/admin/rate-limits", `{"user_path":"/ops","period_seconds":600,"max_requests":1}`); res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	if res := chatAs(t, g, "/ops/x"); res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	chatAs(t, g, "/ops/y").ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	if res := adminCall(t, g, "DELETE", "/admin/rate-limits", `{"user_path":"/ops","period_seconds":600}`); res.Status != 204 {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	if res := chatAs(t, g, "/ops/y"); res.Status != 200 || res.Header.Get("X-Ratelimit-Limit-Requests") != "" {
		t.Fatalf("after delete: %d %v", res.Status, res.Header)
	}
	if err := g.reload(t, mockBlock("entitlements quota_templates")); err != nil {
		t.Fatal(err)
	}
	http.DefaultClient.CloseIdleConnections()
	waitHealthy(t, g.URL)
	if res := adminCall(t, g, "PUT", "/admin/rate-limits", `{"user_path":"/customers","period":"minute","max_requests":1,"per_child":true}`); res.Status != 200 {
		t.Fatalf("entitled: %d %s", res.Status, res.Body)
	}
	if res := chatAs(t, g, "/customers/alice/app"); res.Status != 200 {
		t.Fatalf("alice: %d %s", res.Status, res.Body)
	}
	chatAs(t, g, "/customers/alice").ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	if res := chatAs(t, g, "/customers/bob"); res.Status != 200 {
		t.Fatalf("bob has his own counter: %d %s", res.Status, res.Body)
	}
	if res := chatAs(t, g, "/customers"); res.Status != 200 {
		t.Fatalf("the template path itself does not match: %d %s", res.Status, res.Body)
	}
	u := request(t, "GET", g.URL+"/v1/usage", "", append(bearer(masterKey), userPathHeader, "/customers/alice/app")...).JSON(t)
	rl := u["rate_limits"].([]any)
	if len(rl) != 1 || rl[0].(map[string]any)["effective_subject"] != "/customers/alice" || rl[0].(map[string]any)["requests_used"] != 1.0 {
		t.Fatalf("usage %v", u)
	}
	if r := rateRule(t, g, "user_path", "/customers", "minute"); r["per_child"] != true || r["requests_used"] != nil {
		t.Fatalf("template in the admin list: %v", r)
	}
}
