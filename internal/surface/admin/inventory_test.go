package admin

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/platform/config"
)

// TestModelInventoryOverrideSpelledOut: the override of GET /admin/models
// is the whole virtual model object (every field of GET
// /admin/virtual-models, defaults spelled out), not the stored row with
// its empty fields left out; a row without a policy has override null.
func TestModelInventoryOverrideSpelledOut(t *testing.T) {
	off := false
	policy := vmodels.Row{VirtualModel: vmodels.VirtualModel{Source: "openai/gpt-4o", Enabled: &off}}
	h, _ := newTestHandler(t, func(_ *config.Config, o *Options) {
		o.Models = func(string, int) ([]vmodels.InventoryEntry, bool) {
			return []vmodels.InventoryEntry{
				{ProviderName: "openai", ProviderType: "openai", Selector: "openai/gpt-4o",
					Access: vmodels.Access{Selector: "openai/gpt-4o", DefaultEnabled: true, Override: &policy}},
				{ProviderName: "openai", ProviderType: "openai", Selector: "openai/gpt-4o-mini",
					Access: vmodels.Access{Selector: "openai/gpt-4o-mini", DefaultEnabled: true, EffectiveEnabled: true}},
			}, true
		}
	})
	res := do(h, http.MethodGet, "/admin/models", "")
	if res.status != http.StatusOK {
		t.Fatalf("status %d: %s", res.status, res.body)
	}
	var rows []struct {
		Access struct {
			UserPaths []string        `json:"user_paths"`
			Override  json.RawMessage `json:"override"`
		} `json:"access"`
	}
	if err := json.Unmarshal(res.body, &rows); err != nil || len(rows) != 2 {
		t.Fatalf("rows %v: %s", err, res.body)
	}
	var override map[string]any
	if err := json.Unmarshal(rows[0].Access.Override, &override); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"source", "model", "provider_name", "description", "enabled", "strategy",
		"targets", "user_paths", "managed", "created_at", "updated_at"} {
		if _, ok := override[field]; !ok {
			t.Errorf("override lacks %q: %s", field, rows[0].Access.Override)
		}
	}
	if override["enabled"] != false || override["strategy"] != "round_robin" {
		t.Errorf("override %s", rows[0].Access.Override)
	}
	if string(rows[1].Access.Override) != "null" || rows[1].Access.UserPaths == nil {
		t.Errorf("row without policy: override %s, user_paths %v", rows[1].Access.Override, rows[1].Access.UserPaths)
	}
}
