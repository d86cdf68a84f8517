package catalog

import "sync/atomic"

// OverrideKey names the model an operator prices: Provider is a provider
// instance's name or a provider type, Model the model id as the provider
// serves it (exact, case-sensitive).
type OverrideKey struct {
	// Provider is the provider name or type the price applies to.
	Provider string
	// Model is the model id the price applies to.
	Model string
}

// Overrides is an immutable set of operator prices that replace the
// catalog's (CostSourceOverride). Build it with NewOverrides and put it in
// force with SetOverrides.
type Overrides struct {
	m map[OverrideKey]*Pricing
}

// NewOverrides returns the set of the prices in m; it copies m, not the
// prices' pointers, so callers must not change them afterwards.
func NewOverrides(m map[OverrideKey]Pricing) *Overrides {
	o := &Overrides{m: make(map[OverrideKey]*Pricing, len(m))}
	for k, p := range m {
		o.m[k] = &p
	}
	return o
}

// Len returns the number of prices in o (0 for nil).
func (o *Overrides) Len() int {
	if o == nil {
		return 0
	}
	return len(o.m)
}

// find returns the price for modelID on the provider named providerName
// of type providerType: the provider name's price first, then the type's.
func (o *Overrides) find(providerName, providerType, modelID string) *Pricing {
	if o == nil || len(o.m) == 0 {
		return nil
	}
	if providerName != "" {
		if p := o.m[OverrideKey{providerName, modelID}]; p != nil {
			return p
		}
	}
	if providerType != "" && providerType != providerName {
		return o.m[OverrideKey{providerType, modelID}]
	}
	return nil
}

// current holds the overrides in force; nil is none.
var current atomic.Pointer[Overrides]

// SetOverrides puts o in force for every later cost (nil clears them) and
// returns the set it replaced.
func SetOverrides(o *Overrides) (prev *Overrides) { return current.Swap(o) }

// ClearOverrides removes o from force if it still is, so that a gateway
// that stops does not clear the prices a newer one put in force.
func ClearOverrides(o *Overrides) { current.CompareAndSwap(o, nil) }

// OverridePrice returns the operator's price for modelID on the provider
// named providerName of type providerType, if one is in force: a price
// set for the provider name wins over one set for its type. It does not
// allocate.
func OverridePrice(providerName, providerType, modelID string) (*Pricing, bool) {
	p := current.Load().find(providerName, providerType, modelID)
	return p, p != nil
}
