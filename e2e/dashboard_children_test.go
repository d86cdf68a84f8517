package e2e

// Per-child templates on the limits page: a budget template and a
// rate-limit template list their children with bars of spend and usage
// against the template's cap, the figures the children routes return, and
// a child's reset clears that child alone.

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"
)

// childFigures reads the children of a template from the admin API: each
// child's spend (budgets) or requests used (rate limits).
func childFigures(t *testing.T, g *gateway, path, field string) map[string]float64 {
	t.Helper()
	var page struct {
		Children []map[string]any `json:"children"`
	}
	adminJSON(t, g, path, &page)
	out := map[string]float64{}
	for _, c := range page.Children {
		out[c["user_path"].(string)] = c[field].(float64)
	}
	return out
}

func TestDashboardTemplateChildren(t *testing.T) {
	skipWithoutChromium(t)
	clearEnv(t)
	t.Setenv("GATEWAY_ENTITLEMENTS", "quota_templates")
	g, _ := startBudgetGateway(t, filepath.Join(t.TempDir(), "gw.db"))
	for _, c := range []struct{ method, path, body string }{
		{"PUT", "/admin/budgets/%2Fteam/daily", `{"amount":100,"per_child":true}`},
		{"PUT", "/admin/rate-limits", `{"scope":"user_path","subject":"/team","period":"hour","max_requests":50,"per_child":true}`},
	} {
		if res := adminCall(t, g, c.method, c.path, c.body); res.Status >= 300 {
			t.Fatalf("%s %s: %d %s", c.method, c.path, res.Status, res.Body)
		}
	}
	for _, p := range []string{"/team/a", "/team/a", "/team/b"} {
		if res := budgetChatAs(t, g, p, budgetChat); res.Status != 200 {
			t.Fatalf("%s: %d %s", p, res.Status, res.Body)
		}
	}
	const budgetKids = "/admin/budgets/%2Fteam/daily/children"
	const ruleKids = "/admin/rate-limits/children?scope=user_path&subject=/team&period=hour"
	poll(t, 5*time.Second, "both children's spend", func() bool {
		s := childFigures(t, g, budgetKids, "spent")
		return s["/team/a"] > 0 && s["/team/b"] > 0
	})
	spent := childFigures(t, g, budgetKids, "spent")
	used := childFigures(t, g, ruleKids, "requests_used")
	if used["/team/a"] != 2 || used["/team/b"] != 1 {
		t.Fatalf("requests used %v", used)
	}

	b := newBrowser(t, g.URL)
	b.viewport(t, 1280, 800, false)
	signIn(t, b, g)
	b.open(t, "/admin/dashboard/limits", "limits")

	// shown reads the children a template's row lists: path -> figure.
	shown := func(box, attr string) map[string]string {
		raw := eval[string](t, b, `JSON.stringify(Object.fromEntries([...document.querySelectorAll("#`+box+` tr.children-row tr[data-child]")].map(tr => [tr.dataset.child, tr.querySelector("[`+attr+`]").getAttribute("`+attr+`")])))`)
		var m map[string]string
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}

	t.Run("budget children", func(t *testing.T) {
		if got := eval[string](t, b, `document.querySelector('#budgets button[data-action="children"]').textContent`); got != "Children (2)" {
			t.Errorf("the template's button reads %q", got)
		}
		clickJS(t, b, `#budgets button[data-action="children"]`)
		b.waitFor(t, "the budget's children", `document.querySelectorAll("#budgets tr.children-row tr[data-child]").length === 2`, 10*time.Second)
		got := shown("budgets", "data-spent")
		for p, want := range spent {
			var v float64
			fmt.Sscan(got[p], &v)
			if math.Abs(v-want) > 1e-12 {
				t.Errorf("%s spent shown %q, API %v", p, got[p], want)
			}
		}
		if n := eval[int](t, b, `document.querySelectorAll("#budgets tr.children-row .bar").length`); n != 2 {
			t.Errorf("%d bars for 2 children", n)
		}
		b.screenshot(t, "limits-children-desktop-light")
		clickJS(t, b, `#budgets tr[data-child="/team/a"] button[data-action="reset-child"]`)
		clickJS(t, b, `dialog[open] button[data-action="ok"]`)
		poll(t, 5*time.Second, "/team/a reset", func() bool { return childFigures(t, g, budgetKids, "spent")["/team/a"] == 0 })
		if s := childFigures(t, g, budgetKids, "spent"); s["/team/b"] != spent["/team/b"] {
			t.Errorf("the sibling's spend changed: %v, was %v", s["/team/b"], spent["/team/b"])
		}
		// The list stays open across the page's refresh.
		b.waitFor(t, "the reset shown", `!document.querySelector('#budgets tr[data-child="/team/a"]') || document.querySelector('#budgets tr[data-child="/team/a"] [data-spent]').dataset.spent === "0"`, 10*time.Second)
	})

	t.Run("rate-limit children", func(t *testing.T) {
		clickJS(t, b, `#rate-limits tr[data-subject="/team"] button[data-action="children"]`)
		b.waitFor(t, "the rule's children", `document.querySelectorAll("#rate-limits tr.children-row tr[data-child]").length === 2`, 10*time.Second)
		got := shown("rate-limits", "data-used")
		if got["/team/a"] != "2" || got["/team/b"] != "1" {
			t.Errorf("requests shown %v, API %v", got, used)
		}
		clickJS(t, b, `#rate-limits tr[data-child="/team/b"] button[data-action="reset-child"]`)
		clickJS(t, b, `dialog[open] button[data-action="ok"]`)
		poll(t, 5*time.Second, "/team/b reset", func() bool { return childFigures(t, g, ruleKids, "requests_used")["/team/b"] == 0 })
		if u := childFigures(t, g, ruleKids, "requests_used"); u["/team/a"] != 2 {
			t.Errorf("the sibling's count changed: %v", u["/team/a"])
		}
	})
	b.checkClean(t)
}
