package pricing

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// Service keeps the overrides in force: the configuration's rows, which
// win, and the stored ones. Every change is put in force at once for
// every later request (catalog.SetOverrides).
type Service struct {
	// Warn, when set, is told of each stored row that is left out
	// because it no longer validates.
	Warn func(msg string)

	mu      sync.Mutex
	config  map[catalog.OverrideKey]Override
	stored  map[catalog.OverrideKey]Override
	st      Storage
	clock   func() time.Time
	inForce *catalog.Overrides
}

// New returns a service with the configuration's rows, validated, marked
// SourceConfig and dated now; Load puts them in force. A duplicate key
// is an error.
func New(config []Override, now time.Time) (*Service, error) {
	s := &Service{config: map[catalog.OverrideKey]Override{}, stored: map[catalog.OverrideKey]Override{},
		clock: time.Now}
	for i, o := range config {
		if err := o.Validate(); err != nil {
			return nil, fmt.Errorf("pricing_overrides[%d]: %w", i, err)
		}
		if _, dup := s.config[o.Key()]; dup {
			return nil, fmt.Errorf("pricing_overrides[%d]: %w: provider %q model %q is declared twice", i, ErrInvalid, o.Provider, o.Model)
		}
		o.Source, o.CreatedAt, o.UpdatedAt = SourceConfig, now.UTC(), now.UTC()
		s.config[o.Key()] = o
	}
	return s, nil
}

// Load attaches st (nil: none) and puts the configuration's rows and
// st's in force (see Reload). When st cannot be read the configuration's
// rows are in force and the error is returned.
func (s *Service) Load(st Storage) error {
	s.mu.Lock()
	s.st = st
	s.swap()
	s.mu.Unlock()
	return s.Reload()
}

// Reload replaces the stored rows in force with st's, so that changes
// written by another process sharing the storage take effect here. When
// the storage cannot be read nothing changes and the error is returned.
func (s *Service) Reload() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st == nil {
		return nil
	}
	rows, err := s.st.PricingOverrides()
	if err != nil {
		return fmt.Errorf("reloading pricing overrides: %w", err)
	}
	stored := make(map[catalog.OverrideKey]Override, len(rows))
	for _, o := range rows {
		if err := o.Validate(); err != nil {
			if s.Warn != nil {
				s.Warn(fmt.Sprintf("stored price override for provider %q model %q left out: %v", o.Provider, o.Model, err))
			}
			continue
		}
		o.Source = SourceAdmin
		stored[o.Key()] = o
	}
	if !sameRows(stored, s.stored) {
		s.stored = stored
		s.swap()
	}
	return nil
}

// sameRows reports whether a and b hold the same rows, timestamps
// compared as instants.
func sameRows(a, b map[catalog.OverrideKey]Override) bool {
	return maps.EqualFunc(a, b, func(x, y Override) bool {
		return x.Source == y.Source && x.CreatedAt.Equal(y.CreatedAt) && x.UpdatedAt.Equal(y.UpdatedAt) &&
			reflect.DeepEqual(x.Pricing, y.Pricing)
	})
}

// Close takes the service's overrides out of force, unless a newer
// service already replaced them.
func (s *Service) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	catalog.ClearOverrides(s.inForce)
}

// swap puts the rows in force; s.mu is held (or s is new).
func (s *Service) swap() {
	m := make(map[catalog.OverrideKey]catalog.Pricing, len(s.config)+len(s.stored))
	for k, o := range s.stored {
		m[k] = o.Pricing
	}
	for k, o := range s.config {
		m[k] = o.Pricing
	}
	s.inForce = catalog.NewOverrides(m)
	catalog.SetOverrides(s.inForce)
}

// List returns every row in force, configuration rows in place of stored
// rows of the same key, sorted by provider then model.
func (s *Service) List() []Override {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Override, 0, len(s.config)+len(s.stored))
	for _, o := range s.config {
		out = append(out, o)
	}
	for k, o := range s.stored {
		if _, managed := s.config[k]; !managed {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b Override) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Model, b.Model))
	})
	return out
}

// Put stores the price of model on provider and puts it in force. A
// configuration row of that key is ErrManaged; without storage the
// write fails.
func (s *Service) Put(provider, model string, p catalog.Pricing) (Override, error) {
	o := Override{Provider: provider, Model: model, Pricing: p, Source: SourceAdmin}
	if err := o.Validate(); err != nil {
		return Override{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, managed := s.config[o.Key()]; managed {
		return Override{}, fmt.Errorf("pricing override for provider %q model %q is %w", provider, model, ErrManaged)
	}
	if s.st == nil {
		return Override{}, fmt.Errorf("pricing overrides: no storage")
	}
	now := s.clock().UTC()
	o.CreatedAt, o.UpdatedAt = now, now
	if old, ok := s.stored[o.Key()]; ok {
		o.CreatedAt = old.CreatedAt
	}
	if err := s.st.PutPricingOverride(o); err != nil {
		return Override{}, err
	}
	s.stored[o.Key()] = o
	s.swap()
	return o, nil
}

// Delete removes the stored price of model on provider. A configuration
// row is ErrManaged, a missing row ErrNotFound.
func (s *Service) Delete(provider, model string) error {
	k := catalog.OverrideKey{Provider: provider, Model: model}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, managed := s.config[k]; managed {
		return fmt.Errorf("pricing override for provider %q model %q is %w", provider, model, ErrManaged)
	}
	if s.st == nil {
		return fmt.Errorf("pricing override for provider %q model %q %w", provider, model, ErrNotFound)
	}
	found, err := s.st.DeletePricingOverride(provider, model)
	if err != nil {
		return err
	}
	_, had := s.stored[k]
	delete(s.stored, k)
	if had {
		s.swap()
	}
	if !found && !had {
		return fmt.Errorf("pricing override for provider %q model %q %w", provider, model, ErrNotFound)
	}
	return nil
}
