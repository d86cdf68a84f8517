package e2e

import (
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"strconv"
	"testing"
)

// childRows is the children of a children-list answer, checked for its
// shape (children, next, server_time).
func childRows(t *testing.T, res response) ([]map[string]any, any) {
	t.Helper()
	if res.Status != 200 {
		t.Fatalf("children: %d %s", res.Status, res.Body)
	}
	m := res.JSON(t)
	if _, ok := m["server_time"].(string); !ok {
		t.Fatalf("no server_time: %s", res.Body)
	}
	next, ok := m["next"]
	if !ok {
		t.Fatalf("no next: %s", res.Body)
	}
	var out []map[string]any
	for _, r := range m["children"].([]any) {
		out = append(out, r.(map[string]any))
	}
	return out, next
}

// templateRow is the row of the template on /customers in a list answer
// (budgets or rules).
func templateRow(t *testing.T, res response, key string) map[string]any {
	t.Helper()
	if res.Status != 200 {
		t.Fatalf("list: %d %s", res.Status, res.Body)
	}
	for _, r := range res.JSON(t)[key].([]any) {
		m := r.(map[string]any)
		if m["user_path"] == "/customers" && m["per_child"] == true {
			return m
		}
	}
	t.Fatalf("no /customers template in %s", res.Body)
	return nil
}

// near reports whether got is want to the money precision (a billionth
// of a USD, to which the admin API rounds).
func near(got any, want float64) bool {
	f, ok := got.(float64)
	return ok && math.Abs(f-want) <= 1.5e-9
}

// TestPerChildChildren: a per_child budget and a per_child rate-limit
// template on /customers, with priced traffic from /customers/alice (two
// requests: past both caps) and /customers/bob (one). The children lists
// show exactly that, most spent or used first and paged; the list rows
// count the children and the exhausted ones; resetting alice's child of
// the budget, then of the rate limit, re-admits her while bob keeps his
// spend and counts.
func TestPerChildChildren(t *testing.T) {
	clearEnv(t)
	t.Setenv("GATEWAY_ENTITLEMENTS", "quota_templates")
	c := replayChatCost(t)
	g, _ := startBudgetGateway(t, filepath.Join(t.TempDir(), "children.db"))
	amount := 1.9 * c
	for _, call := range []struct{ method, path, body string }{
		{"PUT", "/admin/budgets/%2Fcustomers/daily", `{"amount":` + strconv.FormatFloat(amount, 'g', -1, 64) + `,"per_child":true}`},
		{"PUT", "/admin/budgets/%2Fteam/daily", `{"amount":5}`},
		{"PUT", "/admin/rate-limits", `{"user_path":"/customers","period":"hour","max_requests":2,"per_child":true}`},
		{"PUT", "/admin/rate-limits", `{"user_path":"/team","period":"hour","max_requests":5}`},
	} {
		if res := adminCall(t, g, call.method, call.path, call.body); res.Status != 200 {
			t.Fatalf("%s %s: %d %s", call.method, call.path, res.Status, res.Body)
		}
	}
	// Before any traffic: no children, counts of 0.
	if rows, next := childRows(t, adminCall(t, g, "GET", "/admin/budgets/%2Fcustomers/daily/children", "")); len(rows) != 0 || next != nil {
		t.Fatalf("children before traffic %v %v", rows, next)
	}
	if row := templateRow(t, adminCall(t, g, "GET", "/admin/budgets", ""), "budgets"); row["children"] != 0.0 || row["children_exhausted"] != 0.0 {
		t.Fatalf("budget row before traffic %v", row)
	}

	for _, p := range []string{"/customers/alice/app", "/customers/alice", "/customers/bob"} {
		if res := budgetChatAs(t, g, p, budgetChat); res.Status != 200 {
			t.Fatalf("%s: %d %s", p, res.Status, res.Body)
		}
	}

	// Budget children: alice spent two requests (past 1.9), bob one.
	rows, next := childRows(t, adminCall(t, g, "GET", "/admin/budgets/%2Fcustomers/daily/children", ""))
	if len(rows) != 2 || next != nil {
		t.Fatalf("budget children %v next %v", rows, next)
	}
	alice, bob := rows[0], rows[1]
	if alice["user_path"] != "/customers/alice" || !near(alice["spent"], 2*c) || !near(alice["amount"], amount) ||
		alice["remaining"] != 0.0 || alice["exhausted"] != true || alice["in_flight"] != 0.0 {
		t.Fatalf("alice %v (cost per request %v)", alice, c)
	}
	if bob["user_path"] != "/customers/bob" || !near(bob["spent"], c) || !near(bob["remaining"], amount-c) || bob["exhausted"] != false {
		t.Fatalf("bob %v", bob)
	}
	if alice["period_start"] == nil || alice["period_end"] == nil {
		t.Fatalf("alice's period %v", alice)
	}
	// Paged one by one.
	p1, n1 := childRows(t, adminCall(t, g, "GET", "/admin/budgets/%2Fcustomers/daily/children?limit=1", ""))
	if len(p1) != 1 || p1[0]["user_path"] != "/customers/alice" || n1 == nil {
		t.Fatalf("page 1 %v next %v", p1, n1)
	}
	p2, n2 := childRows(t, adminCall(t, g, "GET", "/admin/budgets/%2Fcustomers/daily/children?limit=1&after="+url.QueryEscape(n1.(string)), ""))
	if len(p2) != 1 || p2[0]["user_path"] != "/customers/bob" || n2 != nil {
		t.Fatalf("page 2 %v next %v", p2, n2)
	}
	if row := templateRow(t, adminCall(t, g, "GET", "/admin/budgets", ""), "budgets"); row["children"] != 2.0 || row["children_exhausted"] != 1.0 || row["spent"] != 0.0 {
		t.Fatalf("budget row %v", row)
	}

	// Rate-limit children: alice used her 2 requests, bob 1.
	rlChildren := "/admin/rate-limits/children?scope=user_path&subject=%2Fcustomers&period=hour"
	rows, next = childRows(t, adminCall(t, g, "GET", rlChildren, ""))
	if len(rows) != 2 || next != nil {
		t.Fatalf("rate-limit children %v next %v", rows, next)
	}
	want := []struct {
		path      string
		used      float64
		exhausted bool
	}{{"/customers/alice", 2, true}, {"/customers/bob", 1, false}}
	for i, w := range want {
		r := rows[i]
		if r["user_path"] != w.path || r["requests_used"] != w.used || r["exhausted"] != w.exhausted || r["in_flight"] != 0.0 ||
			r["max_requests"] != 2.0 || r["max_tokens"] != 0.0 {
			t.Fatalf("rate-limit child %d %v, want %+v", i, r, w)
		}
	}
	// Tokens are charged per child as the responses complete: alice's two
	// requests used twice bob's one.
	if at, bt := rows[0]["tokens_used"].(float64), rows[1]["tokens_used"].(float64); at != 2*bt {
		t.Fatalf("tokens_used alice %v bob %v", at, bt)
	}
	if row := templateRow(t, adminCall(t, g, "GET", "/admin/rate-limits", ""), "rules"); row["children"] != 2.0 || row["children_exhausted"] != 1.0 {
		t.Fatalf("rate-limit row %v", row)
	}

	// Alice is refused; bob is not.
	if res := budgetChatAs(t, g, "/customers/alice", budgetChat); res.Status != 429 {
		t.Fatalf("alice past her caps: %d %s", res.Status, res.Body)
	}

	// Reset alice's budget child: her spend goes, bob keeps his; the rate
	// limit still refuses her.
	res := adminCall(t, g, "POST", "/admin/budgets/reset-one", `{"user_path":"/customers/alice","period":"daily"}`)
	if res.Status != 200 {
		t.Fatalf("budget child reset: %d %s", res.Status, res.Body)
	}
	if b := res.JSON(t)["budgets"].([]any); len(b) != 1 || b[0].(map[string]any)["effective_subject"] != "/customers/alice" || b[0].(map[string]any)["spent"] != 0.0 {
		t.Fatalf("budget child reset answer %s", res.Body)
	}
	rows, _ = childRows(t, adminCall(t, g, "GET", "/admin/budgets/%2Fcustomers/daily/children", ""))
	if len(rows) != 1 || rows[0]["user_path"] != "/customers/bob" || !near(rows[0]["spent"], c) {
		t.Fatalf("budget children after alice's reset %v", rows)
	}
	budgetChatAs(t, g, "/customers/alice", budgetChat).ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")

	// Reset alice's rate-limit child: she is admitted again.
	res = adminCall(t, g, "POST", "/admin/rate-limits/reset-one", `{"user_path":"/customers/alice","period":"hour"}`)
	if res.Status != 200 {
		t.Fatalf("rate-limit child reset: %d %s", res.Status, res.Body)
	}
	if r := res.JSON(t)["rules"].([]any); len(r) != 1 || r[0].(map[string]any)["user_path"] != "/customers" {
		t.Fatalf("rate-limit child reset answer %s", res.Body)
	}
	if res := budgetChatAs(t, g, "/customers/alice", budgetChat); res.Status != 200 {
		t.Fatalf("alice after her resets: %d %s", res.Status, res.Body)
	}
	rows, _ = childRows(t, adminCall(t, g, "GET", rlChildren, ""))
	if len(rows) != 2 || rows[0]["user_path"] != "/customers/alice" || rows[0]["requests_used"] != 1.0 || rows[0]["exhausted"] != false ||
		rows[1]["user_path"] != "/customers/bob" || rows[1]["requests_used"] != 1.0 {
		t.Fatalf("rate-limit children after the reset %v", rows)
	}
	rows, _ = childRows(t, adminCall(t, g, "GET", "/admin/budgets/%2Fcustomers/daily/children", ""))
	if len(rows) != 2 || !near(rows[0]["spent"], c) || !near(rows[1]["spent"], c) || rows[0]["exhausted"] != false {
		t.Fatalf("budget children after alice's new request %v", rows)
	}

	// Errors: no such template (404), not a template (400), both in the
	// gateway's error shape.
	adminCall(t, g, "GET", "/admin/budgets/%2Fnobody/daily/children", "").ExpectErr(t, 404, "not_found_error", "budget_not_found")
	adminCall(t, g, "GET", "/admin/budgets/%2Fteam/daily/children", "").ExpectErr(t, 400, "invalid_request_error", "not_per_child")
	adminCall(t, g, "GET", "/admin/rate-limits/children?user_path=%2Fnobody&period=hour", "").ExpectErr(t, 404, "not_found_error", "rate_limit_rule_not_found")
	adminCall(t, g, "GET", "/admin/rate-limits/children?user_path=%2Fteam&period=hour", "").ExpectErr(t, 400, "invalid_request_error", "not_per_child")
	adminCall(t, g, "GET", "/admin/budgets/%2Fcustomers/daily/children?after=bogus", "").ExpectErr(t, 400, "invalid_request_error", "invalid_value")
	t.Logf("cost per request %s USD; alice and bob listed and reset as sent", fmt.Sprint(c))
}
