package e2e

import (
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// overrideChat is an OpenAI chat answer with fixed usage, so that its
// cost is computed by hand.
const overrideChat = `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini",` +
	`"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],` +
	`"usage":{"prompt_tokens":1000,"completion_tokens":500,"total_tokens":1500}}`

// TestPriceOverrideAndRecalculate: requests priced by the catalog; an
// override written through /admin/pricing prices the next request at
// once, with source override, in the audit entry and the usage record;
// a recalculation of yesterday..today reprices the older records, and the
// usage summary and the budget's spend then equal the hand-computed sum at
// the override's price. A configuration row is listed as source config
// and cannot be deleted; the admin row can.
func TestPriceOverrideAndRecalculate(t *testing.T) {
	clearEnv(t)
	u := newReplay(t, "openai")
	u.Handle("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(overrideChat))
	})
	block := "master_key " + masterKey + "\nstorage " + filepath.Join(t.TempDir(), "pricing.db") + "\n" +
		providerBlock("main", "openai", "sk-main-SECRET-1", u.BaseURL(), "models gpt-4o-mini gpt-4o", "models_mode allowlist") +
		"\npricing_override openai gpt-4o {\n\t\t\tinput_per_mtok 1\n\t\t\toutput_per_mtok 2\n\t\t}\n"
	g := startGateway(t, block)
	waitProvidersListed(t)
	if res := adminCall(t, g, "PUT", "/admin/budgets/%2Fteam/daily", `{"amount":100}`); res.Status != 200 {
		t.Fatalf("put budget: %d %s", res.Status, res.Body)
	}
	usage := catalog.Usage{InputTokens: 1000, OutputTokens: 500, TotalTokens: 1500}
	list, ok := catalog.Price("openai", "gpt-4o-mini", usage)
	if !ok {
		t.Fatal("gpt-4o-mini has no catalog price")
	}
	// The override: 1000 × 2 + 500 × 4 per million = 0.004 USD.
	override := catalog.NanosOf(0.004)
	if catalog.NanosOf(list.Total) == override {
		t.Fatal("the override must differ from the catalog's price")
	}
	chat := func(id string) {
		t.Helper()
		res := request(t, "POST", g.URL+"/v1/chat/completions", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`,
			append(bearer(masterKey), "Content-Type", "application/json", userPathHeader, "/team/app", "X-Request-Id", id)...)
		if res.Status != 200 {
			t.Fatalf("chat %s: %d %s", id, res.Status, res.Body)
		}
	}
	chat("before-1")
	chat("before-2")

	res := adminCall(t, g, "PUT", "/admin/pricing", `{"provider":"main","model":"gpt-4o-mini","pricing":{"input_per_mtok":2,"output_per_mtok":4}}`)
	if res.Status != 200 || res.JSON(t)["source"] != "admin" {
		t.Fatalf("put override: %d %s", res.Status, res.Body)
	}
	chat("after-1")

	entries, records := auditRecords(t)
	for id, want := range map[string]struct {
		cost   catalog.Nanos
		source catalog.CostSource
	}{"before-1": {catalog.NanosOf(list.Total), catalog.CostSourceCatalog}, "after-1": {override, catalog.CostSourceOverride}} {
		e := one(t, entries, id)
		if e.Cost == nil || catalog.NanosOf(e.Cost.Total) != want.cost || e.Cost.Source != want.source {
			t.Fatalf("%s: audit cost %+v, want %v from %s", id, e.Cost, want.cost, want.source)
		}
		rs := records[e.ID]
		if len(rs) != 1 || rs[0].TotalCost == nil || catalog.NanosOf(*rs[0].TotalCost) != want.cost || rs[0].CostSource != want.source {
			t.Fatalf("%s: usage records %+v", id, rs)
		}
	}

	today := time.Now().UTC()
	body := fmt.Sprintf(`{"start_date":%q,"end_date":%q}`, today.AddDate(0, 0, -1).Format(time.DateOnly), today.Format(time.DateOnly))
	res = adminCall(t, g, "POST", "/admin/usage/recalculate", body)
	if res.Status != http.StatusAccepted {
		t.Fatalf("recalculate: %d %s", res.Status, res.Body)
	}
	id, _ := res.JSON(t)["id"].(string)
	var job map[string]any
	poll(t, 20*time.Second, "the recalculation finishes", func() bool {
		r := adminCall(t, g, "GET", "/admin/usage/recalculate/"+id, "")
		if r.Status != 200 {
			t.Fatalf("status: %d %s", r.Status, r.Body)
		}
		job = r.JSON(t)
		return job["status"] != "running"
	})
	before, after := 2*catalog.NanosOf(list.Total), 2*override
	if job["status"] != "done" || job["records_changed"] != 2.0 ||
		catalog.NanosOf(job["cost_before"].(float64)) != before || catalog.NanosOf(job["cost_after"].(float64)) != after ||
		catalog.NanosOf(job["delta"].(float64)) != after-before {
		t.Fatalf("job %v; want 2 records changed from %v to %v", job, before, after)
	}

	// Every record now costs the override's price; so do the summary and
	// the budget's spend.
	_, records = auditRecords(t)
	n := 0
	for _, rs := range records {
		for _, r := range rs {
			n++
			if r.TotalCost == nil || catalog.NanosOf(*r.TotalCost) != override || r.CostSource != catalog.CostSourceOverride {
				t.Fatalf("record %s: %v from %s", r.ID, r.TotalCost, r.CostSource)
			}
		}
	}
	want := 3 * override
	sum := adminCall(t, g, "GET", "/admin/usage/summary?days=2", "")
	if sum.Status != 200 || catalog.NanosOf(sum.JSON(t)["total_cost"].(float64)) != want {
		t.Fatalf("usage summary %s; want total_cost %v", sum.Body, want)
	}
	if got := budgetSpent(t, g, "/team", "daily"); catalog.NanosOf(got) != want {
		t.Fatalf("budget spent %v, want %v", got, want)
	}
	// A second run changes nothing.
	res = adminCall(t, g, "POST", "/admin/usage/recalculate", body)
	if res.Status != http.StatusAccepted {
		t.Fatalf("recalculate again: %d %s", res.Status, res.Body)
	}
	id, _ = res.JSON(t)["id"].(string)
	poll(t, 20*time.Second, "the second recalculation finishes", func() bool {
		job = adminCall(t, g, "GET", "/admin/usage/recalculate/"+id, "").JSON(t)
		return job["status"] != "running"
	})
	if job["status"] != "done" || job["records_changed"] != 0.0 || job["records_scanned"] != float64(n) {
		t.Fatalf("second job %v; want nothing changed of %d records", job, n)
	}

	// The list shows both rows; the config row is read-only.
	res = adminCall(t, g, "GET", "/admin/pricing", "")
	rows, _ := res.JSON(t)["overrides"].([]any)
	if res.Status != 200 || len(rows) != 2 || rows[0].(map[string]any)["source"] != "admin" || rows[1].(map[string]any)["source"] != "config" {
		t.Fatalf("list: %d %s", res.Status, res.Body)
	}
	if res := adminCall(t, g, "DELETE", "/admin/pricing", `{"provider":"openai","model":"gpt-4o"}`); res.Status != http.StatusConflict {
		t.Fatalf("delete config row: %d %s", res.Status, res.Body)
	}
	if res := adminCall(t, g, "DELETE", "/admin/pricing", `{"provider":"main","model":"gpt-4o-mini"}`); res.Status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	if res := adminCall(t, g, "DELETE", "/admin/pricing", `{"provider":"main","model":"gpt-4o-mini"}`); res.Status != http.StatusNotFound {
		t.Fatalf("delete again: %d %s", res.Status, res.Body)
	}
	// Bad input is refused with the field named.
	res = adminCall(t, g, "PUT", "/admin/pricing", `{"provider":"main","model":"m","pricing":{"input_per_mtok":-1}}`)
	if res.Status != 400 || res.JSON(t)["error"].(map[string]any)["param"] != "pricing.input_per_mtok" {
		t.Fatalf("negative price: %d %s", res.Status, res.Body)
	}
	res = adminCall(t, g, "POST", "/admin/usage/recalculate", `{"start_date":"2026-02-02","end_date":"2026-02-01"}`)
	if res.Status != 400 {
		t.Fatalf("backwards window: %d %s", res.Status, res.Body)
	}
	t.Logf("catalog %v → override %v nano-USD per request; %d records, summary and budget at %v", catalog.NanosOf(list.Total), override, n, want)
}
