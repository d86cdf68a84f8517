package admin

import (
	"net/http"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/platform/config"
)

// newBudgetHandler returns a Handler over an in-memory budgets service
// with one config budget (/cfg daily 9).
func newBudgetHandler(t *testing.T, entitled bool) (*Handler, *budgets.Service) {
	t.Helper()
	s, err := budgets.New(budgets.Options{QuotaTemplates: entitled})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetConfigBudgets([]budgets.Budget{{UserPath: "/cfg", Period: budgets.Daily, Amount: 9}}); err != nil {
		t.Fatal(err)
	}
	h, _ := newTestHandler(t, func(_ *config.Config, o *Options) { o.Budgets = s })
	return h, s
}

func budgetRows(t *testing.T, res result) []map[string]any {
	t.Helper()
	return listRows(t, res, "budgets")
}

func TestBudgetsCRUD(t *testing.T) {
	h, s := newBudgetHandler(t, false)
	list := budgetRows(t, do(h, "GET", "/admin/budgets", ""))
	if len(list) != 1 || list[0]["source"] != "config" || list[0]["period"] != "daily" || list[0]["amount"] != 9.0 {
		t.Fatalf("list %v", list)
	}
	// Create on an encoded path; monthly and 2592000 s are two budgets.
	res := do(h, "PUT", "/admin/budgets/%2Fteam%2Falpha/monthly", `{"amount":5}`)
	if res.status != 200 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	if r := res.json(t); r["user_path"] != "/team/alpha" || r["period"] != "monthly" || r["amount"] != 5.0 || r["source"] != "manual" {
		t.Fatalf("created %v", r)
	}
	if res := do(h, "PUT", "/admin/budgets/%2Fteam%2Falpha/2592000", `{"amount":1}`); res.status != 200 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	if list := budgetRows(t, do(h, "GET", "/admin/budgets", "")); len(list) != 3 {
		t.Fatalf("list %v", list)
	}
	// The legacy alias keeps the encoded path one segment.
	if res := do(h, "PUT", "/admin/api/v1/budgets/%2Fteam%2Flegacy/daily", `{"amount":3}`); res.status != 200 ||
		res.json(t)["user_path"] != "/team/legacy" || res.header.Get("Deprecation") != "true" {
		t.Fatalf("legacy %d %s", res.status, res.body)
	}
	if res := do(h, "DELETE", "/admin/api/v1/budgets/%2Fteam%2Flegacy/daily", ""); res.status != 204 {
		t.Fatalf("legacy delete %d %s", res.status, res.body)
	}
	// Editing the amount keeps the spend.
	s.Charge("/team/alpha", 2, time.Now())
	if r := do(h, "PUT", "/admin/budgets/%2Fteam%2Falpha/monthly", `{"amount":7}`).json(t); r["spent"] != 2.0 || r["amount"] != 7.0 {
		t.Fatalf("edited %v", r)
	}
	// Reset-one by period and by period_seconds.
	l := budgetRows(t, do(h, "POST", "/admin/budgets/reset-one", `{"user_path":"/team/alpha","period":"monthly"}`))
	if len(l) != 1 || l[0]["spent"] != 0.0 || l[0]["last_reset_at"] == "" {
		t.Fatalf("reset-one %v", l)
	}
	l = budgetRows(t, do(h, "POST", "/admin/budgets/reset-one", `{"user_path":"/team/alpha","period_seconds":2592000}`))
	if len(l) != 1 || l[0]["period"] != nil || l[0]["period_seconds"] != 2592000.0 {
		t.Fatalf("reset-one custom %v", l)
	}
	// Errors.
	do(h, "PUT", "/admin/budgets/%2Fteam/yearly", `{"amount":1}`).expectErr(t, 400, "invalid_request_error", "invalid_value")
	do(h, "PUT", "/admin/budgets/%2Fteam/daily", `{"amount":-1}`).expectErr(t, 400, "invalid_request_error", "invalid_value")
	do(h, "PUT", "/admin/budgets/%2Fteam/daily", `{"amount":1e999}`).expectErr(t, 400, "invalid_request_error", "invalid_type")
	do(h, "PUT", "/admin/budgets/%2Fteam/daily", `{}`).expectErr(t, 400, "invalid_request_error", "invalid_value")
	do(h, "PUT", "/admin/budgets/%2Fteam/daily", `{"amount":1,"per_child":true}`).expectErr(t, 403, "invalid_request_error", "quota_templates_not_entitled")
	do(h, "PUT", "/admin/budgets/%2Fcfg/daily", `{"amount":1}`).expectErr(t, http.StatusConflict, "invalid_request_error", "budget_read_only")
	do(h, "DELETE", "/admin/budgets/%2Fcfg/daily", "").expectErr(t, http.StatusConflict, "invalid_request_error", "budget_read_only")
	do(h, "DELETE", "/admin/budgets/%2Fnobody/daily", "").expectErr(t, 404, "not_found_error", "budget_not_found")
	do(h, "POST", "/admin/budgets/reset-one", `{"user_path":"/nobody","period":"daily"}`).expectErr(t, 404, "not_found_error", "budget_not_found")
	do(h, "POST", "/admin/budgets/reset-one", `{"user_path":"/team","period":"daily","period_seconds":5}`).expectErr(t, 400, "invalid_request_error", "invalid_value")
	do(h, "POST", "/admin/budgets/reset", `{}`).expectErr(t, 400, "invalid_request_error", "confirmation_required")
	// Delete, reset all.
	if res := do(h, "DELETE", "/admin/budgets/%2Fteam%2Falpha/2592000", ""); res.status != 204 {
		t.Fatalf("delete %d %s", res.status, res.body)
	}
	s.Charge("/cfg", 9, time.Now())
	l = budgetRows(t, do(h, "POST", "/admin/budgets/reset", `{"confirmation":"reset"}`))
	if len(l) != 2 || l[0]["spent"] != 0.0 || l[1]["spent"] != 0.0 {
		t.Fatalf("reset all %v", l)
	}
}

func TestBudgetSettingsRoutes(t *testing.T) {
	h, _ := newBudgetHandler(t, true)
	if r := do(h, "GET", "/admin/budgets/settings", "").json(t); r["daily_reset_hour"] != 0.0 || r["monthly_reset_day"] != 1.0 {
		t.Fatalf("settings %v", r)
	}
	if r := do(h, "PUT", "/admin/budgets/settings", `{"daily_reset_hour":6}`).json(t); r["daily_reset_hour"] != 6.0 || r["monthly_reset_day"] != 1.0 {
		t.Fatalf("put settings %v", r)
	}
	// Each refusal names its field in param.
	for _, c := range [][4]string{
		{"PUT", "/admin/budgets/settings", `{"daily_reset_hour":24}`, "daily_reset_hour"},
		{"PUT", "/admin/budgets/settings", `{"weekly_reset_weekday":7}`, "weekly_reset_weekday"},
		{"PUT", "/admin/budgets/settings", `{"monthly_reset_day":0}`, "monthly_reset_day"},
		{"PUT", "/admin/budgets/%2Fa%2F..%2Fb/hourly", `{"amount":1}`, "user_path"},
		{"PUT", "/admin/budgets/%2Fa%20b/hourly", `{"amount":1}`, "user_path"},
		{"PUT", "/admin/budgets/%2Fa/hourly", `{"amount":-1}`, "amount"},
	} {
		e := do(h, c[0], c[1], c[2]).expectErr(t, 400, "invalid_request_error", "invalid_value")
		if e.Param == nil || *e.Param != c[3] {
			t.Errorf("%s %s %s: param %v, want %s", c[0], c[1], c[2], e.Param, c[3])
		}
	}
	if res := do(h, "PUT", "/admin/budgets/%2Fcustomers/daily", `{"amount":1,"per_child":true}`); res.status != 200 {
		t.Fatalf("template with entitlement %d %s", res.status, res.body)
	}
}

// TestBudgetsDisabled: without budget management (no service, budgets
// switched off, or usage tracking off) every budget route answers 404
// budgets_disabled.
func TestBudgetsDisabled(t *testing.T) {
	h, _ := newTestHandler(t, nil)
	do(h, "GET", "/admin/budgets", "").expectErr(t, 404, "not_found_error", "budgets_disabled")
	for _, off := range []func(c *config.Config){
		func(c *config.Config) { c.Budgets.Enabled = new(false) },
		func(c *config.Config) { c.Usage.Enabled = new(false) },
	} {
		h, _ := newTestHandler(t, func(c *config.Config, o *Options) {
			off(c)
			s, err := budgets.New(budgets.Options{})
			if err != nil {
				t.Fatal(err)
			}
			o.Budgets = s
		})
		for _, r := range [][3]string{
			{"GET", "/admin/budgets", ""}, {"GET", "/admin/budgets/settings", ""},
			{"PUT", "/admin/budgets/%2Fa/daily", `{"amount":1}`}, {"DELETE", "/admin/budgets/%2Fa/daily", ""},
			{"POST", "/admin/budgets/reset", `{"confirmation":"reset"}`},
		} {
			do(h, r[0], r[1], r[2]).expectErr(t, 404, "not_found_error", "budgets_disabled")
		}
	}
}
