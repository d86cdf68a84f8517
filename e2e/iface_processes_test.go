//go:build linux

package e2e

// Several gateway processes on one PostgreSQL database and one Redis
// prefix, as a client of the public HTTP API sees them. Linux only, as
// the other tests that start gateway processes.

import (
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/testkit/pgtest"
	"github.com/modelgate/modelgate/internal/testkit/redistest"
)

// TestIfaceProcessesShareChanges: with PostgreSQL and Redis, a change
// made through one process (a rate-limit rule, a virtual model, an access
// policy, a failover route, a budget, the budget settings and a price
// override) is in force
// at the other: at once when the change bus carries the news, and within
// the 30 s reload that stands in for a lost message (a process that had
// not yet subscribed when the change was announced), which bounds each
// check here.
func TestIfaceProcessesShareChanges(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	redisURL, prefix := redistest.New(t)
	block := strings.Join([]string{"storage postgres " + dsn, "redis " + redisURL, "master_key " + masterKey,
		"provider demo {\n type mock\n}", "provider spare {\n type mock\n}"}, "\n")
	ps := startGatewayProcesses(t, 2, block, "MODELGATE_REDIS_PREFIX="+prefix)
	p1, p2 := ps[0].G, ps[1].G
	shared := func(t *testing.T, what string, check func() bool) { poll(t, 35*time.Second, what, check) }
	chat := func(g *gateway, model, userPath string) response {
		res, err := send("POST", g.URL+"/v1/chat/completions",
			`{"model":"`+model+`","messages":[{"role":"user","content":"hi"}]}`, append(bearer(masterKey), userPathHeader, userPath)...)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	if res := adminCall(t, p1, "PUT", "/admin/rate-limits", `{"scope":"user_path","subject":"/shared-rule","period":"minute","max_requests":1}`); res.Status != 200 {
		t.Fatalf("rule: %d %s", res.Status, res.Body)
	}
	if res := adminCall(t, p1, "PUT", "/admin/virtual-models", `{"source":"shared-alias","targets":[{"provider":"spare","model":"mock-chat"}]}`); res.Status != 200 {
		t.Fatalf("virtual model: %d %s", res.Status, res.Body)
	}
	if res := adminCall(t, p1, "PUT", "/admin/virtual-models", `{"source":"demo/mock-reasoner","enabled":false}`); res.Status != 200 {
		t.Fatalf("policy: %d %s", res.Status, res.Body)
	}
	if res := adminCall(t, p1, "PUT", "/admin/failover", `{"primary_model":"demo/mock-chat","targets":["spare/mock-chat"]}`); res.Status != 200 {
		t.Fatalf("failover: %d %s", res.Status, res.Body)
	}
	if res := adminCall(t, p1, "PUT", "/admin/budgets/%2Fshared-budget/weekly", `{"amount":7}`); res.Status != 200 {
		t.Fatalf("budget: %d %s", res.Status, res.Body)
	}
	if res := adminCall(t, p1, "PUT", "/admin/budgets/settings", `{"weekly_reset_weekday":4}`); res.Status != 200 {
		t.Fatalf("settings: %d %s", res.Status, res.Body)
	}
	if res := adminCall(t, p1, "PUT", "/admin/pricing", `{"provider":"spare","model":"mock-chat","pricing":{"per_request":0.25}}`); res.Status != 200 {
		t.Fatalf("price override: %d %s", res.Status, res.Body)
	}

	shared(t, "the rule written at p1 refuses at p2", func() bool {
		return chat(p2, "mock-chat", "/shared-rule").Status == 429
	})
	shared(t, "the virtual model written at p1 routes at p2", func() bool {
		res := chat(p2, "shared-alias", "/")
		return res.Status == 200 && res.Header.Get("X-Modelgate-Provider") == "spare"
	})
	shared(t, "the policy written at p1 refuses at p2", func() bool {
		return chat(p2, "demo/mock-reasoner", "/").Status == 403
	})
	shared(t, "the failover route written at p1 is listed at p2", func() bool {
		return strings.Contains(string(adminCall(t, p2, "GET", "/admin/failover", "").Body), `"primary_model":"demo/mock-chat"`)
	})
	shared(t, "the budget and settings written at p1 are listed at p2", func() bool {
		b := string(adminCall(t, p2, "GET", "/admin/budgets", "").Body)
		s := string(adminCall(t, p2, "GET", "/admin/budgets/settings", "").Body)
		return strings.Contains(b, `"user_path":"/shared-budget"`) && strings.Contains(s, `"weekly_reset_weekday":4`)
	})
	shared(t, "the price override written at p1 is listed at p2", func() bool {
		return strings.Contains(string(adminCall(t, p2, "GET", "/admin/pricing", "").Body), `"provider":"spare"`)
	})
	if res := chat(p2, "spare/mock-chat", "/priced"); res.Status != 200 {
		t.Fatalf("chat at p2: %d %s", res.Status, res.Body)
	}
	shared(t, "a request served by p2 costs the override written at p1", func() bool {
		b := string(adminCall(t, p2, "GET", "/admin/audit/log?user_path=/priced", "").Body)
		return strings.Contains(b, `"total":0.25`) && strings.Contains(b, `"source":"override"`)
	})
}
