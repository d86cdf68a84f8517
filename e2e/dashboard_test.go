package e2e

// The dashboard in a real browser: sign-in errors, every page showing the
// admin API's figures, creating a key, a rate-limit rule and its reset,
// the live audit log, a clean console, no request to another origin, and
// screenshots of every page at desktop and phone size in both themes.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// dashboardPages are the dashboard pages: path and the name the shell
// marks as ready once the page has drawn its data.
var dashboardPages = []struct{ path, name string }{
	{"/admin/dashboard", "overview"},
	{"/admin/dashboard/audit", "audit"},
	{"/admin/dashboard/usage", "usage"},
	{"/admin/dashboard/keys", "keys"},
	{"/admin/dashboard/limits", "limits"},
	{"/admin/dashboard/models", "models"},
}

// adminJSON calls the admin API with the master key and decodes the answer.
func adminJSON(t *testing.T, g *gateway, path string, into any) {
	t.Helper()
	res := adminCall(t, g, "GET", path, "")
	if res.Status != 200 {
		t.Fatalf("GET %s: %d %s", path, res.Status, res.Body)
	}
	if err := json.Unmarshal(res.Body, into); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// auditTotal is the number of audit entries the admin API lists.
func auditTotal(t *testing.T, g *gateway) int {
	var page struct{ Total int }
	adminJSON(t, g, "/admin/audit/log?limit=1", &page)
	return page.Total
}

// waitAudited waits until the audit log lists at least n entries.
func waitAudited(t *testing.T, g *gateway, n int) {
	t.Helper()
	poll(t, 10*time.Second, fmt.Sprintf("the audit log reaches %d entries", n), func() bool { return auditTotal(t, g) >= n })
}

// figure returns the text of the overview or usage card named id.
func figure(t *testing.T, b *browser, id string) string {
	t.Helper()
	return eval[string](t, b, `(document.querySelector('[data-figure="`+id+`"]') || {}).textContent || "missing"`)
}

// thousands formats n as the dashboard does (en-US grouping).
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// dialogInput sets the value of a field of the open dialog.
func dialogInput(t *testing.T, b *browser, name, value string) {
	t.Helper()
	b.do(t, "fill "+name, chromedp.SetValue(chromedp.CSS(`dialog[open] [name="`+name+`"]`), value))
}

// clickJS clicks the element a CSS selector names from inside the page
// (the element may be re-drawn by a refresh between a lookup and a
// pointer click).
func clickJS(t *testing.T, b *browser, sel string) {
	t.Helper()
	b.waitFor(t, sel, "document.querySelector('"+sel+"')", 10*time.Second)
	eval[bool](t, b, "(document.querySelector('"+sel+"').click(), true)")
}

func TestDashboardInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	clearEnv(t)
	g := startGateway(t, mockBlock("admin {\n live_logs_enabled true\n}\n"))
	noDash := createKey(t, g, `{"name":"no-dashboard"}`)

	// Traffic: successes on two user paths and a failure.
	for i := 0; i < 5; i++ {
		chatAs(t, g, "/team/a")
	}
	chatAs(t, g, "/team/b")
	chatAs(t, g, "/team/b")
	bad := request(t, "POST", g.URL+"/v1/chat/completions", `{"model":"no-such-model","messages":[{"role":"user","content":"x"}]}`,
		append(bearer(masterKey), userPathHeader, "/team/b")...)
	if bad.Status < 400 {
		t.Fatalf("unknown model answered %d", bad.Status)
	}
	waitAudited(t, g, 8)

	b := newBrowser(t, g.URL)
	b.viewport(t, 1280, 800, false)

	t.Run("sign-in", func(t *testing.T) {
		b.do(t, "open", chromedp.Navigate(g.URL+"/admin/dashboard"))
		b.waitFor(t, "login form", `!document.getElementById("login").hidden`, 10*time.Second)
		login := func(key string) {
			b.do(t, "type key", chromedp.SetValue(chromedp.ID("login-key"), key), chromedp.Click(chromedp.CSS(`#login-form button[type="submit"]`)))
		}
		login("sk_mg_wrongwrongwrongwrongwrongwrongwr")
		b.waitFor(t, "401 message", `document.getElementById("login-error").textContent.includes("401")`, 10*time.Second)
		login(noDash.Secret)
		b.waitFor(t, "403 message", `document.getElementById("login-error").textContent.includes("dashboard_access_denied")`, 10*time.Second)
		login(masterKey)
		b.waitFor(t, "overview", `document.body.dataset.ready === "overview"`, 15*time.Second)
		// The key lives in this tab's sessionStorage only.
		if got := eval[string](t, b, `sessionStorage.getItem("modelgate.adminKey") + "|" + localStorage.length + "|" + document.cookie`); got != masterKey+"|0|" {
			t.Fatalf("key storage: %q", got)
		}
		if v := eval[string](t, b, `document.querySelector("[data-version]").dataset.version`); v == "" {
			t.Error("no version shown")
		}
		if on := eval[bool](t, b, `document.querySelector('[data-switch="dashboard_live_logs_enabled"]').classList.contains("on")`); !on {
			t.Error("live logs switch not shown as on")
		}
	})

	t.Run("overview", func(t *testing.T) {
		res := adminCall(t, g, "GET", "/admin/audit/stats?days=2", "")
		var raw struct {
			Buckets []map[string]int64 `json:"buckets"`
		}
		_ = json.Unmarshal(res.Body, &raw)
		var reqs, s4 int64
		for _, bk := range raw.Buckets[max(0, len(raw.Buckets)-24):] {
			reqs += bk["requests"]
			s4 += bk["status_4xx"]
		}
		var sum struct {
			TotalTokens int64   `json:"total_tokens"`
			TotalCost   float64 `json:"total_cost"`
		}
		adminJSON(t, g, "/admin/usage/summary?days=2", &sum)
		b.open(t, "/admin/dashboard", "overview")
		if reqs < 8 {
			t.Fatalf("API counts %d requests", reqs)
		}
		if got := figure(t, b, "requests"); got != thousands(reqs) {
			t.Errorf("requests shown %q, API %d", got, reqs)
		}
		if got := figure(t, b, "status_4xx"); got != thousands(s4) {
			t.Errorf("4xx shown %q, API %d", got, s4)
		}
		if got := figure(t, b, "total_tokens"); got != thousands(sum.TotalTokens) || sum.TotalTokens == 0 {
			t.Errorf("tokens shown %q, API %d", got, sum.TotalTokens)
		}
		// One bar segment per non-empty status class and bucket, one
		// latency series for the demo provider.
		if n := eval[int](t, b, `document.querySelectorAll("#chart-status rect").length`); n < 2 {
			t.Errorf("status chart has %d bars", n)
		}
		if n := eval[int](t, b, `document.querySelectorAll("#chart-latency path.line").length`); n != 1 {
			t.Errorf("latency chart has %d lines", n)
		}
		if n := eval[int](t, b, `document.querySelectorAll("#chart-tokens rect").length`); n != 2 {
			t.Errorf("tokens chart has %d bars for today's input and output", n)
		}
		clickJS(t, b, `.seg button[data-value="7d"]`)
		b.waitFor(t, "7-day buckets", `document.querySelector("#chart-status .legend") && document.body.innerText.includes("the last 7 days")`, 10*time.Second)
	})

	t.Run("audit and live", func(t *testing.T) {
		total := auditTotal(t, g)
		b.open(t, "/admin/dashboard/audit", "audit")
		if got := eval[string](t, b, `document.getElementById("audit-total").dataset.total`); got != strconv.Itoa(total) {
			t.Errorf("audit total shown %s, API %d", got, total)
		}
		if n := eval[int](t, b, `document.querySelectorAll("#audit-list tbody tr[data-id]").length`); n != min(total, 50) {
			t.Errorf("%d rows for %d entries", n, total)
		}
		b.waitFor(t, "live stream connected", `document.getElementById("live-state").textContent === "Live"`, 10*time.Second)
		start := time.Now()
		done := make(chan response, 1)
		go func() {
			res, _ := send("POST", g.URL+"/v1/chat/completions", mockChat, append(bearer(masterKey), userPathHeader, "/live/probe")...)
			done <- res
		}()
		b.waitFor(t, "the live row", `[...document.querySelectorAll("#audit-list tbody tr")].some(tr => tr.textContent.includes("/live/probe"))`, 2*time.Second)
		t.Logf("live row shown %v after the request was sent", time.Since(start).Round(time.Millisecond))
		if res := <-done; res.Status != 200 {
			t.Fatalf("probe request: %d", res.Status)
		}
		b.waitFor(t, "the live row completed", `[...document.querySelectorAll("#audit-list tbody tr")].some(tr => tr.textContent.includes("/live/probe") && tr.dataset.phase === "complete" && tr.textContent.includes("200"))`, 5*time.Second)
		// The footer counts the live row, and the page keeps its 50 rows.
		if got := eval[string](t, b, `document.getElementById("audit-total").dataset.total`); got != strconv.Itoa(total+1) {
			t.Errorf("after the live row the footer counts %s, want %d", got, total+1)
		}
		if n := eval[int](t, b, `document.querySelectorAll("#audit-list tbody tr[data-id]").length`); n != min(total+1, 50) {
			t.Errorf("%d rows after the live row, want %d", n, min(total+1, 50))
		}
		if eval[string](t, b, `location.pathname + location.search`) != "/admin/dashboard/audit" {
			t.Error("the page reloaded or moved")
		}

		// Filters: by user path.
		b.do(t, "filter", chromedp.SetValue(chromedp.CSS(`#audit-filters [name="user_path"]`), "/team/b"))
		clickJS(t, b, `#audit-filters button[type="submit"]`)
		b.waitFor(t, "filtered list", `document.getElementById("audit-total").dataset.total === "3"`, 10*time.Second)

		// Detail and conversation of the newest /team/b entry.
		clickJS(t, b, `#audit-list tbody tr[data-id] td`)
		b.waitFor(t, "detail", `location.search.startsWith("?id=") && document.body.dataset.ready === "audit" && document.getElementById("request-body")`, 10*time.Second)
		if !eval[bool](t, b, `document.querySelector("#request-body pre").textContent.includes('"model"')`) {
			t.Error("request body not pretty-printed")
		}
		clickJS(t, b, `#show-conversation`)
		b.waitFor(t, "conversation bubbles", `document.querySelector("#conversation .bubble.user")`, 10*time.Second)
		b.screenshot(t, "audit-entry-desktop-light")
	})

	t.Run("usage", func(t *testing.T) {
		var sum struct {
			TotalRequests int64 `json:"total_requests"`
			TotalTokens   int64 `json:"total_tokens"`
		}
		adminJSON(t, g, "/admin/usage/summary?days=30", &sum)
		var days []map[string]any
		adminJSON(t, g, "/admin/usage/daily?days=30&interval=daily", &days)
		b.open(t, "/admin/dashboard/usage", "usage")
		if got := figure(t, b, "total_requests"); got != thousands(sum.TotalRequests) || sum.TotalRequests == 0 {
			t.Errorf("requests shown %q, API %d", got, sum.TotalRequests)
		}
		if got := figure(t, b, "total_tokens"); got != thousands(sum.TotalTokens) {
			t.Errorf("tokens shown %q, API %d", got, sum.TotalTokens)
		}
		if n := eval[int](t, b, `document.querySelectorAll("#usage-periods tbody tr").length`); n != max(1, len(days)) {
			t.Errorf("%d period rows, API %d", n, len(days))
		}
	})

	t.Run("keys", func(t *testing.T) {
		b.open(t, "/admin/dashboard/keys", "keys")
		if !eval[bool](t, b, `!!document.querySelector('[data-key-name="no-dashboard"]')`) {
			t.Error("existing key not listed")
		}
		clickJS(t, b, "#new-key")
		b.waitFor(t, "dialog", `document.querySelector("dialog[open]")`, 5*time.Second)
		dialogInput(t, b, "name", "made-in-browser")
		dialogInput(t, b, "user_path", "/ui/made")
		dialogInput(t, b, "expires_at", "2099-01-31")
		// A double click creates one key: the button waits for the first.
		clickJS(t, b, `dialog[open] button[data-action="create"]`)
		_ = eval[bool](t, b, `(() => { const el = document.querySelector('dialog[open] button[data-action="create"]'); if (el) el.click(); return true; })()`)
		b.waitFor(t, "key shown once", `(document.getElementById("new-key-value") || {}).textContent?.startsWith("sk_mg_")`, 10*time.Second)
		b.waitFor(t, "key listed", `document.querySelector('[data-key-name="made-in-browser"]')`, 10*time.Second)
		secret := eval[string](t, b, `document.getElementById("new-key-value").textContent`)
		if res := request(t, "GET", g.URL+"/v1/models", "", bearer(secret)...); res.Status != 200 {
			t.Errorf("the key shown does not work: %d", res.Status)
		}
		var list struct {
			Keys []struct {
				Name      string `json:"name"`
				UserPath  string `json:"user_path"`
				ExpiresAt string `json:"expires_at"`
			} `json:"keys"`
		}
		adminJSON(t, g, "/admin/auth-keys", &list)
		found := 0
		for _, k := range list.Keys {
			if k.Name == "made-in-browser" && k.UserPath == "/ui/made" && strings.HasPrefix(k.ExpiresAt, "2099-01-31T00:00:00") {
				found++
			}
		}
		if found != 1 {
			t.Fatalf("the API lists %d such keys, want 1", found)
		}
		// Grant dashboard access, then delete the key, from the page.
		id := eval[string](t, b, `document.querySelector('[data-key-name="made-in-browser"]').closest("tr").dataset.id`)
		row := `#keys-list tr[data-id="` + id + `"]`
		if res := request(t, "GET", g.URL+"/admin/runtime/config", "", bearer(secret)...); res.Status != 403 {
			t.Fatalf("new key on the admin API: %d", res.Status)
		}
		clickJS(t, b, row+` button[data-action="dashboard"]`)
		b.waitFor(t, "access granted", `document.querySelector('`+row+`') && document.querySelector('`+row+`').textContent.includes("Revoke dashboard")`, 10*time.Second)
		if res := request(t, "GET", g.URL+"/admin/runtime/config", "", bearer(secret)...); res.Status != 200 {
			t.Errorf("granted key on the admin API: %d", res.Status)
		}
		clickJS(t, b, row+` button[data-action="delete"]`)
		clickJS(t, b, `dialog[open] button[data-action="ok"]`)
		b.waitFor(t, "key gone", `!document.querySelector('`+row+`')`, 10*time.Second)
		if res := adminCall(t, g, "GET", "/admin/auth-keys/"+id, ""); res.Status != 404 {
			t.Errorf("deleted key: %d", res.Status)
		}
	})

	t.Run("rate limits", func(t *testing.T) {
		b.open(t, "/admin/dashboard/limits", "limits")
		clickJS(t, b, "#new-rule")
		b.waitFor(t, "dialog", `document.querySelector("dialog[open]")`, 5*time.Second)
		dialogInput(t, b, "subject", "/team/a")
		dialogInput(t, b, "max_requests", "100")
		clickJS(t, b, `dialog[open] button[data-action="save"]`)
		row := `document.querySelector('#rate-limits tr[data-subject="/team/a"][data-period="minute"]')`
		b.waitFor(t, "rule listed", row, 10*time.Second)
		// A new rule with the key of an existing one (case aside) is
		// refused in the form, not saved over it.
		clickJS(t, b, "#new-rule")
		b.waitFor(t, "dialog", `document.querySelector("dialog[open]")`, 5*time.Second)
		dialogInput(t, b, "subject", "/Team/A/")
		dialogInput(t, b, "max_requests", "7")
		clickJS(t, b, `dialog[open] button[data-action="save"]`)
		b.waitFor(t, "duplicate refused", `document.querySelector("dialog[open] .error:not([hidden])")?.textContent.includes("exists already")`, 5*time.Second)
		clickJS(t, b, `dialog[open] button[data-action="cancel"]`)
		if st := rateRule(t, g, "user_path", "/team/a", "minute"); st == nil || st["max_requests"] != 100.0 {
			t.Fatalf("the existing rule changed: %v", st)
		}
		for i := 0; i < 3; i++ {
			chatAs(t, g, "/team/a")
		}
		used := rateUsed(t, g, "user_path", "/team/a", "minute")
		if used < 3 {
			t.Fatalf("API counts %v requests", used)
		}
		b.open(t, "/admin/dashboard/limits", "limits")
		if got := eval[string](t, b, row+`.querySelector("[data-used]").dataset.used`); got != fmt.Sprint(used) {
			t.Errorf("used shown %s, API %v", got, used)
		}
		clickJS(t, b, `#rate-limits tr[data-subject="/team/a"] button[data-action="reset"]`)
		clickJS(t, b, `dialog[open] button[data-action="ok"]`)
		b.waitFor(t, "counter reset", row+`.querySelector("[data-used]").dataset.used === "0"`, 10*time.Second)
		if used := rateUsed(t, g, "user_path", "/team/a", "minute"); used != 0 {
			t.Errorf("API still counts %v", used)
		}
		// A budget created from the page, shown with its bar; an empty
		// amount is refused, not saved as $0.
		clickJS(t, b, "#new-budget")
		dialogInput(t, b, "user_path", "/team/a")
		clickJS(t, b, `dialog[open] button[data-action="save"]`)
		b.waitFor(t, "empty amount refused", `document.querySelector("dialog[open] .error:not([hidden])")?.textContent.includes("amount")`, 5*time.Second)
		dialogInput(t, b, "amount", "5")
		clickJS(t, b, `dialog[open] button[data-action="save"]`)
		b.waitFor(t, "budget listed", `[...document.querySelectorAll("#budgets tbody tr")].some(tr => tr.textContent.includes("/team/a") && tr.textContent.includes("$5.00"))`, 10*time.Second)
		var budgets struct {
			Budgets []struct {
				UserPath string  `json:"user_path"`
				Amount   float64 `json:"amount"`
				Source   string  `json:"source"`
			} `json:"budgets"`
		}
		adminJSON(t, g, "/admin/budgets", &budgets)
		if len(budgets.Budgets) != 1 || budgets.Budgets[0].UserPath != "/team/a" || budgets.Budgets[0].Amount != 5 || budgets.Budgets[0].Source != "manual" {
			t.Errorf("budgets %+v", budgets.Budgets)
		}
		// Reset-all with typed confirmation.
		clickJS(t, b, "#reset-all-rules")
		dialogInput(t, b, "confirmation", "nope")
		clickJS(t, b, `dialog[open] button[data-action="reset"]`)
		b.waitFor(t, "refused confirmation", `document.querySelector("dialog[open] .error:not([hidden])")`, 5*time.Second)
		dialogInput(t, b, "confirmation", "reset")
		clickJS(t, b, `dialog[open] button[data-action="reset"]`)
		b.waitFor(t, "dialog closed", `!document.querySelector("dialog[open]")`, 5*time.Second)
	})

	t.Run("models", func(t *testing.T) {
		// TestDashboardModelsInBrowser checks this page row by row.
		var rows []any
		adminJSON(t, g, "/admin/models", &rows)
		b.open(t, "/admin/dashboard/models", "models")
		if got := eval[string](t, b, `document.getElementById("inventory-count").dataset.count`); got != strconv.Itoa(len(rows)) {
			t.Errorf("inventory shows %s models, API %d", got, len(rows))
		}
	})

	t.Run("live client reconnects with its cursor and handles reset", func(t *testing.T) {
		b.open(t, "/admin/dashboard/keys", "keys")
		// The page's own stream reader against a scripted server: the first
		// connection delivers two events and drops, the second must ask for
		// ?cursor=6 and gets reset, the third must ask from the reset's id.
		script := `(async () => {
			const { openLive } = await import("/admin/static/live.js");
			const urls = [], got = [];
			const answers = [
				"id: 5\nevent: audit\ndata: {\"phase\":\"start\",\"id\":\"a\"}\n\nid: 6\nevent: audit\ndata: {\"phase\":\"complete\",\"id\":\"a\"}\n\n",
				": connected\n\nid: 40\nevent: reset\ndata: {\"last\":40}\n\n",
				": connected\n\nid: 41\nevent: usage\ndata: {\"id\":\"u\"}\n\n",
			];
			const realFetch = window.fetch;
			window.fetch = async (url, init) => {
				urls.push(String(url) + " " + (init.headers.Authorization ? "auth" : "noauth"));
				const text = answers.shift();
				if (text === undefined) return new Promise(() => {});
				return new Response(new Blob([text]).stream(), { status: 200, headers: { "Content-Type": "text/event-stream" } });
			};
			const stop = openLive({
				audit: (p) => got.push("audit " + p.phase),
				usage: (u) => got.push("usage " + u.id),
				reset: (d) => got.push("reset " + d.last),
			});
			const deadline = Date.now() + 8000;
			while (got.length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
			stop();
			window.fetch = realFetch;
			return JSON.stringify({ urls, got });
		})()`
		res, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](script, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		var out struct{ URLs, Got []string }
		if err := json.Unmarshal([]byte(res), &out); err != nil {
			t.Fatal(err)
		}
		wantURLs := []string{"/admin/live/logs auth", "/admin/live/logs?cursor=6 auth", "/admin/live/logs?cursor=40 auth"}
		wantGot := []string{"audit start", "audit complete", "reset 40", "usage u"}
		if fmt.Sprint(out.URLs[:min(3, len(out.URLs))]) != fmt.Sprint(wantURLs) || fmt.Sprint(out.Got) != fmt.Sprint(wantGot) {
			t.Fatalf("urls %q events %q", out.URLs, out.Got)
		}
	})

	t.Run("screenshots", func(t *testing.T) {
		sizes := []struct {
			name string
			w, h int64
		}{{"desktop", 1280, 800}, {"phone", 390, 844}}
		for _, dark := range []bool{false, true} {
			scheme := "light"
			if dark {
				scheme = "dark"
			}
			for _, s := range sizes {
				b.viewport(t, s.w, s.h, dark)
				for _, p := range dashboardPages {
					b.open(t, p.path, p.name)
					// No page is wider than the screen.
					if w := eval[int](t, b, `document.documentElement.scrollWidth`); w > int(s.w)+1 {
						t.Errorf("%s at %dpx: page is %dpx wide", p.path, s.w, w)
					}
					b.screenshot(t, fmt.Sprintf("%s-%s-%s", p.name, s.name, scheme))
				}
			}
		}
		b.viewport(t, 1280, 800, false)
	})

	b.checkClean(t)
	if n := b.requestCount("/admin/live/logs"); n == 0 {
		t.Error("the audit page never opened the live stream")
	}
}
