package admin

import "github.com/modelgate/modelgate/vmodels"

// ModelInventoryEntry is one row of GET /admin/models as the admin API
// answers it: the inventory row, with the deciding policy spelled out as
// GET /admin/virtual-models shows it.
type ModelInventoryEntry struct {
	// ProviderName is the configured provider instance.
	ProviderName string `json:"provider_name"`
	// ProviderType is the provider family.
	ProviderType string `json:"provider_type"`
	// Selector is "provider_name/model".
	Selector string `json:"selector"`
	// Model is the model object as GET /v1/models lists it.
	Model any `json:"model"`
	// Access says who may use the model.
	Access ModelAccessView `json:"access"`
}

// ModelAccessView is the access object of an inventory row.
type ModelAccessView struct {
	// Selector is "provider_name/model".
	Selector string `json:"selector"`
	// DefaultEnabled is whether the model is usable without a policy.
	DefaultEnabled bool `json:"default_enabled"`
	// EffectiveEnabled is whether the deciding policy leaves it enabled.
	EffectiveEnabled bool `json:"effective_enabled"`
	// UserPaths are the user paths the policy restricts the model to.
	UserPaths []string `json:"user_paths"`
	// Override is the virtual model row that decides, every field
	// present, or null.
	Override *VirtualModelView `json:"override"`
}

// inventoryView spells out rows for the admin API.
func inventoryView(rows []vmodels.InventoryEntry) []ModelInventoryEntry {
	out := make([]ModelInventoryEntry, len(rows))
	for i, r := range rows {
		a := ModelAccessView{Selector: r.Access.Selector, DefaultEnabled: r.Access.DefaultEnabled,
			EffectiveEnabled: r.Access.EffectiveEnabled, UserPaths: r.Access.UserPaths}
		if a.UserPaths == nil {
			a.UserPaths = []string{}
		}
		if r.Access.Override != nil {
			v := virtualModelView(*r.Access.Override)
			a.Override = &v
		}
		out[i] = ModelInventoryEntry{ProviderName: r.ProviderName, ProviderType: r.ProviderType,
			Selector: r.Selector, Model: r.Model, Access: a}
	}
	return out
}
