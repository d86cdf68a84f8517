package admin

import (
	"slices"
	"sync"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/platform/config"
)

// changeLog records the domains it is told about.
type changeLog struct {
	mu   sync.Mutex
	got  []string
	seen int
}

func (c *changeLog) Changed(domain string) {
	c.mu.Lock()
	c.got = append(c.got, domain)
	c.mu.Unlock()
}

// since returns the domains told since the last call.
func (c *changeLog) since() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := slices.Clone(c.got[c.seen:])
	c.seen = len(c.got)
	return out
}

func TestAdminWritesTellTheChangeNotifier(t *testing.T) {
	log := &changeLog{}
	bs, err := budgets.New(budgets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := vmodels.New(vmodels.Options{Providers: map[string]string{"openai": "openai"}})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := newTestHandler(t, func(_ *config.Config, o *Options) {
		o.Changes, o.Budgets, o.VirtualModels = log, bs, vs
	})
	step := func(method, path, body string, status int, want ...string) {
		t.Helper()
		if res := do(h, method, path, body); res.status != status {
			t.Fatalf("%s %s: %d %s", method, path, res.status, res.body)
		}
		if got := log.since(); !slices.Equal(got, want) {
			t.Fatalf("%s %s told %q, want %q", method, path, got, want)
		}
	}

	res := do(h, "POST", "/admin/auth-keys", `{"name":"ci"}`)
	if res.status != 201 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	if got := log.since(); !slices.Equal(got, []string{ChangedKeys}) {
		t.Fatalf("create told %q", got)
	}
	id := res.json(t)["id"].(string)
	step("GET", "/admin/auth-keys", "", 200)
	step("PATCH", "/admin/auth-keys/"+id, `{"name":"ci-2"}`, 200, ChangedKeys)
	step("POST", "/admin/auth-keys/"+id+"/deactivate", "", 200, ChangedKeys)
	step("DELETE", "/admin/auth-keys/"+id, "", 204, ChangedKeys)
	step("DELETE", "/admin/auth-keys/"+id, "", 404) // failed writes tell no one
	step("POST", "/admin/auth-keys", `{"name":""}`, 400)

	step("PUT", "/admin/virtual-models", `{"source":"fast","targets":[{"provider":"openai","model":"gpt-4o-mini"}]}`, 200, ChangedVirtualModels)
	step("PUT", "/admin/virtual-models", `{"source":"bad","targets":[{"provider":"nope","model":"x"}]}`, 400)
	step("DELETE", "/admin/virtual-models/fast", "", 204, ChangedVirtualModels)
	step("PUT", "/admin/failover", `{"primary_model":"openai/gpt-4o","targets":["openai/gpt-4o-mini"]}`, 200, ChangedVirtualModels)
	step("DELETE", "/admin/failover/openai%2Fgpt-4o", "", 204, ChangedVirtualModels)

	step("PUT", "/admin/budgets/%2Fteam/daily", `{"amount":5}`, 200, ChangedBudgets)
	step("POST", "/admin/budgets/reset-one", `{"user_path":"/team","period":"daily"}`, 200, ChangedBudgets)
	step("POST", "/admin/budgets/reset", `{"confirmation":"reset"}`, 200, ChangedBudgets)
	step("PUT", "/admin/budgets/settings", `{"daily_reset_hour":3}`, 200, ChangedBudgets)
	step("PUT", "/admin/budgets/settings", `{"daily_reset_hour":99}`, 400)
	step("DELETE", "/admin/budgets/%2Fteam/daily", "", 204, ChangedBudgets)
	step("DELETE", "/admin/budgets/%2Fteam/daily", "", 404)
}
