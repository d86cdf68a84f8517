package e2e

// The dashboard as an operator in another time zone and with live logs
// sees it: chart dates as the gateway counts them, usage arriving live on
// the Usage page, and an audit page opened past the end of the list.

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

func TestDashboardOperatorViews(t *testing.T) {
	skipWithoutChromium(t)
	clearEnv(t)
	g := startGateway(t, mockBlock("admin {\n live_logs_enabled true\n}\n"))
	for i := 0; i < 3; i++ {
		chatAs(t, g, "/views/a")
	}
	waitAudited(t, g, 3)

	b := newBrowser(t, g.URL)
	b.viewport(t, 1280, 800, false)
	// West of UTC, so that 00:00 UTC falls on the previous local day.
	if _, err := chromedp.Call(b.ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "America/Los_Angeles"}); err != nil {
		t.Fatal(err)
	}
	signIn(t, b, g)

	t.Run("day buckets are labelled with the UTC date the gateway counts them under", func(t *testing.T) {
		var stats struct {
			Interval string `json:"interval"`
			Buckets  []struct {
				Start time.Time `json:"start"`
			} `json:"buckets"`
		}
		adminJSON(t, g, "/admin/audit/stats?days=7", &stats)
		if stats.Interval != "day" {
			t.Fatalf("interval %q", stats.Interval)
		}
		var want []string
		for _, bk := range stats.Buckets {
			want = append(want, bk.Start.UTC().Format("01-02"))
		}
		b.open(t, "/admin/dashboard", "overview")
		clickJS(t, b, `.seg button[data-value="7d"]`)
		b.waitFor(t, "7-day chart", `document.body.innerText.includes("the last 7 days") && document.querySelector("#chart-status svg")`, 10*time.Second)
		raw := eval[string](t, b, `JSON.stringify([...document.querySelectorAll('#chart-status svg text[text-anchor="middle"]')].map(e => e.textContent))`)
		var got []string
		if err := json.Unmarshal([]byte(raw), &got); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("labels %q, want %q", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("labels %q, want %q (the UTC dates of the API's buckets)", got, want)
			}
		}
		// The tokens chart names the same last day.
		lastTokens := eval[string](t, b, `[...document.querySelectorAll('#chart-tokens svg text[text-anchor="middle"]')].pop().textContent`)
		if lastTokens != want[len(want)-1] {
			t.Errorf("tokens chart ends on %q, status chart on %q", lastTokens, want[len(want)-1])
		}
	})

	t.Run("usage page shows each request's usage as it finishes", func(t *testing.T) {
		var before struct {
			TotalRequests int64 `json:"total_requests"`
		}
		adminJSON(t, g, "/admin/usage/summary?days=30", &before)
		b.open(t, "/admin/dashboard/usage", "usage")
		b.waitFor(t, "live stream connected", `document.getElementById("live-state").textContent === "Live"`, 10*time.Second)
		if got := figure(t, b, "total_requests"); got != thousands(before.TotalRequests) {
			t.Fatalf("requests shown %q, API %d", got, before.TotalRequests)
		}
		res := request(t, "POST", g.URL+"/v1/chat/completions", mockChat, append(bearer(masterKey), userPathHeader, "/views/live")...)
		if res.Status != 200 {
			t.Fatalf("chat: %d %s", res.Status, res.Body)
		}
		var answer struct {
			Usage struct {
				TotalTokens int64 `json:"total_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal(res.Body, &answer); err != nil || answer.Usage.TotalTokens == 0 {
			t.Fatalf("chat answer %s: %v", res.Body, err)
		}
		row := `[...document.querySelectorAll("#usage-live tbody tr")].find(tr => tr.textContent.includes("/views/live"))`
		b.waitFor(t, "the live usage row", row, 10*time.Second)
		if got := eval[string](t, b, row+`.cells[6].textContent`); got != thousands(answer.Usage.TotalTokens) {
			t.Errorf("live row shows %s tokens, the answer counted %d", got, answer.Usage.TotalTokens)
		}
		if got := eval[string](t, b, `document.querySelector("#usage-live-since [data-count]").dataset.count`); got != "1" {
			t.Errorf("%s requests counted since the figures were read, want 1", got)
		}
		// Refresh reads the figures again, the new request among them once
		// storage has it.
		var after struct {
			TotalRequests int64 `json:"total_requests"`
		}
		poll(t, 10*time.Second, "the usage record stored", func() bool {
			adminJSON(t, g, "/admin/usage/summary?days=30", &after)
			return after.TotalRequests > before.TotalRequests
		})
		clickJS(t, b, "#usage-refresh")
		b.waitFor(t, "figures read again", `document.querySelector('[data-figure="total_requests"]').textContent === "`+thousands(after.TotalRequests)+`" && !document.querySelector("#usage-live-since [data-count]")`, 10*time.Second)
	})

	t.Run("an audit page past the end of the list shows the last page", func(t *testing.T) {
		total := auditTotal(t, g)
		if total == 0 || total > 50 {
			t.Fatalf("%d entries: the test wants one page", total)
		}
		b.open(t, "/admin/dashboard/audit?offset=5000", "audit")
		b.waitFor(t, "the last page", `new URLSearchParams(location.search).get("offset") === null && document.querySelectorAll("#audit-list tbody tr[data-id]").length > 0`, 10*time.Second)
		if n := eval[int](t, b, `document.querySelectorAll("#audit-list tbody tr[data-id]").length`); n != total {
			t.Errorf("%d rows, API %d entries", n, total)
		}
		want := "1–" + thousands(int64(total)) + " of " + thousands(int64(total))
		if got := eval[string](t, b, `document.getElementById("audit-total").textContent`); got != want {
			t.Errorf("footer %q, want %q", got, want)
		}
	})

	b.checkClean(t)
}

// TestDashboardFeaturesOff: with the audit log, usage tracking and rate
// limiting switched off, the pages say so instead of showing zeros and
// unenforced rules as if they were live.
func TestDashboardFeaturesOff(t *testing.T) {
	skipWithoutChromium(t)
	clearEnv(t)
	t.Setenv("LOGGING_ENABLED", "false")
	t.Setenv("USAGE_ENABLED", "false")
	t.Setenv("RATE_LIMITS_ENABLED", "false")
	g := startGateway(t, mockBlock("admin {\n live_logs_enabled true\n}\n"))
	if res := adminCall(t, g, "PUT", "/admin/rate-limits", `{"user_path":"/off","period":"minute","max_requests":1}`); res.Status != 200 {
		t.Fatalf("rule: %d %s", res.Status, res.Body)
	}
	b := newBrowser(t, g.URL)
	b.viewport(t, 1280, 800, false)
	signIn(t, b, g)
	for _, c := range []struct{ path, page, off string }{
		{"/admin/dashboard", "overview", "logging_enabled"},
		{"/admin/dashboard", "overview", "usage_enabled"},
		{"/admin/dashboard/audit", "audit", "logging_enabled"},
		{"/admin/dashboard/usage", "usage", "usage_enabled"},
		{"/admin/dashboard/limits", "limits", "rate_limits_enabled"},
	} {
		b.open(t, c.path, c.page)
		if !eval[bool](t, b, `!!document.querySelector('[data-off="`+c.off+`"]')`) {
			t.Errorf("%s does not say that %s is off", c.path, c.off)
		}
	}
	b.open(t, "/admin/dashboard/audit", "audit")
	if got := eval[string](t, b, `document.getElementById("live-state").textContent`); got == "Live" {
		t.Error("the audit page shows Live while nothing is recorded")
	}
	b.open(t, "/admin/dashboard/usage", "usage")
	if got := eval[string](t, b, `document.getElementById("live-state").textContent`); got == "Live" {
		t.Error("the usage page shows Live while no usage is recorded")
	}
	b.open(t, "/admin/dashboard/keys", "keys")
	if eval[bool](t, b, `!!document.querySelector("[data-off]")`) {
		t.Error("the keys page shows a feature-off notice")
	}
	b.checkClean(t)
}

// TestDashboardLiveStreamSignsOut: when the key a page follows the live
// stream with loses its dashboard access (403) or is deleted (401), the
// stream's next connection sends the operator back to sign-in, as every
// other admin call does; live logs switched off (404) still read "not
// available" and keep the operator signed in.
func TestDashboardLiveStreamSignsOut(t *testing.T) {
	skipWithoutChromium(t)
	clearEnv(t)
	liveOn := mockBlock("admin {\n live_logs_enabled true\n}\n")
	g := startGateway(t, liveOn)
	b := newBrowser(t, g.URL)
	b.viewport(t, 1280, 800, false)

	// follow signs in with key and opens a page until its stream is live.
	follow := func(t *testing.T, key, path, page string) {
		t.Helper()
		b.do(t, "open", chromedp.Navigate(g.URL+"/admin/dashboard"))
		eval[bool](t, b, `(sessionStorage.clear(), true)`)
		signInWith(t, b, g, key)
		b.open(t, path, page)
		b.waitFor(t, "live stream connected", `document.getElementById("live-state").textContent === "Live"`, 10*time.Second)
	}
	// dropStreams reloads the gateway with block: the reload ends the open
	// streams, and the page connects again.
	dropStreams := func(t *testing.T, block string) {
		t.Helper()
		if err := g.reload(t, block); err != nil {
			t.Fatal(err)
		}
	}
	signedOut := func(t *testing.T, status string) {
		t.Helper()
		b.waitFor(t, "sign-in saying "+status, `!document.getElementById("login").hidden && document.getElementById("login-error").textContent.includes("(`+status+`)")`, 15*time.Second)
		if got := eval[string](t, b, `sessionStorage.getItem("modelgate.adminKey") || ""`); got != "" {
			t.Errorf("the refused key is still stored: %q", got)
		}
	}

	t.Run("dashboard access revoked", func(t *testing.T) {
		k := createKey(t, g, `{"name":"viewer","dashboard_access":true}`)
		follow(t, k.Secret, "/admin/dashboard/audit", "audit")
		if res := adminCall(t, g, "PATCH", "/admin/auth-keys/"+k.ID, `{"dashboard_access":false}`); res.Status != 200 {
			t.Fatalf("revoking: %d %s", res.Status, res.Body)
		}
		dropStreams(t, liveOn)
		signedOut(t, "403")
	})

	t.Run("key deleted", func(t *testing.T) {
		k := createKey(t, g, `{"name":"leaver","dashboard_access":true}`)
		follow(t, k.Secret, "/admin/dashboard/usage", "usage")
		if res := adminCall(t, g, "DELETE", "/admin/auth-keys/"+k.ID, ""); res.Status >= 300 {
			t.Fatalf("deleting: %d %s", res.Status, res.Body)
		}
		dropStreams(t, liveOn)
		signedOut(t, "401")
	})

	t.Run("live logs switched off", func(t *testing.T) {
		follow(t, masterKey, "/admin/dashboard/audit", "audit")
		dropStreams(t, mockBlock(""))
		b.waitFor(t, "not available", `document.getElementById("live-state").textContent === "Live: not available"`, 15*time.Second)
		if eval[bool](t, b, `!document.getElementById("login").hidden || document.body.dataset.ready !== "audit"`) {
			t.Error("a stream switched off left the page")
		}
	})

	b.checkClean(t)
}

// TestDashboardLimitRows: the rate-limit rows as the API reports them,
// and their buttons within reach on a phone.
func TestDashboardLimitRows(t *testing.T) {
	skipWithoutChromium(t)
	clearEnv(t)
	g := startGateway(t, mockBlock(""))
	for _, body := range []string{
		`{"user_path":"/rows/tokens","period":"minute","max_tokens":100000}`,
		`{"user_path":"/rows/requests","period":"minute","max_requests":100}`,
		`{"user_path":"/rows/both/with/a/longer/path","period":"hour","max_requests":1000,"max_tokens":1000000}`,
	} {
		if res := adminCall(t, g, "PUT", "/admin/rate-limits", body); res.Status != 200 {
			t.Fatalf("rule %s: %d %s", body, res.Status, res.Body)
		}
	}
	if res := adminCall(t, g, "PUT", "/admin/budgets/%2Frows%2Fboth/monthly", `{"amount":25}`); res.Status != 200 {
		t.Fatalf("budget: %d %s", res.Status, res.Body)
	}
	createKey(t, g, `{"name":"a-key-with-a-name","user_path":"/rows/tokens"}`)
	chatAs(t, g, "/rows/tokens")
	chatAs(t, g, "/rows/tokens")
	chatAs(t, g, "/rows/requests")
	b := newBrowser(t, g.URL)
	b.viewport(t, 1280, 800, false)
	signIn(t, b, g)

	t.Run("a rule on one measure shows what it counted of the other", func(t *testing.T) {
		used := rateUsed(t, g, "user_path", "/rows/tokens", "minute")
		if used != 2 {
			t.Fatalf("API counts %v requests, want 2", used)
		}
		b.open(t, "/admin/dashboard/limits", "limits")
		cell := `document.querySelector('#rate-limits tr[data-subject="/rows/tokens"]').cells[3]`
		if got := eval[string](t, b, cell+`.textContent`); got != "2 requests" {
			t.Errorf("requests cell %q, want %q", got, "2 requests")
		}
		if got := eval[string](t, b, `(`+cell+`.querySelector("[data-used]") || {dataset: {}}).dataset.used || ""`); got != "2" {
			t.Errorf("data-used %q, want 2", got)
		}
		// A rule on requests only shows the tokens it counted.
		tokens, _ := rateRule(t, g, "user_path", "/rows/requests", "minute")["tokens_used"].(float64)
		if tokens == 0 {
			t.Fatal("API counts no tokens for the rule on requests only")
		}
		want := fmt.Sprintf("%.0f tokens", tokens)
		if got := eval[string](t, b, `document.querySelector('#rate-limits tr[data-subject="/rows/requests"]').cells[4].textContent`); got != want {
			t.Errorf("tokens cell %q, want %q", got, want)
		}
		// A rule with a request cap shows used against the cap.
		if got := eval[string](t, b, `document.querySelector('#rate-limits tr[data-subject="/rows/both/with/a/longer/path"]').cells[3].textContent`); got != "0 / 1,000 requests" {
			t.Errorf("capped requests cell %q", got)
		}
	})

	// Every row button of the page's tables, and whether it lies within
	// its table's box, which has nothing to scroll sideways.
	const reach = `JSON.stringify([...document.querySelectorAll("td button[data-action]")].map(el => {
		const wrap = el.closest(".tablewrap"), r = el.getBoundingClientRect(), w = wrap.getBoundingClientRect();
		return { button: el.closest("[id]").id + " " + el.textContent, inside: r.left >= w.left - 0.5 && r.right <= w.right + 0.5 && r.right <= innerWidth,
			scrolls: wrap.scrollWidth > wrap.clientWidth };
	}))`
	type reached struct {
		Button  string
		Inside  bool
		Scrolls bool
	}
	checkReach := func(t *testing.T, want int) {
		t.Helper()
		var got []reached
		if err := json.Unmarshal([]byte(eval[string](t, b, reach)), &got); err != nil {
			t.Fatal(err)
		}
		if len(got) < want {
			t.Fatalf("%d row buttons, want at least %d", len(got), want)
		}
		for _, r := range got {
			if !r.Inside || r.Scrolls {
				t.Errorf("%s: within the table %v, table scrolls sideways %v", r.Button, r.Inside, r.Scrolls)
			}
		}
	}

	t.Run("row actions fit a phone screen", func(t *testing.T) {
		b.viewport(t, 390, 844, false)
		defer b.viewport(t, 1280, 800, false)
		b.open(t, "/admin/dashboard/limits", "limits")
		b.screenshot(t, "limits-rows-phone")
		checkReach(t, 2*3+3)
		b.open(t, "/admin/dashboard/keys", "keys")
		checkReach(t, 3)
	})

	t.Run("row actions stay beside the row on a desktop", func(t *testing.T) {
		b.open(t, "/admin/dashboard/limits", "limits")
		checkReach(t, 2*3+3)
		// The actions are the last cell of their row, on the row's line.
		if !eval[bool](t, b, `[...document.querySelectorAll("#rate-limits tbody tr, #budgets tbody tr")].every(tr => {
			const last = tr.cells[tr.cells.length - 1], first = tr.cells[0];
			return last.querySelector("button") && last.getBoundingClientRect().top === first.getBoundingClientRect().top;
		})`) {
			t.Error("the row actions left their row on a desktop")
		}
	})

	b.checkClean(t)
}

// TestDashboardAuditFiltersFit: every audit filter field is wide enough
// for its placeholder, on a desktop and on a phone.
func TestDashboardAuditFiltersFit(t *testing.T) {
	skipWithoutChromium(t)
	clearEnv(t)
	g := startGateway(t, mockBlock(""))
	b := newBrowser(t, g.URL)
	b.viewport(t, 1280, 800, false)
	signIn(t, b, g)
	// The placeholders wider than their field's text box, as the field's
	// own font draws them.
	const cut = `JSON.stringify([...document.querySelectorAll("#audit-filters input[placeholder]")].filter(el => {
		const cs = getComputedStyle(el), ctx = document.createElement("canvas").getContext("2d");
		ctx.font = cs.font;
		const room = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
		return ctx.measureText(el.placeholder).width > room;
	}).map(el => el.placeholder + " (" + el.clientWidth + " px)"))`
	for _, s := range []struct {
		name string
		w, h int64
	}{{"desktop", 1280, 800}, {"phone", 390, 844}} {
		b.viewport(t, s.w, s.h, false)
		b.open(t, "/admin/dashboard/audit", "audit")
		b.screenshot(t, "audit-filters-"+s.name)
		if got := eval[string](t, b, cut); got != "[]" {
			t.Errorf("%s: placeholders cut off: %s", s.name, got)
		}
	}
	b.checkClean(t)
}
