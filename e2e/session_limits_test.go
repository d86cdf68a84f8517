package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// sessionChat sends body to /v1/chat/completions for userPath in session
// sid (X-Session-Id).
func sessionChat(t testing.TB, g *gateway, userPath, sid, body string) response {
	t.Helper()
	return request(t, "POST", g.URL+"/v1/chat/completions", body,
		append(bearer(masterKey), userPathHeader, userPath, "X-Session-Id", sid)...)
}

// toolChat asks the mock for a call of ls with the same arguments every
// time; streamed when stream is set.
func toolChat(stream bool) string {
	return fmt.Sprintf(`{"model":"mock-chat","stream":%t,"tools":[{"type":"function","function":{"name":"ls","parameters":{"type":"object"}}}],`+
		`"messages":[{"role":"user","content":"list files mock:call:ls"}]}`, stream)
}

// TestSessionLimits: a max_requests limit from the YAML file, and a
// per_child max_repeats limit written through /admin/session-limits, each
// refuse a session with 429 session_limit_exceeded once reached (the same
// tool call, streamed or not, or the same upstream error, three times in
// a row), saying which limit and to start a new session; a new session id
// continues, other children are counted apart, the refusal is on the
// audit entry of the session, and deleting the limit lifts it.
func TestSessionLimits(t *testing.T) {
	clearEnv(t)
	yaml := writeFile(t, "sessions.yaml", "session_limits:\n  - {user_path: /cfg, max_requests: 2}\n")
	if err := loadFails(t, mockBlock("config_file "+writeFile(t, "bad.yaml", "session_limits:\n  - {user_path: /x, max_repeats: 1}\n"))); err == nil ||
		!strings.Contains(err.Error(), "session_limits[0]: max_repeats") {
		t.Fatalf("a bad limit loads: %v", err)
	}
	g := startGateway(t, mockBlock("config_file "+yaml))

	// max_requests from the configuration.
	for i := range 2 {
		if res := sessionChat(t, g, "/cfg/a", "s1", mockChat); res.Status != 200 {
			t.Fatalf("request %d: %d %s", i+1, res.Status, res.Body)
		}
	}
	e := sessionChat(t, g, "/cfg/a", "s1", mockChat).ExpectErr(t, 429, "rate_limit_error", "session_limit_exceeded")
	if want := "session s1 reached max_requests=2 for /cfg; start a new session (new session id) to continue"; e.Message != want {
		t.Fatalf("message %q", e.Message)
	}
	// Anthropic clients get their envelope.
	msg := request(t, "POST", g.URL+"/v1/messages", `{"model":"mock-chat","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`,
		append(bearer(masterKey), userPathHeader, "/cfg/a", "X-Session-Id", "s1")...)
	if msg.Status != 429 || msg.Header.Get("Retry-After") == "" || !strings.Contains(string(msg.Body), `"type":"error"`) ||
		!strings.Contains(string(msg.Body), "reached max_requests=2") {
		t.Fatalf("messages: %d %v %s", msg.Status, msg.Header, msg.Body)
	}
	if res := sessionChat(t, g, "/cfg/a", "s2", mockChat); res.Status != 200 {
		t.Fatalf("a new session: %d %s", res.Status, res.Body)
	}

	// max_repeats through the admin API, per child.
	if res := adminCall(t, g, "PUT", "/admin/session-limits", `{"user_path":"/agents","max_repeats":3,"per_child":true}`); res.Status != 200 {
		t.Fatalf("put: %d %s", res.Status, res.Body)
	}
	list := adminCall(t, g, "GET", "/admin/session-limits", "").JSON(t)["limits"].([]any)
	if len(list) != 2 || list[0].(map[string]any)["source"] != "manual" || list[1].(map[string]any)["source"] != "config" {
		t.Fatalf("list %v", list)
	}
	for name, body := range map[string]string{"plain": toolChat(false), "stream": toolChat(true)} {
		sid := "r-" + name
		for i := range 3 {
			res := sessionChat(t, g, "/agents/a", sid, body)
			if res.Status != 200 || !strings.Contains(string(res.Body), `"ls"`) {
				t.Fatalf("%s call %d: %d %s", name, i+1, res.Status, res.Body)
			}
		}
		e := sessionChat(t, g, "/agents/a", sid, body).ExpectErr(t, 429, "rate_limit_error", "session_limit_exceeded")
		if !strings.Contains(e.Message, "max_repeats=3 for /agents/a") {
			t.Fatalf("%s: message %q", name, e.Message)
		}
		if res := sessionChat(t, g, "/agents/b", sid, body); res.Status != 200 {
			t.Fatalf("%s: another child: %d %s", name, res.Status, res.Body)
		}
		if res := sessionChat(t, g, "/agents/a", sid+"-new", body); res.Status != 200 {
			t.Fatalf("%s: a new session: %d %s", name, res.Status, res.Body)
		}
	}
	// The same upstream error three times in a row.
	bad := `{"model":"mock-chat","tools":[{"type":"function","function":{"name":"ls"}}],"tool_choice":{"type":"function","function":{"name":"nope"}},"messages":[{"role":"user","content":"x"}]}`
	for i := range 3 {
		if res := sessionChat(t, g, "/agents/c", "err", bad); res.Status != 400 {
			t.Fatalf("error %d: %d %s", i+1, res.Status, res.Body)
		}
	}
	sessionChat(t, g, "/agents/c", "err", mockChat).ExpectErr(t, 429, "rate_limit_error", "session_limit_exceeded")

	// The refusal is recorded on the session's audit entry.
	entries, _ := auditRecords(t)
	refused := 0
	for _, es := range entries {
		for _, en := range es {
			if en.Data != nil && en.Data.ErrorCode == "session_limit_exceeded" {
				if en.StatusCode != 429 || en.SessionID == "" {
					t.Fatalf("refused entry %+v", en)
				}
				refused++
			}
		}
	}
	if refused != 5 {
		t.Fatalf("%d refused entries, want 5", refused)
	}

	// The dashboard's session rows say which limit refused the session.
	limited := map[string]any{}
	for _, row := range adminCall(t, g, "GET", "/admin/usage/sessions?limit=100", "").JSON(t)["sessions"].([]any) {
		m := row.(map[string]any)
		limited[m["session_id"].(string)] = m["limited"]
	}
	if limited["s1"] != "max_requests=2" || limited["r-stream"] != "max_repeats=3" || limited["s2"] != nil {
		t.Fatalf("limited per session: %v", limited)
	}

	// Deleting the limit lifts it.
	if res := adminCall(t, g, "DELETE", "/admin/session-limits", `{"user_path":"/agents"}`); res.Status != 204 {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	if res := sessionChat(t, g, "/agents/a", "r-plain", toolChat(false)); res.Status != 200 {
		t.Fatalf("after delete: %d %s", res.Status, res.Body)
	}
	adminCall(t, g, "DELETE", "/admin/session-limits", `{"user_path":"/agents"}`).ExpectErr(t, 404, "not_found_error", "session_limit_not_found")
}

// TestSessionLimitCost: a max_cost of 2.5 requests' catalog cost admits a
// session's first three priced requests and refuses the fourth; another
// session continues.
func TestSessionLimitCost(t *testing.T) {
	clearEnv(t)
	g, _ := startBudgetGateway(t, t.TempDir()+"/mg.db")
	c := replayChatCost(t)
	if res := adminCall(t, g, "PUT", "/admin/session-limits", fmt.Sprintf(`{"user_path":"/team","max_cost":%g}`, 2.5*c)); res.Status != 200 {
		t.Fatalf("put: %d %s", res.Status, res.Body)
	}
	for i := range 3 {
		if res := sessionChat(t, g, "/team/x", "spend", budgetChat); res.Status != 200 {
			t.Fatalf("request %d: %d %s", i+1, res.Status, res.Body)
		}
	}
	e := sessionChat(t, g, "/team/x", "spend", budgetChat).ExpectErr(t, 429, "rate_limit_error", "session_limit_exceeded")
	if !strings.Contains(e.Message, "reached max_cost=") || !strings.Contains(e.Message, "new session id") {
		t.Fatalf("message %q", e.Message)
	}
	if res := sessionChat(t, g, "/team/x", "spend-2", budgetChat); res.Status != 200 {
		t.Fatalf("a new session: %d %s", res.Status, res.Body)
	}
	t.Logf("cost per request %.3g USD, max_cost %.3g: 3 admitted, the 4th refused", c, 2.5*c)
}

// checkSessionLimits writes, reads and deletes a session limit (for the
// OpenAPI conformance test), with the chat refusal it causes.
func checkSessionLimits(c *conformance) {
	sid := fmt.Sprintf("conformance-%t", c.legacy)
	c.ok("PUT /admin/session-limits", "/admin/session-limits", `{"user_path":"/sessions","max_requests":1}`, status200)
	c.ok("GET /admin/session-limits", "/admin/session-limits", "", status200)
	// Bodies of their own: a response cache hit counts nothing.
	chat := func(n int) string {
		return fmt.Sprintf(`{"model":"mock-chat","messages":[{"role":"user","content":"%s %d"}]}`, sid, n)
	}
	c.ok("POST /v1/chat/completions", "/v1/chat/completions", chat(1), status200, userPathHeader, "/sessions", "X-Session-Id", sid)
	c.fails("POST /v1/chat/completions", "/v1/chat/completions", chat(2), http.StatusTooManyRequests, userPathHeader, "/sessions", "X-Session-Id", sid)
	c.fails("PUT /admin/session-limits", "/admin/session-limits", `{"user_path":"/sessions"}`, http.StatusBadRequest)
	c.ok("DELETE /admin/session-limits", "/admin/session-limits", `{"user_path":"/sessions"}`, status204)
	c.fails("DELETE /admin/session-limits", "/admin/session-limits", `{"user_path":"/sessions"}`, http.StatusNotFound)
}
