package e2e

// The dashboard's accessibility and layout on every page, in both colour
// schemes: axe-core (pinned, installed by .ci/run, never vendored) reports
// no serious or critical violation; no page scrolls sideways on a
// 390×844 phone; screenshots of each page land in screenshotDir.

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// axeSource returns axe.min.js from $MODELGATE_AXE_JS; the test is skipped
// with a message when it is not there, or fails when MODELGATE_REQUIRE_AXE
// is set (as CI does).
func axeSource(t *testing.T) string {
	t.Helper()
	p := os.Getenv("MODELGATE_AXE_JS")
	if p != "" {
		if b, err := os.ReadFile(p); err == nil {
			return string(b)
		}
	}
	msg := "axe-core is not installed (npm install --prefix DIR axe-core@VERSION, then MODELGATE_AXE_JS=DIR/node_modules/axe-core/axe.min.js; .ci/run does this)"
	if os.Getenv("MODELGATE_REQUIRE_AXE") != "" {
		t.Fatal(msg + " and MODELGATE_REQUIRE_AXE is set")
	}
	t.Skip(msg + ": skipping the accessibility test")
	return ""
}

// axeViolation is one rule axe-core found broken, with the elements.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// runAxe runs axe-core on the page as it is and returns its serious and
// critical violations.
func runAxe(t *testing.T, b *browser, src string) []axeViolation {
	t.Helper()
	if !eval[bool](t, b, `typeof window.axe === "object"`) {
		if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](src+"\n;true")); err != nil {
			t.Fatalf("loading axe-core: %v", err)
		}
	}
	js := `axe.run(document, { resultTypes: ["violations"] }).then(r => JSON.stringify(r.violations
		.filter(v => v.impact === "serious" || v.impact === "critical")
		.map(v => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map(n => n.target.join(" ") + " " + (n.failureSummary || "").split("\n").slice(1, 2).join("")) }))))`
	raw, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe.run: %v", err)
	}
	var out []axeViolation
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDashboardAccessibility(t *testing.T) {
	skipWithoutChromium(t)
	src := axeSource(t)
	g, _, _ := startSpendGateway(t)
	// Rows on the limits page: a rule, a budget and per-child templates,
	// whose rows carry the red reset and delete buttons.
	for _, c := range []struct{ method, path, body string }{
		{"PUT", "/admin/rate-limits", `{"scope":"user_path","subject":"/org","period":"minute","max_requests":100}`},
		{"PUT", "/admin/rate-limits", `{"scope":"user_path","subject":"/org","period":"hour","max_requests":1000,"per_child":true}`},
		{"PUT", "/admin/budgets/%2Forg/monthly", `{"amount":5}`},
		{"PUT", "/admin/budgets/%2Forg/daily", `{"amount":1,"per_child":true}`},
	} {
		if res := adminCall(t, g, c.method, c.path, c.body); res.Status >= 300 {
			t.Fatalf("%s %s: %d %s", c.method, c.path, res.Status, res.Body)
		}
	}
	var list struct {
		Entries []struct {
			ID string `json:"id"`
		}
	}
	adminJSON(t, g, "/admin/audit/log?limit=1&status=2xx", &list)
	pages := append([]struct{ path, name string }{}, dashboardPages...)
	pages = append(pages, struct{ path, name string }{"/admin/dashboard/audit?id=" + list.Entries[0].ID, "audit"})

	b := newBrowser(t, g.URL)
	b.viewport(t, 1280, 800, false)
	if _, err := chromedp.Call(b.ctx, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: true}); err != nil {
		t.Fatal(err)
	}
	signIn(t, b, g)
	total := 0
	for _, dark := range []bool{false, true} {
		scheme := map[bool]string{false: "light", true: "dark"}[dark]
		for _, size := range []struct {
			name string
			w, h int64
		}{{"desktop", 1280, 800}, {"phone", 390, 844}} {
			b.viewport(t, size.w, size.h, dark)
			for _, p := range pages {
				b.open(t, p.path, p.name)
				if p.name == "audit" && strings.Contains(p.path, "?id=") {
					b.waitFor(t, "the conversation", `document.querySelector("#conversation .chat, #conversation p:not(.muted)")`, 10*time.Second)
				}
				if p.name == "limits" {
					// The templates' children lists open under their rows.
					eval[bool](t, b, `([...document.querySelectorAll('button[data-action="children"]')].forEach(b => b.click()), true)`)
					b.waitFor(t, "the children lists", `document.querySelectorAll("tr.children-row").length === 2 && !document.querySelector("tr.children-row").textContent.includes("Loading")`, 10*time.Second)
				}
				// Chart axes: compact numbers, no tick twice.
				if bad := eval[string](t, b, `[...document.querySelectorAll(".chart svg")].map(svg => [...svg.querySelectorAll('text[text-anchor="end"]')].map(t => t.textContent)).filter(ys => new Set(ys).size !== ys.length || ys.some(y => /,\d{3}/.test(y))).map(ys => ys.join(" ")).join(" | ")`); bad != "" {
					t.Errorf("%s: chart axes %s", p.name, bad)
				}
				if strings.Contains(eval[string](t, b, "document.body.innerText"), "dayly") {
					t.Errorf("%s: 'dayly' on the page", p.name)
				}
				name := p.name
				if strings.Contains(p.path, "?id=") {
					name = "audit-entry"
				}
				where := fmt.Sprintf("%s %s %s", name, size.name, scheme)
				// No page scrolls sideways: wide tables scroll in their
				// own region.
				if w := eval[string](t, b, `document.documentElement.scrollWidth + " " + document.documentElement.clientWidth`); true {
					var sw, cw int
					fmt.Sscan(w, &sw, &cw)
					if sw > cw {
						wide := eval[string](t, b, `[...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1 && !e.closest(".tablewrap")).slice(0, 5).map(e => e.tagName + "." + e.className + "#" + e.id).join(", ")`)
						t.Errorf("%s: the page is %d px wide in a %d px screen (%s)", where, sw, cw, wide)
					}
				}
				if size.name == "desktop" || name == "audit-entry" || name == "keys" {
					for _, v := range runAxe(t, b, src) {
						total++
						t.Errorf("%s: axe %s (%s): %s; %s", where, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, " | "))
					}
				}
				b.screenshot(t, fmt.Sprintf("a11y-%s-%s-%s", name, size.name, scheme))
			}
		}
	}
	t.Logf("%d serious or critical axe violations", total)
	// The formats: compact axis numbers, a rate of nothing as a dash, one
	// date format.
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`import("/admin/static/dom.js").then(m => [m.compact(10700000), m.compact(1200), m.pct(null), m.pct(0.5), m.when("2026-03-04T05:06:07"), m.moneyAxis(0.00015)].join(" "))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if want := "10.7M 1.2K — 50.0% 2026-03-04 05:06:07 $0.00015"; got != want {
		t.Errorf("formats %q, want %q", got, want)
	}
	b.checkClean(t)
}
