package pricing

// Storage persists the overrides written through the admin API
// (configuration rows are never stored). Every write returns once it is
// durable.
type Storage interface {
	// PricingOverrides returns every stored row.
	PricingOverrides() ([]Override, error)
	// PutPricingOverride stores o under its provider and model,
	// replacing any row there.
	PutPricingOverride(o Override) error
	// DeletePricingOverride removes the row of provider and model and
	// reports whether there was one.
	DeletePricingOverride(provider, model string) (bool, error)
}
