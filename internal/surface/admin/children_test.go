package admin

import (
	"fmt"
	"net/url"
	"testing"
	"time"
)

// pageAll walks the pages of a children list of limit rows each and
// returns every row's user_path in order, failing on a page larger than
// limit.
func pageAll(t *testing.T, h *Handler, base string, limit int) []string {
	t.Helper()
	var out []string
	after := ""
	for pages := 0; pages < 20; pages++ {
		u := fmt.Sprintf("%s&limit=%d", base, limit)
		if after != "" {
			u += "&after=" + url.QueryEscape(after)
		}
		rows := listRows(t, do(h, "GET", u, ""), "children")
		if len(rows) > limit {
			t.Fatalf("page of %d rows for limit %d", len(rows), limit)
		}
		for _, r := range rows {
			out = append(out, r["user_path"].(string))
		}
		next := do(h, "GET", u, "").json(t)["next"]
		if next == nil {
			return out
		}
		after = next.(string)
	}
	t.Fatal("more than 20 pages")
	return nil
}

func TestBudgetChildrenRoute(t *testing.T) {
	h, s := newBudgetHandler(t, true)
	if res := do(h, "PUT", "/admin/budgets/%2Fcustomers/daily", `{"amount":1,"per_child":true}`); res.status != 200 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	now := time.Now()
	for i, c := range []float64{1.5, 0.25, 0.5, 0.25, 0.75} {
		s.Charge(fmt.Sprintf("/customers/c%d/app", i), c, now)
	}
	rows := listRows(t, do(h, "GET", "/admin/budgets/%2Fcustomers/daily/children", ""), "children")
	want := []string{"/customers/c0", "/customers/c4", "/customers/c2", "/customers/c1", "/customers/c3"}
	if len(rows) != len(want) {
		t.Fatalf("rows %v", rows)
	}
	for i, r := range rows {
		if r["user_path"] != want[i] {
			t.Fatalf("row %d %v, want %s", i, r, want[i])
		}
	}
	if r := rows[0]; r["spent"] != 1.5 || r["amount"] != 1.0 || r["remaining"] != 0.0 || r["exhausted"] != true ||
		r["in_flight"] != 0.0 || r["period_start"] == nil || r["period_end"] == nil {
		t.Fatalf("first row %v", r)
	}
	if rows[1]["exhausted"] != false {
		t.Fatalf("second row %v", rows[1])
	}
	for _, limit := range []int{1, 2, 4} {
		got := pageAll(t, h, "/admin/budgets/%2Fcustomers/daily/children?x=1", limit)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("limit %d pages %v, want %v", limit, got, want)
		}
	}
	// The list row counts the children.
	for _, r := range budgetRows(t, do(h, "GET", "/admin/budgets", "")) {
		if r["user_path"] == "/customers" && (r["children"] != 5.0 || r["children_exhausted"] != 1.0) {
			t.Fatalf("template row %v", r)
		}
		if r["user_path"] == "/cfg" && (r["children"] != nil || r["children_exhausted"] != nil) {
			t.Fatalf("plain row %v", r)
		}
	}
	// Reset one child by its path.
	l := budgetRows(t, do(h, "POST", "/admin/budgets/reset-one", `{"user_path":"/customers/c0","period":"daily"}`))
	if len(l) != 1 || l[0]["user_path"] != "/customers" || l[0]["effective_subject"] != "/customers/c0" || l[0]["spent"] != 0.0 {
		t.Fatalf("child reset %v", l)
	}
	if ok, _, _ := s.Check("/customers/c0", time.Now()); !ok {
		t.Fatal("c0 refused after its reset")
	}
	if got := pageAll(t, h, "/admin/budgets/%2Fcustomers/daily/children?x=1", 50); len(got) != 4 {
		t.Fatalf("children after the reset %v", got)
	}
	// Errors.
	do(h, "GET", "/admin/budgets/%2Fnobody/daily/children", "").expectErr(t, 404, "not_found_error", "budget_not_found")
	do(h, "GET", "/admin/budgets/%2Fcfg/daily/children", "").expectErr(t, 400, "invalid_request_error", "not_per_child")
	do(h, "GET", "/admin/budgets/%2Fcustomers/daily/children?limit=0", "").expectErr(t, 400, "invalid_request_error", "invalid_value")
	do(h, "GET", "/admin/budgets/%2Fcustomers/daily/children?after=zz", "").expectErr(t, 400, "invalid_request_error", "invalid_value")
	do(h, "POST", "/admin/budgets/reset-one", `{"user_path":"/customers/c0/app","period":"daily"}`).expectErr(t, 404, "not_found_error", "budget_not_found")
}

func TestRateLimitChildrenRoute(t *testing.T) {
	h, e := newRateLimitHandler(t, true)
	if res := do(h, "PUT", "/admin/rate-limits", `{"user_path":"/customers","period":"hour","max_requests":3,"per_child":true}`); res.status != 200 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	for i, n := range []int{1, 3, 2} {
		for j := 0; j < n; j++ {
			a, rej := e.AdmitUserPath(fmt.Sprintf("/customers/c%d", i))
			if rej != nil {
				t.Fatal(rej.Reason)
			}
			a.Done(10)
		}
	}
	base := "/admin/rate-limits/children?scope=user_path&subject=%2Fcustomers&period=hour"
	rows := listRows(t, do(h, "GET", base, ""), "children")
	if len(rows) != 3 || rows[0]["user_path"] != "/customers/c1" || rows[0]["requests_used"] != 3.0 || rows[0]["tokens_used"] != 30.0 ||
		rows[0]["exhausted"] != true || rows[0]["max_requests"] != 3.0 || rows[0]["max_tokens"] != 0.0 || rows[0]["in_flight"] != 0.0 ||
		rows[1]["user_path"] != "/customers/c2" || rows[1]["exhausted"] != false || rows[2]["user_path"] != "/customers/c0" {
		t.Fatalf("rows %v", rows)
	}
	if got := pageAll(t, h, base, 1); fmt.Sprint(got) != "[/customers/c1 /customers/c2 /customers/c0]" {
		t.Fatalf("pages %v", got)
	}
	// user_path shorthand.
	if rows := listRows(t, do(h, "GET", "/admin/rate-limits/children?user_path=/customers&period=hour", ""), "children"); len(rows) != 3 {
		t.Fatalf("shorthand rows %v", rows)
	}
	for _, r := range rules(t, do(h, "GET", "/admin/rate-limits", "")) {
		if r["subject"] == "/customers" && (r["children"] != 3.0 || r["children_exhausted"] != 1.0) {
			t.Fatalf("template row %v", r)
		}
		if r["subject"] == "/cfg" && r["children"] != nil {
			t.Fatalf("plain row %v", r)
		}
	}
	// Reset one child: the answer lists the template.
	l := rules(t, do(h, "POST", "/admin/rate-limits/reset-one", `{"user_path":"/customers/c1","period":"hour"}`))
	if len(l) != 1 || l[0]["subject"] != "/customers" || l[0]["children"] != 2.0 || l[0]["children_exhausted"] != 0.0 {
		t.Fatalf("child reset %v", l)
	}
	// Errors.
	do(h, "GET", "/admin/rate-limits/children?user_path=/nobody&period=hour", "").expectErr(t, 404, "not_found_error", "rate_limit_rule_not_found")
	do(h, "GET", "/admin/rate-limits/children?user_path=/cfg&period=minute", "").expectErr(t, 400, "invalid_request_error", "not_per_child")
	do(h, "GET", "/admin/rate-limits/children?user_path=/customers", "").expectErr(t, 400, "invalid_request_error", "invalid_value")
	do(h, "GET", base+"&limit=x", "").expectErr(t, 400, "invalid_request_error", "invalid_value")
	do(h, "POST", "/admin/rate-limits/reset-one", `{"user_path":"/customers/c1/deep","period":"hour"}`).
		expectErr(t, 404, "not_found_error", "rate_limit_rule_not_found")
}
