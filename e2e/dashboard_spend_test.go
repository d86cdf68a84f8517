package e2e

// Who spent what in a real browser: the usage page's breakdowns by user
// path (a tree), key, model and provider show the rows the breakdown API
// returns; a row opens the audit log filtered to it; the filters live in
// the URL's hash and survive opening an entry and going back; a row opens
// with the keyboard; the entry page shows the cost.

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// spendRow is a breakdown row as the API answers it.
type spendRow struct {
	Group       string   `json:"group"`
	Name        *string  `json:"name"`
	Requests    int64    `json:"requests"`
	TotalCost   *float64 `json:"total_cost"`
	CacheHits   int64    `json:"cache_hits"`
	CostAvoided float64  `json:"cost_avoided"`
}

// spendPage is a breakdown page as the API answers it.
type spendPage struct {
	StartDate string     `json:"start_date"`
	EndDate   string     `json:"end_date"`
	Rows      []spendRow `json:"rows"`
}

// shownRow is a breakdown row as the page shows it.
type shownRow struct {
	Group    string `json:"group"`
	Name     string `json:"name"`
	Requests string `json:"requests"`
	Cost     string `json:"cost"`
	Hits     string `json:"hits"`
	Avoided  string `json:"avoided"`
	Level    string `json:"level"`
}

// shownRows reads the rows of the breakdown table in box.
func shownRows(t *testing.T, b *browser, box string) []shownRow {
	t.Helper()
	js := `JSON.stringify([...document.querySelectorAll("#` + box + ` tbody tr[data-group]")].map(tr => ({
		group: tr.dataset.group, level: tr.dataset.level || "",
		name: tr.querySelector("[data-name]").textContent,
		requests: tr.querySelector("[data-requests]").dataset.requests,
		cost: tr.querySelector("[data-cost]").dataset.cost,
		hits: tr.querySelector("[data-hits]").dataset.hits,
		avoided: tr.querySelector("[data-avoided]").dataset.avoided })))`
	var rows []shownRow
	if err := json.Unmarshal([]byte(eval[string](t, b, js)), &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

// sameMoney reports whether a figure the page keeps equals the API's.
func sameMoney(shown string, api *float64) bool {
	if api == nil {
		return shown == ""
	}
	var v float64
	if _, err := fmt.Sscan(shown, &v); err != nil {
		return false
	}
	return math.Abs(v-*api) < 1e-12
}

// compareRows fails the test unless the page shows exactly the API's rows.
func compareRows(t *testing.T, what string, shown []shownRow, api []spendRow) {
	t.Helper()
	if len(shown) != len(api) {
		t.Errorf("%s: %d rows shown, API %d: %+v", what, len(shown), len(api), shown)
		return
	}
	for i, r := range api {
		s := shown[i]
		avoided := r.CostAvoided
		if s.Group != r.Group || s.Requests != fmt.Sprint(r.Requests) || !sameMoney(s.Cost, r.TotalCost) ||
			s.Hits != fmt.Sprint(r.CacheHits) || !sameMoney(s.Avoided, &avoided) {
			t.Errorf("%s row %d: shown %+v, API %+v", what, i, s, r)
		}
		if r.Name != nil && s.Name != *r.Name {
			t.Errorf("%s row %d: name %q, API %q", what, i, s.Name, *r.Name)
		}
	}
}

// startSpendGateway starts a gateway over two priced replay providers and
// the (unpriced) mock, with the response cache and per-child templates
// on, and sends traffic over
// two managed keys and the master key, three user paths, three models and
// providers, with cache hits and a failure.
func startSpendGateway(t *testing.T) (*gateway, managedKey, managedKey) {
	t.Helper()
	clearEnv(t)
	t.Setenv("RESPONSE_CACHE_ENABLED", "true")
	t.Setenv("GATEWAY_ENTITLEMENTS", "quota_templates") // per-child templates
	g, k1, k2 := startAttributionGateway(t, "provider demo {\n type mock\n}\n")
	calls := append(attributionCalls(k1, k2), []attributionCall{
		{masterKey, "/org/c", "/v1/chat/completions", mockChat, 200},
		{masterKey, "/solo", "/v1/chat/completions", mockChat, 200},
		{k2.Secret, "", "/v1/chat/completions", `{"model":"no-such-model","messages":[{"role":"user","content":"x"}]}`, 404},
	}...)
	sendAttribution(t, g, calls)
	waitAudited(t, g, len(calls))
	poll(t, 10*time.Second, "the usage of every successful call", func() bool {
		var p spendPage
		adminJSON(t, g, "/admin/usage/breakdown?by=provider&days=30", &p)
		n := int64(0)
		for _, r := range p.Rows {
			n += r.Requests
		}
		return n >= int64(len(calls)-1)
	})
	return g, k1, k2
}

func TestDashboardSpend(t *testing.T) {
	skipWithoutChromium(t)
	g, k1, _ := startSpendGateway(t)
	b := newBrowser(t, g.URL)
	b.viewport(t, 1280, 800, false)
	signIn(t, b, g)

	breakdown := func(query string) spendPage {
		var p spendPage
		adminJSON(t, g, "/admin/usage/breakdown?days=30&limit=200&"+query, &p)
		return p
	}

	t.Run("usage page shows the breakdown API's rows", func(t *testing.T) {
		b.open(t, "/admin/dashboard/usage", "usage")
		for _, by := range []string{"key", "model", "provider"} {
			api := breakdown("by=" + by)
			if len(api.Rows) < 2 {
				t.Fatalf("by=%s: %d rows", by, len(api.Rows))
			}
			compareRows(t, "by "+by, shownRows(t, b, "spend-"+by), api.Rows)
		}
		compareRows(t, "by user path", shownRows(t, b, "spend-user_path"), breakdown("by=user_path&depth=1").Rows)
		// The key rows are named by the key's name.
		if !strings.Contains(eval[string](t, b, `document.querySelector('#spend-key tr[data-group="`+k1.ID+`"]').textContent`), "alpha") {
			t.Error("the key row does not show the key's name")
		}
		var hits, avoided float64
		for _, r := range breakdown("by=provider").Rows {
			hits += float64(r.CacheHits)
			avoided += r.CostAvoided
		}
		if hits != 2 || avoided <= 0 {
			t.Fatalf("API: %v cache hits saving %v", hits, avoided)
		}
		if got := figure(t, b, "cache_hits"); got != "2" {
			t.Errorf("cache hits shown %q", got)
		}
		b.screenshot(t, "usage-spend-desktop-light")
	})

	t.Run("the user path tree opens level by level", func(t *testing.T) {
		b.open(t, "/admin/dashboard/usage", "usage")
		clickJS(t, b, `#spend-user_path tr[data-group="/org"] button[data-action="expand"]`)
		b.waitFor(t, "the paths under /org", `document.querySelector('#spend-user_path tr[data-group="/org"]').dataset.loaded`, 10*time.Second)
		var level1 []shownRow
		for _, r := range shownRows(t, b, "spend-user_path") {
			if r.Level == "1" {
				level1 = append(level1, r)
			}
		}
		compareRows(t, "under /org", level1, breakdown("by=user_path&user_path=/org&depth=2").Rows)
		if eval[string](t, b, `document.querySelector('#spend-user_path tr[data-group="/org"] button').getAttribute("aria-expanded")`) != "true" {
			t.Error("the open row's button is not marked expanded")
		}
		clickJS(t, b, `#spend-user_path tr[data-group="/org/b"] button[data-action="expand"]`)
		b.waitFor(t, "the paths under /org/b", `document.querySelector('#spend-user_path tr[data-group="/org/b/x"][data-level="2"]')`, 10*time.Second)
		// Closing /org removes every row under it.
		clickJS(t, b, `#spend-user_path tr[data-group="/org"] button[data-action="expand"]`)
		if n := eval[int](t, b, `document.querySelectorAll('#spend-user_path tr[data-level="1"], #spend-user_path tr[data-level="2"]').length`); n != 0 {
			t.Errorf("%d rows left under a closed path", n)
		}
	})

	t.Run("a row opens the audit log filtered to it", func(t *testing.T) {
		api := breakdown("by=model")
		b.open(t, "/admin/dashboard/usage", "usage")
		clickJS(t, b, `#spend-model tr[data-group="gpt-4o-mini"] td`)
		b.waitFor(t, "the filtered audit log", `location.pathname === "/admin/dashboard/audit" && document.body.dataset.ready === "audit"`, 10*time.Second)
		hash, _ := url.ParseQuery(strings.TrimPrefix(eval[string](t, b, "location.hash"), "#"))
		if hash.Get("model") != "gpt-4o-mini" || hash.Get("start_date") != api.StartDate || hash.Get("end_date") != api.EndDate {
			t.Fatalf("audit log hash %v", hash)
		}
		var page struct{ Total int }
		adminJSON(t, g, "/admin/audit/log?limit=1&"+hash.Encode(), &page)
		var want int64
		for _, r := range api.Rows {
			if r.Group == "gpt-4o-mini" {
				want = r.Requests
			}
		}
		if page.Total != int(want) {
			t.Errorf("the audit log lists %d entries of the model, the breakdown %d", page.Total, want)
		}
		b.waitFor(t, "the filtered rows", fmt.Sprintf(`document.getElementById("audit-total") && document.getElementById("audit-total").dataset.total === "%d"`, page.Total), 10*time.Second)
		if n := eval[int](t, b, `[...document.querySelectorAll("#audit-list tbody tr[data-id]")].filter(tr => tr.textContent.includes("gpt-4o-mini")).length`); n != page.Total {
			t.Errorf("%d rows of the model, want %d", n, page.Total)
		}
		// A user path's row lists that path and the paths below it.
		b.open(t, "/admin/dashboard/usage", "usage")
		clickJS(t, b, `#spend-user_path tr[data-group="/org"] td:nth-child(2)`)
		b.waitFor(t, "the path's audit log", `location.hash.includes("user_path_under=%2Forg") && document.body.dataset.ready === "audit" && document.getElementById("audit-total")`, 10*time.Second)
		hash, _ = url.ParseQuery(strings.TrimPrefix(eval[string](t, b, "location.hash"), "#"))
		adminJSON(t, g, "/admin/audit/log?limit=1&"+hash.Encode(), &page)
		if page.Total != 9 {
			t.Errorf("the API lists %d entries under /org, want 9", page.Total)
		}
		b.waitFor(t, "the rows under /org", fmt.Sprintf(`document.getElementById("audit-total").dataset.total === "%d"`, page.Total), 10*time.Second)
		if n := eval[int](t, b, `[...document.querySelectorAll("#audit-list tbody tr[data-id]")].filter(tr => tr.textContent.includes("/org/")).length`); n != page.Total {
			t.Errorf("%d rows under /org, want %d", n, page.Total)
		}
		if got := eval[string](t, b, `document.querySelector('#audit-chips [data-filter="user_path_under"]').textContent`); !strings.Contains(got, "under /org") {
			t.Errorf("the filter chip reads %q", got)
		}
		// A key row filters by the key.
		b.open(t, "/admin/dashboard/usage", "usage")
		clickJS(t, b, `#spend-key tr[data-group="`+k1.ID+`"] td`)
		b.waitFor(t, "the key's audit log", `location.hash.includes("key_id=`+k1.ID+`") && document.body.dataset.ready === "audit" && document.getElementById("audit-total")`, 10*time.Second)
		adminJSON(t, g, "/admin/audit/log?limit=1&key_id="+k1.ID, &page)
		b.waitFor(t, "the key's rows", fmt.Sprintf(`document.getElementById("audit-total").dataset.total === "%d"`, page.Total), 10*time.Second)
		if page.Total != 3 || eval[string](t, b, `document.querySelector('#audit-filters [name="key_id"]').value`) != k1.ID {
			t.Errorf("key filter: %d entries, select %q", page.Total, eval[string](t, b, `document.querySelector('#audit-filters [name="key_id"]').value`))
		}
	})

	t.Run("filters survive an entry and back; Enter opens a row; the entry shows its cost", func(t *testing.T) {
		b.open(t, "/admin/dashboard/audit", "audit")
		b.do(t, "filter", chromedp.SetValue(chromedp.CSS(`#audit-filters [name="user_path"]`), "/org/b/x"),
			chromedp.SetValue(chromedp.CSS(`#audit-filters [name="status"]`), "2xx"))
		clickJS(t, b, `#audit-filters button[type="submit"]`)
		var page struct {
			Total   int
			Entries []struct {
				ID   string `json:"id"`
				Cost *struct {
					Total  float64 `json:"total"`
					Input  float64 `json:"input"`
					Source string  `json:"source"`
				} `json:"cost"`
				CacheType string `json:"cache_type"`
			}
		}
		adminJSON(t, g, "/admin/audit/log?user_path=/org/b/x&status=2xx", &page)
		if page.Total != 3 {
			t.Fatalf("API lists %d entries", page.Total)
		}
		b.waitFor(t, "filtered list", `document.getElementById("audit-total").dataset.total === "3" && location.hash.includes("user_path=%2Forg%2Fb%2Fx")`, 10*time.Second)
		// The newest priced entry, opened with the keyboard.
		i := 0
		for page.Entries[i].Cost == nil || page.Entries[i].CacheType != "" {
			i++
		}
		e := page.Entries[i]
		eval[bool](t, b, `(document.querySelector('#audit-list tr[data-id="`+e.ID+`"]').focus(), true)`)
		if !eval[bool](t, b, `document.activeElement.dataset.id === "`+e.ID+`"`) {
			t.Fatal("the row does not take the focus")
		}
		b.do(t, "Enter", chromedp.KeyEvent(kb.Enter))
		b.waitFor(t, "the entry", `location.search === "?id=`+e.ID+`" && document.getElementById("cost")`, 10*time.Second)
		shown := eval[string](t, b, `document.querySelector('#cost [data-cost]').dataset.cost + " " + document.querySelector('#cost [data-cost-source]').textContent`)
		if want := fmt.Sprint(e.Cost.Total) + " " + e.Cost.Source; shown != want || e.Cost.Source == "" {
			t.Errorf("entry cost shown %q, API %q", shown, want)
		}
		if !strings.HasPrefix(eval[string](t, b, `document.querySelector('#cost [data-cost]').textContent`), "$") {
			t.Error("the cost is not shown in dollars")
		}
		b.screenshot(t, "audit-entry-cost-desktop-light")
		eval[bool](t, b, `(history.back(), true)`)
		b.waitFor(t, "the list again", `document.body.dataset.ready === "audit" && !location.search && document.getElementById("audit-total")`, 10*time.Second)
		b.waitFor(t, "still filtered", `document.getElementById("audit-total").dataset.total === "3"`, 10*time.Second)
		if got := eval[string](t, b, `document.querySelector('#audit-filters [name="user_path"]').value + " " + document.querySelector('#audit-filters [name="status"]').value`); got != "/org/b/x 2xx" {
			t.Errorf("filters after back: %q", got)
		}
	})

	b.checkClean(t)
}
