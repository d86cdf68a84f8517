package boltstore

import (
	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/storage/records"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// BucketVirtualModels is the bucket of the vmodels domain: one entry per
// stored virtual model ("vm/<source>", the row as JSON) and one per
// stored failover route ("fo/<primary>", its targets as a JSON array).
const BucketVirtualModels = "virtual_models"

// Entry name prefixes inside BucketVirtualModels.
const (
	vmPrefix = "vm/"
	foPrefix = "fo/"
)

// VirtualModels implements vmodels.Storage in BucketVirtualModels of a
// store, with synchronous transactions: every write is durable when it
// returns.
type VirtualModels struct{ s *store.Store }

var _ vmodels.Storage = (*VirtualModels)(nil)

// NewVirtualModels returns the virtual-model storage over s.
func NewVirtualModels(s *store.Store) *VirtualModels { return &VirtualModels{s: s} }

// VirtualModels implements vmodels.Storage.
func (v *VirtualModels) VirtualModels() ([]vmodels.Row, error) {
	var out []vmodels.Row
	err := v.forEach(vmPrefix, func(name string, b []byte) error {
		r, err := records.DecodeVirtualModel(name[len(vmPrefix):], b)
		if err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// PutVirtualModel implements vmodels.Storage.
func (v *VirtualModels) PutVirtualModel(r vmodels.Row, oldSource string) error {
	b, err := records.EncodeVirtualModel(r)
	if err != nil {
		return err
	}
	return v.update(func(bk *bbolt.Bucket) error {
		if oldSource != "" && oldSource != r.Source {
			if err := bk.Delete([]byte(vmPrefix + oldSource)); err != nil {
				return err
			}
		}
		return bk.Put([]byte(vmPrefix+r.Source), b)
	})
}

// DeleteVirtualModel implements vmodels.Storage.
func (v *VirtualModels) DeleteVirtualModel(source string) error {
	return v.update(func(bk *bbolt.Bucket) error { return bk.Delete([]byte(vmPrefix + source)) })
}

// FailoverRoutes implements vmodels.Storage.
func (v *VirtualModels) FailoverRoutes() (vmodels.Failover, error) {
	out := vmodels.Failover{}
	err := v.forEach(foPrefix, func(name string, b []byte) error {
		primary := name[len(foPrefix):]
		ts, err := records.DecodeFailoverTargets(primary, b)
		if err != nil {
			return err
		}
		out[primary] = ts
		return nil
	})
	return out, err
}

// PutFailoverRoute implements vmodels.Storage.
func (v *VirtualModels) PutFailoverRoute(primary string, targets []string) error {
	b, err := records.EncodeFailoverTargets(targets)
	if err != nil {
		return err
	}
	return v.update(func(bk *bbolt.Bucket) error { return bk.Put([]byte(foPrefix+primary), b) })
}

// DeleteFailoverRoute implements vmodels.Storage.
func (v *VirtualModels) DeleteFailoverRoute(primary string) error {
	return v.update(func(bk *bbolt.Bucket) error { return bk.Delete([]byte(foPrefix + primary)) })
}

func (v *VirtualModels) update(fn func(bk *bbolt.Bucket) error) error {
	return v.s.Update(func(tx *bbolt.Tx) error {
		bk, err := tx.CreateBucketIfNotExists([]byte(BucketVirtualModels))
		if err != nil {
			return err
		}
		return fn(bk)
	})
}

func (v *VirtualModels) forEach(prefix string, fn func(name string, b []byte) error) error {
	return v.s.View(func(tx *bbolt.Tx) error {
		bk := tx.Bucket([]byte(BucketVirtualModels))
		if bk == nil {
			return nil
		}
		c := bk.Cursor()
		p := []byte(prefix)
		for k, val := c.Seek(p); k != nil && len(k) >= len(p) && string(k[:len(p)]) == prefix; k, val = c.Next() {
			if err := fn(string(k), val); err != nil {
				return err
			}
		}
		return nil
	})
}
