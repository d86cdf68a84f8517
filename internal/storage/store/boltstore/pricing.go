package boltstore

import (
	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/pricing"
	"github.com/modelgate/modelgate/internal/storage/records"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// BucketPricingOverrides is the bucket of the pricing domain: one entry
// per stored override, keyed by provider and model (length-prefixed),
// holding the row as JSON.
const BucketPricingOverrides = "pricing_overrides"

// PricingOverrides implements pricing.Storage in BucketPricingOverrides
// of a store, with synchronous transactions.
type PricingOverrides struct{ s *store.Store }

var _ pricing.Storage = (*PricingOverrides)(nil)

// NewPricingOverrides returns the override storage over s.
func NewPricingOverrides(s *store.Store) *PricingOverrides { return &PricingOverrides{s: s} }

// overrideKey is the key of the row of provider and model.
func overrideKey(provider, model string) []byte {
	return appendLP(appendLP(make([]byte, 0, 8+len(provider)+len(model)), provider), model)
}

// PricingOverrides implements pricing.Storage, in key order.
func (p *PricingOverrides) PricingOverrides() ([]pricing.Override, error) {
	var out []pricing.Override
	err := p.s.View(func(tx *bbolt.Tx) error {
		bk := tx.Bucket([]byte(BucketPricingOverrides))
		if bk == nil {
			return nil
		}
		return bk.ForEach(func(_, v []byte) error {
			o, err := records.DecodePricingOverride(v)
			if err == nil {
				out = append(out, o)
			}
			return err
		})
	})
	return out, err
}

// PutPricingOverride implements pricing.Storage.
func (p *PricingOverrides) PutPricingOverride(o pricing.Override) error {
	b, err := records.EncodePricingOverride(o)
	if err != nil {
		return err
	}
	return p.s.Update(func(tx *bbolt.Tx) error {
		bk, err := tx.CreateBucketIfNotExists([]byte(BucketPricingOverrides))
		if err != nil {
			return err
		}
		return bk.Put(overrideKey(o.Provider, o.Model), b)
	})
}

// DeletePricingOverride implements pricing.Storage.
func (p *PricingOverrides) DeletePricingOverride(provider, model string) (bool, error) {
	found := false
	err := p.s.Update(func(tx *bbolt.Tx) error {
		bk := tx.Bucket([]byte(BucketPricingOverrides))
		if bk == nil {
			return nil
		}
		k := overrideKey(provider, model)
		if found = bk.Get(k) != nil; !found {
			return nil
		}
		return bk.Delete(k)
	})
	return found, err
}
