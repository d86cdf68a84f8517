package boltstore

import (
	"bytes"
	"time"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/storage/records"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// BucketBudgets is the bucket of the budgets domain. It holds one entry
// per manual budget ("budget/<period><user_path>", period as in admin routes: "daily", "600"), one per reset
// mark ("reset/<period><user_path>") and the settings
// ("settings"), each a JSON object.
const BucketBudgets = "budgets"

// Entry name prefixes and names inside BucketBudgets.
const (
	budgetPrefix = "budget/"
	resetPrefix  = "reset/"
	settingsName = "settings"
)

// Budgets implements budgets.Storage in BucketBudgets of a store, with
// synchronous transactions: every write is durable when it returns.
type Budgets struct{ s *store.Store }

var _ budgets.Storage = (*Budgets)(nil)

// NewBudgets returns the budgets storage over s.
func NewBudgets(s *store.Store) *Budgets { return &Budgets{s: s} }

// budgetEntryName is the entry name of key k under prefix: the period as
// written in admin routes ("daily", "600") and the user path, so that a
// named period and a custom one of the same length stay apart.
func budgetEntryName(prefix string, k budgets.Key) []byte {
	return []byte(prefix + records.BudgetName(k.Period.PathValue(), k.UserPath))
}

// Budgets implements budgets.Storage.
func (b *Budgets) Budgets() ([]budgets.Budget, error) {
	var out []budgets.Budget
	err := b.forEach(budgetPrefix, func(name string, v []byte) error {
		bg, err := records.DecodeBudget(name, v)
		if err != nil {
			return err
		}
		out = append(out, bg)
		return nil
	})
	return out, err
}

// PutBudget implements budgets.Storage.
func (b *Budgets) PutBudget(bg budgets.Budget) error {
	v, err := records.EncodeBudget(bg)
	if err != nil {
		return err
	}
	return b.update(func(bk *bbolt.Bucket) error { return bk.Put(budgetEntryName(budgetPrefix, bg.Key()), v) })
}

// DeleteBudget implements budgets.Storage.
func (b *Budgets) DeleteBudget(k budgets.Key) error {
	return b.update(func(bk *bbolt.Bucket) error {
		if err := bk.Delete(budgetEntryName(budgetPrefix, k)); err != nil {
			return err
		}
		return bk.Delete(budgetEntryName(resetPrefix, k))
	})
}

// Settings implements budgets.Storage.
func (b *Budgets) Settings() (s budgets.Settings, ok bool, err error) {
	err = b.s.View(func(tx *bbolt.Tx) error {
		bk := tx.Bucket([]byte(BucketBudgets))
		if bk == nil {
			return nil
		}
		v := bk.Get([]byte(settingsName))
		if v == nil {
			return nil
		}
		ok = true
		s, err = records.DecodeSettings(v)
		return err
	})
	return s, ok, err
}

// PutSettings implements budgets.Storage.
func (b *Budgets) PutSettings(s budgets.Settings) error {
	v, err := records.EncodeSettings(s)
	if err != nil {
		return err
	}
	return b.update(func(bk *bbolt.Bucket) error { return bk.Put([]byte(settingsName), v) })
}

// Resets implements budgets.Storage.
func (b *Budgets) Resets() (map[budgets.Key]time.Time, error) {
	out := map[budgets.Key]time.Time{}
	err := b.forEach(resetPrefix, func(name string, v []byte) error {
		k, at, err := records.DecodeReset(name, v)
		if err != nil {
			return err
		}
		out[k] = at
		return nil
	})
	return out, err
}

// PutResets implements budgets.Storage.
func (b *Budgets) PutResets(resets map[budgets.Key]time.Time) error {
	return b.update(func(bk *bbolt.Bucket) error {
		for k, at := range resets {
			v, err := records.EncodeReset(k, at)
			if err != nil {
				return err
			}
			if err := bk.Put(budgetEntryName(resetPrefix, k), v); err != nil {
				return err
			}
		}
		return nil
	})
}

// update runs fn on the bucket in one synchronous transaction.
func (b *Budgets) update(fn func(bk *bbolt.Bucket) error) error {
	return b.s.Update(func(tx *bbolt.Tx) error {
		bk, err := tx.CreateBucketIfNotExists([]byte(BucketBudgets))
		if err != nil {
			return err
		}
		return fn(bk)
	})
}

// forEach calls fn for every entry whose name starts with prefix, with the
// entry's name after the prefix (records.BudgetName).
func (b *Budgets) forEach(prefix string, fn func(name string, v []byte) error) error {
	return b.s.View(func(tx *bbolt.Tx) error {
		bk := tx.Bucket([]byte(BucketBudgets))
		if bk == nil {
			return nil
		}
		c := bk.Cursor()
		p := []byte(prefix)
		for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
			if err := fn(string(k[len(p):]), v); err != nil {
				return err
			}
		}
		return nil
	})
}
