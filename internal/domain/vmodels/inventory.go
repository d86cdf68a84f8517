package vmodels

// Access is the access object of a model inventory row: what decides
// whether callers may use one provider model.
type Access struct {
	// Selector is "provider_name/model".
	Selector string `json:"selector"`
	// DefaultEnabled is whether the model is usable without a policy:
	// always true.
	DefaultEnabled bool `json:"default_enabled"`
	// EffectiveEnabled is whether the deciding policy leaves the model
	// enabled (true without a policy); UserPaths may still restrict who.
	EffectiveEnabled bool `json:"effective_enabled"`
	// UserPaths are the user paths the deciding policy restricts the
	// model to; empty means every caller.
	UserPaths []string `json:"user_paths"`
	// Override is the policy row that decides, or null.
	Override *Row `json:"override"`
}

// InventoryEntry is one row of the model inventory (GET /admin/models).
type InventoryEntry struct {
	// ProviderName is the configured provider instance.
	ProviderName string `json:"provider_name"`
	// ProviderType is the provider family.
	ProviderType string `json:"provider_type"`
	// Selector is "provider_name/model".
	Selector string `json:"selector"`
	// Model is the model object as GET /v1/models lists it.
	Model any `json:"model"`
	// Access says who may use the model.
	Access Access `json:"access"`
}

// AccessOf returns the access object of model on provider.
func (s *Service) AccessOf(provider, model string) Access {
	a := Access{Selector: provider + "/" + model, DefaultEnabled: true, EffectiveEnabled: true, UserPaths: []string{}}
	p := s.Policy(provider, model)
	if p == nil {
		return a
	}
	row := *p
	a.Override = &row
	a.EffectiveEnabled = p.Enabled == nil || *p.Enabled
	if len(p.UserPaths) > 0 {
		a.UserPaths = p.UserPaths
	}
	return a
}
