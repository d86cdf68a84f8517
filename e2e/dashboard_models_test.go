package e2e

// The dashboard's Models page in a real browser, against a gateway with
// two mock provider instances (one serving catalog models with prices),
// a managed virtual model and a managed failover route from the YAML
// file: the inventory rows match GET /admin/models cell by cell, managed
// rows are read-only, and a virtual model and a failover route are
// created, renamed and deleted through the page and the admin API sees
// each step.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// inventoryRow is one row of GET /admin/models as the Models page reads it.
type inventoryRow struct {
	ProviderName string `json:"provider_name"`
	ProviderType string `json:"provider_type"`
	Selector     string `json:"selector"`
	Model        struct {
		ID       string `json:"id"`
		Metadata *struct {
			Categories    []string `json:"categories"`
			ContextWindow int64    `json:"context_window"`
			Pricing       *struct {
				In  *float64 `json:"input_per_mtok"`
				Out *float64 `json:"output_per_mtok"`
			} `json:"pricing"`
		} `json:"metadata"`
	} `json:"model"`
	Access struct {
		EffectiveEnabled bool     `json:"effective_enabled"`
		UserPaths        []string `json:"user_paths"`
		Override         *struct {
			Source string `json:"source"`
		} `json:"override"`
	} `json:"access"`
}

// cells are the texts the Models page shows for the row: model id,
// provider, categories, context window, input and output price, access.
func (r inventoryRow) cells() []string {
	cats, ctx, in, out := "–", "–", "–", "–"
	usd := func(p *float64) string {
		if p == nil {
			return "–"
		}
		return "$" + strconv.FormatFloat(*p, 'f', -1, 64)
	}
	if md := r.Model.Metadata; md != nil {
		if len(md.Categories) > 0 {
			cats = strings.Join(md.Categories, ", ")
		}
		if md.ContextWindow > 0 {
			ctx = thousands(md.ContextWindow)
		}
		if md.Pricing != nil {
			in, out = usd(md.Pricing.In), usd(md.Pricing.Out)
		}
	}
	access := "disabled"
	if r.Access.EffectiveEnabled {
		access = "enabled"
	}
	if len(r.Access.UserPaths) > 0 {
		access += " · " + strings.Join(r.Access.UserPaths, ", ")
	}
	if r.Access.Override != nil {
		access += " · by " + r.Access.Override.Source
	}
	return []string{r.Model.ID, r.ProviderName + " (" + r.ProviderType + ")", cats, ctx, in, out, access}
}

// vmodelRow is one row of GET /admin/virtual-models.
type vmodelRow struct {
	Source      string `json:"source"`
	Description string `json:"description"`
	Strategy    string `json:"strategy"`
	Targets     []struct {
		Provider string  `json:"provider"`
		Model    string  `json:"model"`
		Weight   float64 `json:"weight"`
	} `json:"targets"`
	UserPaths []string `json:"user_paths"`
	Managed   bool     `json:"managed"`
}

// failoverRow is one route of GET /admin/failover.
type failoverRow struct {
	PrimaryModel string   `json:"primary_model"`
	Targets      []string `json:"targets"`
	Managed      bool     `json:"managed"`
}

// virtualModels returns the rows of GET /admin/virtual-models by source.
func virtualModels(t *testing.T, g *gateway) map[string]vmodelRow {
	t.Helper()
	var l struct {
		VirtualModels []vmodelRow `json:"virtual_models"`
	}
	adminJSON(t, g, "/admin/virtual-models", &l)
	out := map[string]vmodelRow{}
	for _, r := range l.VirtualModels {
		out[r.Source] = r
	}
	return out
}

// failoverRoutes returns the routes of GET /admin/failover by primary.
func failoverRoutes(t *testing.T, g *gateway) map[string]failoverRow {
	t.Helper()
	var l struct {
		Routes []failoverRow `json:"routes"`
	}
	adminJSON(t, g, "/admin/failover", &l)
	out := map[string]failoverRow{}
	for _, r := range l.Routes {
		out[r.PrimaryModel] = r
	}
	return out
}

// signIn signs the tab in with the master key through the login form.
func signIn(t *testing.T, b *browser, g *gateway) {
	t.Helper()
	signInWith(t, b, g, masterKey)
}

// signInWith signs the tab in with key through the login form.
func signInWith(t *testing.T, b *browser, g *gateway, key string) {
	t.Helper()
	b.do(t, "open", chromedp.Navigate(g.URL+"/admin/dashboard"))
	b.waitFor(t, "login form", `!document.getElementById("login").hidden`, 10*time.Second)
	b.do(t, "sign in", chromedp.SetValue(chromedp.ID("login-key"), key), chromedp.Click(chromedp.CSS(`#login-form button[type="submit"]`)))
	b.waitFor(t, "overview", `document.body.dataset.ready === "overview"`, 15*time.Second)
}

// pageInventory returns the inventory rows the Models page shows: the
// selector, then the text of every cell.
func pageInventory(t *testing.T, b *browser) [][]string {
	t.Helper()
	raw := eval[string](t, b, `JSON.stringify([...document.querySelectorAll("#inventory tbody tr[data-selector]")].map(tr => [tr.dataset.selector, ...[...tr.cells].map(c => c.textContent)]))`)
	var rows [][]string
	if err := json.Unmarshal([]byte(raw), &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestDashboardModelsInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	clearEnv(t)
	yaml := writeFile(t, "models.yaml", `virtual_models:
  - source: fast-chat
    description: from the YAML file
    targets: [{provider: demo, model: mock-chat, weight: 2}, {provider: priced, model: gpt-4o}]
failover:
  demo/mock-reasoner: [demo/mock-chat]
`)
	g := startGateway(t, mockBlock("config_file "+yaml+"\n"+
		providerBlock("priced", "mock", "", "", "models gpt-4o text-embedding-3-small", "models_mode allowlist")))
	var api []inventoryRow
	poll(t, 10*time.Second, "the inventory lists both providers", func() bool {
		adminJSON(t, g, "/admin/models", &api)
		got := map[string]bool{}
		for _, r := range api {
			got[r.Selector] = true
		}
		return got["demo/mock-chat"] && got["priced/gpt-4o"]
	})
	priced := 0
	for _, r := range api {
		if md := r.Model.Metadata; md != nil && md.ContextWindow > 0 && md.Pricing != nil && md.Pricing.In != nil {
			priced++
		}
	}
	if priced == 0 {
		t.Fatalf("no inventory row has a context window and prices to check: %+v", api)
	}

	b := newBrowser(t, g.URL)
	b.viewport(t, 1280, 800, false)
	signIn(t, b, g)
	b.open(t, "/admin/dashboard/models", "models")

	t.Run("inventory", func(t *testing.T) {
		if got := eval[string](t, b, `document.getElementById("inventory-count").dataset.count`); got != strconv.Itoa(len(api)) {
			t.Errorf("inventory count %s, API %d", got, len(api))
		}
		shown := pageInventory(t, b)
		if len(shown) != len(api) {
			t.Fatalf("%d rows shown, API %d", len(shown), len(api))
		}
		for i, r := range api {
			want := append([]string{r.Selector}, r.cells()...)
			if fmt.Sprint(shown[i]) != fmt.Sprint(want) {
				t.Errorf("row %d shows %q, API %q", i, shown[i], want)
			}
		}
		// The category filter asks the API again.
		var emb []inventoryRow
		adminJSON(t, g, "/admin/models?category=embedding", &emb)
		if len(emb) == 0 || len(emb) == len(api) {
			t.Fatalf("embedding rows %d of %d: the filter check would prove nothing", len(emb), len(api))
		}
		b.do(t, "category", chromedp.SetValue(chromedp.CSS(`select[name="category"]`), "embedding"))
		eval[bool](t, b, `(document.querySelector('select[name="category"]').dispatchEvent(new Event("change")), true)`)
		b.waitFor(t, "embedding rows", `document.getElementById("inventory-count").dataset.count === "`+strconv.Itoa(len(emb))+`"`, 10*time.Second)
		shown = pageInventory(t, b)
		for i, r := range emb {
			if i >= len(shown) || shown[i][0] != r.Selector {
				t.Errorf("embedding row %d: shown %q, API %s", i, shown, r.Selector)
			}
		}
	})

	t.Run("managed rows are read-only", func(t *testing.T) {
		vm := `#virtual-models tr[data-source="fast-chat"]`
		b.waitFor(t, "managed virtual model", `document.querySelector('`+vm+`[data-managed="true"]')`, 10*time.Second)
		if got := eval[string](t, b, `document.querySelector('`+vm+`').cells[1].textContent`); got != "demo/mock-chat ×2, priced/gpt-4o" {
			t.Errorf("managed targets shown %q", got)
		}
		fo := `#failover tr[data-primary="demo/mock-reasoner"]`
		b.waitFor(t, "managed failover route", `document.querySelector('`+fo+`[data-managed="true"]')`, 10*time.Second)
		for _, row := range []string{vm, fo} {
			if n := eval[int](t, b, `document.querySelectorAll('`+row+` button').length`); n != 0 {
				t.Errorf("%s has %d buttons", row, n)
			}
			if !eval[bool](t, b, `document.querySelector('`+row+`').textContent.includes("managed (read-only)")`) {
				t.Errorf("%s is not marked managed", row)
			}
		}
		if r := virtualModels(t, g)["fast-chat"]; !r.Managed {
			t.Errorf("API row %+v", r)
		}
	})

	t.Run("virtual model created, renamed and deleted", func(t *testing.T) {
		clickJS(t, b, "#new-vmodel")
		b.waitFor(t, "dialog", `document.querySelector("dialog[open]")`, 5*time.Second)
		dialogInput(t, b, "source", "ui-alias")
		// A target without its provider is refused before any request.
		dialogInput(t, b, "targets", "mock-chat")
		clickJS(t, b, `dialog[open] button[data-action="save"]`)
		b.waitFor(t, "target refused", `(document.querySelector("dialog[open] .error:not([hidden])") || {}).textContent?.includes("provider/model")`, 5*time.Second)
		dialogInput(t, b, "targets", "demo/mock-chat*3, priced/gpt-4o")
		dialogInput(t, b, "strategy", "cost")
		dialogInput(t, b, "user_paths", "/ui/team")
		dialogInput(t, b, "description", "made in the browser")
		clickJS(t, b, `dialog[open] button[data-action="save"]`)
		row := `#virtual-models tr[data-source="ui-alias"]`
		b.waitFor(t, "alias listed", `document.querySelector('`+row+`[data-managed="false"]')`, 10*time.Second)
		r, ok := virtualModels(t, g)["ui-alias"]
		if !ok || r.Managed || r.Strategy != "cost" || r.Description != "made in the browser" || fmt.Sprint(r.UserPaths) != "[/ui/team]" ||
			len(r.Targets) != 2 || r.Targets[0].Provider != "demo" || r.Targets[0].Model != "mock-chat" || r.Targets[0].Weight != 3 ||
			r.Targets[1].Provider != "priced" || r.Targets[1].Model != "gpt-4o" || (r.Targets[1].Weight != 0 && r.Targets[1].Weight != 1) {
			t.Fatalf("API row %+v", r)
		}
		if got := eval[string](t, b, `document.querySelector('`+row+`').cells[1].textContent`); got != "demo/mock-chat ×3, priced/gpt-4o" {
			t.Errorf("targets shown %q", got)
		}

		// Rename: the other fields survive.
		clickJS(t, b, row+` button[data-action="edit"]`)
		b.waitFor(t, "edit dialog", `document.querySelector('dialog[open] [name="source"]').value === "ui-alias"`, 5*time.Second)
		dialogInput(t, b, "source", "ui-alias-2")
		clickJS(t, b, `dialog[open] button[data-action="save"]`)
		renamed := `#virtual-models tr[data-source="ui-alias-2"]`
		b.waitFor(t, "renamed", `document.querySelector('`+renamed+`') && !document.querySelector('`+row+`')`, 10*time.Second)
		all := virtualModels(t, g)
		if _, old := all["ui-alias"]; old {
			t.Error("the old name is still listed")
		}
		if r2 := all["ui-alias-2"]; r2.Strategy != "cost" || fmt.Sprint(r2.Targets) != fmt.Sprint(r.Targets) || fmt.Sprint(r2.UserPaths) != "[/ui/team]" {
			t.Errorf("renamed row %+v, was %+v", r2, r)
		}

		clickJS(t, b, renamed+` button[data-action="delete"]`)
		clickJS(t, b, `dialog[open] button[data-action="ok"]`)
		b.waitFor(t, "alias gone", `!document.querySelector('`+renamed+`')`, 10*time.Second)
		all = virtualModels(t, g)
		if _, left := all["ui-alias-2"]; left || len(all) != 1 || !all["fast-chat"].Managed {
			t.Errorf("after the delete the API lists %+v", all)
		}
	})

	t.Run("failover route created and deleted", func(t *testing.T) {
		clickJS(t, b, "#new-failover")
		b.waitFor(t, "dialog", `document.querySelector("dialog[open]")`, 5*time.Second)
		dialogInput(t, b, "primary_model", "priced/gpt-4o")
		dialogInput(t, b, "targets", "demo/mock-chat, demo/mock-reasoner")
		clickJS(t, b, `dialog[open] button[data-action="save"]`)
		row := `#failover tr[data-primary="priced/gpt-4o"]`
		b.waitFor(t, "route listed", `document.querySelector('`+row+`[data-managed="false"]')`, 10*time.Second)
		if r, ok := failoverRoutes(t, g)["priced/gpt-4o"]; !ok || r.Managed || fmt.Sprint(r.Targets) != "[demo/mock-chat demo/mock-reasoner]" {
			t.Fatalf("API route %+v", r)
		}
		if got := eval[string](t, b, `document.querySelector('`+row+`').cells[1].textContent`); got != "demo/mock-chat → demo/mock-reasoner" {
			t.Errorf("targets shown %q", got)
		}
		clickJS(t, b, row+` button[data-action="delete"]`)
		clickJS(t, b, `dialog[open] button[data-action="ok"]`)
		b.waitFor(t, "route gone", `!document.querySelector('`+row+`')`, 10*time.Second)
		all := failoverRoutes(t, g)
		if _, left := all["priced/gpt-4o"]; left || len(all) != 1 || !all["demo/mock-reasoner"].Managed {
			t.Errorf("after the delete the API lists %+v", all)
		}
	})

	b.checkClean(t)
}
